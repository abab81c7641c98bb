/**
 * The reference destination over real HTTP on loopback: each tier through RefdestAdapter, each
 * fault kind and read lag through the control API, hostile input (the server keeps serving and
 * the truth log is unchanged), the control token, and byte-identical truth dumps for equal runs.
 */
import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DispatchOrder } from "../../src/adapters/contract.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
  REFDEST_C2_LAGGED_DECLARATION,
  REFDEST_C3_DECLARATION,
} from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import {
  Refdest,
  RefdestControlClient,
  startRefdestServer,
  frozenTimeSource,
  type RefdestServer,
} from "../../src/refdest/index.js";

const WINDOW = { from: "2026-07-21T00:00:00Z", to: "2026-07-22T00:00:00Z" };
const order = (n = 1, payload: Record<string, unknown> = { sku: "A1" }): DispatchOrder => ({
  operationId: `intent${n}:step1`,
  effectType: "order.create",
  payload,
  clientRef: `intent${n}:step1`,
  idempotencyKey: `intent${n}:step1`,
  stableIds: {},
});

async function serve(tier: "C1" | "C2" | "C3", seed = 777, lagSeconds = 0, frozen = false) {
  const server = await startRefdestServer(
    new Refdest({ tier, seed, lagSeconds, ...(frozen ? { clock: frozenTimeSource } : {}) }),
  );
  const control = new RefdestControlClient(server.url, server.controlToken);
  const declaration =
    lagSeconds > 0
      ? REFDEST_C2_LAGGED_DECLARATION
      : { C1: REFDEST_C1_DECLARATION, C2: REFDEST_C2_DECLARATION, C3: REFDEST_C3_DECLARATION }[
          tier
        ];
  const adapter = new RefdestAdapter({ baseUrl: server.url, declaration });
  return { server, control, adapter };
}

/** A raw request with full control over headers (fetch cannot set Host). */
function raw(
  server: RefdestServer,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  body: { error?: { code?: string; field?: string; message?: string } } & Record<string, unknown>;
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        method,
        path,
        headers: opts.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text === "" ? {} : (JSON.parse(text) as never),
          });
        });
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}
const JSON_CT = { "content-type": "application/json" };

describe("C2 over HTTP", () => {
  let ctx: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    ctx = await serve("C2");
  });
  afterAll(async () => {
    await ctx.server.close();
  });
  beforeEach(async () => {
    await ctx.control.reset();
  });

  it("creates with the seeded ref; status by ref and by client_ref; list; no dedup", async () => {
    const a = await ctx.adapter.dispatch(order(), 2000);
    expect(a).toMatchObject({
      transportOutcome: "OK",
      destinationRef: "dest_4dec67739b2a3b88d94e7f9502227114",
    });
    expect(
      (
        await ctx.adapter.statusQuery(
          { kind: "destination_ref", value: a.destinationRef ?? "" },
          2000,
        )
      ).result,
    ).toBe("PRESENT");
    expect(
      (
        await ctx.adapter.statusQuery(
          { kind: "destination_ref", value: "dest_00000000000000000000000000000000" },
          2000,
        )
      ).result,
    ).toBe("ABSENT");
    await ctx.adapter.dispatch(order(), 2000);
    expect(
      await ctx.adapter.statusQuery({ kind: "client_ref", value: "intent1:step1" }, 2000),
    ).toMatchObject({ result: "PRESENT", nFound: 2 });
    expect((await ctx.adapter.listEffects(WINDOW, null, 2000)).effects).toHaveLength(2);
  });

  const faults = [
    ["DROP_RESPONSE_BEFORE_COMMIT", "LOST", 0],
    ["DROP_RESPONSE_AFTER_COMMIT", "LOST", 1],
    ["ERROR_5XX_NO_COMMIT", "LOST", 0],
    ["ERROR_5XX_AFTER_COMMIT", "LOST", 1],
    ["DUPLICATE_ACCEPT", "OK", 2],
    ["THROTTLE_429", "FAILED", 0],
  ] as const;
  for (const [fault, outcome, effects] of faults) {
    it(`${fault} ⇒ ${outcome}, ${effects} effect(s) in the truth log`, async () => {
      await ctx.control.schedule([{ fault, match: { op: "create" } }]);
      const r = await ctx.adapter.dispatch(order(), 2000);
      expect(r.transportOutcome).toBe(outcome);
      expect((await ctx.control.truth()).effects).toHaveLength(effects);
      expect((await ctx.control.log())[0]).toMatchObject({ op: "create", fault });
    });
  }

  it("DELAY past the deadline ⇒ TIMEOUT, the effect committed; without commit nothing stored", async () => {
    await ctx.control.schedule([
      { fault: "DELAY", match: { op: "create" }, param: { ms: 600, commit: true } },
    ]);
    expect((await ctx.adapter.dispatch(order(1), 150)).transportOutcome).toBe("TIMEOUT");
    expect((await ctx.control.truth()).effects).toHaveLength(1);
    await ctx.control.schedule([
      { fault: "DELAY", match: { op: "create" }, param: { ms: 600, commit: false } },
    ]);
    expect((await ctx.adapter.dispatch(order(2), 150)).transportOutcome).toBe("TIMEOUT");
    expect((await ctx.control.truth()).effects).toHaveLength(1);
  });

  it("failed status reads are INDETERMINATE (429, 5xx, drop, delay)", async () => {
    await ctx.control.schedule([
      { fault: "THROTTLE_429", match: { op: "get" } },
      { fault: "ERROR_5XX_AFTER_COMMIT", match: { op: "get" } },
      { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "query" } },
      { fault: "DELAY", match: { op: "query" }, param: { ms: 500 } },
    ]);
    const ref = {
      kind: "destination_ref",
      value: "dest_00000000000000000000000000000000",
    } as const;
    const cref = { kind: "client_ref", value: "nobody" } as const;
    expect((await ctx.adapter.statusQuery(ref, 2000)).result).toBe("INDETERMINATE");
    expect((await ctx.adapter.statusQuery(ref, 2000)).result).toBe("INDETERMINATE");
    expect((await ctx.adapter.statusQuery(cref, 2000)).result).toBe("INDETERMINATE");
    expect((await ctx.adapter.statusQuery(cref, 100)).result).toBe("INDETERMINATE");
    expect((await ctx.adapter.statusQuery(cref, 2000)).result).toBe("ABSENT");
  });

  it("READ_LAG, LIST_FILTER_QUIRK, ENRICHMENT_QUIRK and out-of-band creation", async () => {
    await ctx.control.schedule([
      { fault: "READ_LAG", match: { client_ref: "intent1:step1" }, param: { seconds: 20 } },
      { fault: "LIST_FILTER_QUIRK", match: { op: "oob" } },
      { fault: "ENRICHMENT_QUIRK", match: { client_ref: "intent2:step1" } },
    ]);
    const lagged = await ctx.adapter.dispatch(order(1), 2000);
    await ctx.adapter.dispatch(order(2, { a: 1 }), 2000);
    const [oob] = await ctx.control.oob({ effect_type: "t", payload: {}, client_ref: "stranger" });
    expect(oob?.client_ref).toBe("stranger");
    const key = { kind: "destination_ref", value: lagged.destinationRef ?? "" } as const;
    expect((await ctx.adapter.statusQuery(key, 2000)).result).toBe("ABSENT");
    await ctx.control.advance(20);
    expect((await ctx.adapter.statusQuery(key, 2000)).result).toBe("PRESENT");
    expect((await ctx.adapter.listEffects(WINDOW, null, 2000)).effects).toHaveLength(3); // include_all sees the hidden one
    const plain = await fetch(`${ctx.server.url}/effects?from=${WINDOW.from}&to=${WINDOW.to}`);
    expect(((await plain.json()) as { effects: unknown[] }).effects).toHaveLength(2);
    const truth = await ctx.control.truth();
    expect(truth.effects.map((e) => e.via)).toEqual(["api", "api", "oob"]);
    expect(truth.effects[1]?.payload).toMatchObject({ normalized: true, data: { a: 1 } });
  });

  it("a bad schedule entry is a 400 schedule_invalid naming the field; nothing is scheduled", async () => {
    const r = await raw(ctx.server, "POST", "/control/schedule", {
      headers: { ...JSON_CT, authorization: `Bearer ${ctx.server.controlToken}` },
      body: JSON.stringify({
        entries: [{ fault: "DELAY", match: { op: "create" }, param: { ms: "slow" } }],
      }),
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: "schedule_invalid", field: "entries.0.param.ms" });
    expect(await ctx.control.scheduleSnapshot()).toHaveLength(0);
    await expect(
      ctx.control.schedule([{ fault: "READ_LAG", match: { op: "create" } } as never]),
    ).rejects.toMatchObject({
      code: "config_invalid",
      details: { field: "entries.0.param" },
    });
  });
});

describe("C1 and C3 over HTTP", () => {
  it("C1 replays within the window, compares parameters, and forgets the key after it", async () => {
    const { server, control, adapter } = await serve("C1");
    try {
      const a = await adapter.dispatch(order(), 2000);
      expect(await adapter.dispatch(order(), 2000)).toMatchObject({
        transportOutcome: "OK",
        destinationRef: a.destinationRef,
        evidence: { replayed: true },
      });
      expect(await adapter.dispatch(order(1, { sku: "other" }), 2000)).toMatchObject({
        transportOutcome: "LOST",
        evidence: { http_status: 409 },
      });
      await control.advance(86_400);
      const fresh = await adapter.dispatch(order(), 2000);
      expect(fresh.destinationRef).not.toBe(a.destinationRef);
      expect((await control.truth()).effects).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("a lagged C2 profile (--lag-seconds 30) hides new effects from status and list until 30 s pass", async () => {
    const { server, control, adapter } = await serve("C2", 777, 30);
    try {
      expect(adapter.declare().consistency).toEqual({
        status_settlement_lag: "PT30S",
        listing_lag: "PT30S",
      });
      const a = await adapter.dispatch(order(), 2000);
      expect(
        (await adapter.statusQuery({ kind: "client_ref", value: "intent1:step1" }, 2000)).result,
      ).toBe("ABSENT");
      expect((await adapter.listEffects(WINDOW, null, 2000)).effects).toHaveLength(0);
      await control.advance(30);
      expect(
        (
          await adapter.statusQuery(
            { kind: "destination_ref", value: a.destinationRef ?? "" },
            2000,
          )
        ).result,
      ).toBe("PRESENT");
      expect((await adapter.listEffects(WINDOW, null, 2000)).effects).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("C3 notifies (202 {}), records the effect, and answers /effects with a clear 404, not a closed socket", async () => {
    const { server, control, adapter } = await serve("C3");
    try {
      expect((await adapter.dispatch(order(), 2000)).transportOutcome).toBe("OK");
      for (const [method, path] of [
        ["GET", "/effects/dest_x"],
        ["GET", "/effects?client_ref=x"],
        ["POST", "/effects"],
      ] as const) {
        const r = await raw(server, method, path, {
          headers: JSON_CT,
          body: method === "POST" ? "{}" : (undefined as never),
        });
        expect(r.status).toBe(404);
        expect(r.body.error?.code).toBe("route_not_supported");
      }
      expect((await control.truth()).effects).toMatchObject([{ via: "notify", client_ref: null }]);
    } finally {
      await server.close();
    }
  });
});

describe("hostile input", () => {
  let ctx: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    ctx = await serve("C2");
  });
  afterAll(async () => {
    await ctx.server.close();
  });

  it("answers each with a clear JSON 4xx, keeps serving, and leaves the truth log unchanged", async () => {
    await ctx.adapter.dispatch(order(), 2000);
    const before = await ctx.control.truthJson();
    const stateBefore = await ctx.control.state();
    const auth = { authorization: `Bearer ${ctx.server.controlToken}` };
    const cases: ReadonlyArray<
      readonly [
        string,
        string,
        { headers?: Record<string, string>; body?: string | Buffer },
        number,
        string,
      ]
    > = [
      ["POST", "/effects", { headers: JSON_CT, body: "{not json" }, 400, "malformed_json"],
      [
        "POST",
        "/effects",
        {
          headers: JSON_CT,
          body: JSON.stringify({ effect_type: "t", payload: { x: "y".repeat(300 * 1024) } }),
        },
        413,
        "payload_too_large",
      ],
      [
        "POST",
        "/effects",
        { headers: JSON_CT, body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) },
        400,
        "malformed_json",
      ],
      [
        "POST",
        "/effects",
        { headers: JSON_CT, body: "[".repeat(5000) + "]".repeat(5000) },
        400,
        "invalid_request",
      ],
      [
        "POST",
        "/effects",
        { headers: JSON_CT, body: JSON.stringify({ effect_type: "t", payload: [] }) },
        400,
        "invalid_request",
      ],
      [
        "POST",
        "/effects",
        { headers: JSON_CT, body: JSON.stringify({ effect_type: "t", payload: {}, extra: 1 }) },
        400,
        "invalid_request",
      ],
      [
        "POST",
        "/effects",
        { headers: { "content-type": "text/plain" }, body: "{}" },
        415,
        "unsupported_media_type",
      ],
      ["GET", "/nope", {}, 404, "route_not_found"],
      ["GET", "/effects/", {}, 404, "route_not_found"],
      ["DELETE", "/effects", {}, 405, "method_not_allowed"],
      ["PUT", "/effects/dest_x", {}, 405, "method_not_allowed"],
      ["GET", "/effects", {}, 400, "invalid_request"],
      ["GET", "/effects?client_ref=a&client_ref=b", {}, 400, "invalid_request"],
      ["GET", "/effects?from=x&to=y", {}, 400, "invalid_request"],
      ["GET", "/effects/%E0%A4%A", {}, 400, "invalid_request"],
      ["GET", "/control/truth", {}, 401, "unauthorized"],
      [
        "GET",
        "/control/truth",
        { headers: { authorization: "Bearer wrong" } },
        401,
        "unauthorized",
      ],
      [
        "GET",
        "/control/truth",
        { headers: { authorization: ctx.server.controlToken } },
        401,
        "unauthorized",
      ],
      [
        "POST",
        "/control/reset",
        { headers: { authorization: "Bearer " + "0".repeat(64) } },
        401,
        "unauthorized",
      ],
      ["GET", "/control/nope", {}, 401, "unauthorized"],
      ["GET", "/control/nope", { headers: auth }, 404, "route_not_found"],
      ["DELETE", "/control/truth", { headers: auth }, 405, "method_not_allowed"],
      [
        "POST",
        "/control/oob",
        { headers: { ...auth, ...JSON_CT }, body: "{" },
        400,
        "malformed_json",
      ],
      [
        "GET",
        "/effects/dest_x",
        { headers: { host: "evil.example:80" } },
        421,
        "misdirected_request",
      ],
    ];
    for (const [method, path, opts, status, code] of cases) {
      const r = await raw(ctx.server, method, path, opts);
      expect({ method, path, status: r.status, code: r.body.error?.code }).toEqual({
        method,
        path,
        status,
        code,
      });
      expect(typeof r.body.error?.message).toBe("string");
    }
    const allow = await raw(ctx.server, "DELETE", "/effects");
    expect(allow.headers["allow"]).toBe("POST, GET");
    // Garbage that is not HTTP at all gets a JSON 400 from the parser guard.
    const garbage = await new Promise<string>((resolve) => {
      const s = connect(ctx.server.port, "127.0.0.1", () => s.write("\x00\x01 NOT HTTP\r\n\r\n"));
      let text = "";
      s.on("data", (c: Buffer) => (text += c.toString("utf8")));
      s.on("close", () => resolve(text));
    });
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);
    expect(garbage).toContain('"invalid_request"');

    expect(await ctx.control.truthJson()).toBe(before);
    const stateAfter = await ctx.control.state();
    expect(stateAfter["request_count"]).toBe(stateBefore["request_count"]); // refusals never tick the clock
    expect(Number(stateAfter["rejected_count"])).toBeGreaterThan(
      Number(stateBefore["rejected_count"]),
    );
    expect((await ctx.adapter.dispatch(order(2), 2000)).transportOutcome).toBe("OK");
  });
});

describe("determinism and parity", () => {
  async function scriptedRun(): Promise<string> {
    // Byte-identical runs need a clock that does not run by itself.
    const { server, control, adapter } = await serve("C2", 777, 0, true);
    try {
      await control.schedule([
        { fault: "DUPLICATE_ACCEPT", match: { nth_request: 2 } },
        { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { client_ref: "intent3:step1" } },
        {
          fault: "READ_LAG",
          match: { op: "create", client_ref: "intent4:step1" },
          param: { seconds: 9 },
        },
      ]);
      for (let i = 1; i <= 5; i++) {
        await adapter.dispatch(order(i, { i }), 2000);
        await adapter.statusQuery({ kind: "client_ref", value: `intent${i}:step1` }, 2000);
      }
      await control.oob({ effect_type: "t", payload: { oob: 1 } });
      return (await control.truthJson()) + JSON.stringify(await control.log());
    } finally {
      await server.close();
    }
  }

  it("two HTTP runs with the same seed and schedule give byte-identical truth dumps", async () => {
    const a = await scriptedRun();
    const b = await scriptedRun();
    expect(b).toBe(a);
    expect(a).toContain("dest_4dec67739b2a3b88d94e7f9502227114");
  });

  it("the truth dump served over HTTP is the in-process dump's RFC 8785 bytes", async () => {
    const { server, control, adapter } = await serve("C2", 42);
    try {
      await adapter.dispatch(order(), 2000);
      expect(await control.truthJson()).toBe(server.refdest.truthDumpJson());
    } finally {
      await server.close();
    }
  });

  it("close() cuts a pending DELAY promptly", async () => {
    const { server, control, adapter } = await serve("C2");
    await control.schedule([{ fault: "DELAY", match: { op: "create" }, param: { ms: 30_000 } }]);
    const pending = adapter.dispatch(order(), 20_000);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await server.close();
    expect((await pending).transportOutcome).toBe("LOST");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
