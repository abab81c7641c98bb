/**
 * RefdestAdapter against an in-process refdest (no sockets) and against stub transports:
 * the transport taxonomy, status queries (ABSENT only when authoritative), listing, payload
 * validation before any claim, and one wire call per method. The same adapter over real HTTP
 * is covered in test/integration/refdest-http.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { DispatchOrder } from "../../src/adapters/contract.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
  REFDEST_C2_LAGGED_DECLARATION,
  REFDEST_C3_DECLARATION,
} from "../../src/adapters/declarations/refdest.js";
import type { HttpExchange, HttpRequestSpec, HttpTransport } from "../../src/adapters/http-kit.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import {
  createInProcessTransport,
  Refdest,
  type FaultEntryInput,
} from "../../src/refdest/index.js";

const BASE = "http://127.0.0.1:1";
const DECL = {
  C1: REFDEST_C1_DECLARATION,
  C2: REFDEST_C2_DECLARATION,
  C3: REFDEST_C3_DECLARATION,
} as const;
const WINDOW = { from: "2026-07-21T00:00:00Z", to: "2026-07-22T00:00:00Z" };

function setup(tier: "C1" | "C2" | "C3", faults: FaultEntryInput[] = [], lagSeconds = 0) {
  const refdest = new Refdest({ tier, seed: 777, lagSeconds });
  refdest.schedule(faults);
  const calls: HttpRequestSpec[] = [];
  const inner = createInProcessTransport(refdest);
  const transport: HttpTransport = (spec) => {
    calls.push(spec);
    return inner(spec);
  };
  const declaration = lagSeconds > 0 ? REFDEST_C2_LAGGED_DECLARATION : DECL[tier];
  return { refdest, calls, adapter: new RefdestAdapter({ baseUrl: BASE, declaration, transport }) };
}

function order(n = 1, payload: Record<string, unknown> = { sku: "A1" }): DispatchOrder {
  const op = `intent${n}:step1`;
  return {
    operationId: op,
    effectType: "order.create",
    payload,
    clientRef: op,
    idempotencyKey: op,
    stableIds: { order: `o-${n}` },
  };
}

function stub(x: HttpExchange): HttpTransport {
  return () => Promise.resolve(x);
}
const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpExchange => ({
  kind: "response",
  status,
  headers,
  bodyText: JSON.stringify(body),
});

describe("dispatch taxonomy against the in-process refdest", () => {
  it("C2 OK: one call, the ref comes back, client_ref stamped, no idempotency key sent", async () => {
    const { adapter, refdest, calls } = setup("C2");
    const r = await adapter.dispatch(order(), 1000);
    expect(r).toMatchObject({
      transportOutcome: "OK",
      destinationRef: "dest_4dec67739b2a3b88d94e7f9502227114",
    });
    expect(r.responseDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]?.body ?? "{}")).not.toHaveProperty("idempotency_key");
    expect(refdest.truthDump().effects[0]).toMatchObject({
      client_ref: "intent1:step1",
      idempotency_key: null,
    });
  });

  it("C1 sends the idempotency key; a second dispatch replays the first effect", async () => {
    const { adapter, refdest } = setup("C1");
    const a = await adapter.dispatch(order(), 1000);
    const b = await adapter.dispatch(order(), 1000);
    expect(b).toMatchObject({
      transportOutcome: "OK",
      destinationRef: a.destinationRef,
      evidence: { replayed: true, idempotent_replayed: true },
    });
    expect(refdest.truthDump().effects).toHaveLength(1);
    expect(refdest.truthDump().effects[0]?.idempotency_key).toBe("intent1:step1");
  });

  it("C3 notifies: OK without a destination ref", async () => {
    const { adapter, refdest, calls } = setup("C3");
    const r = await adapter.dispatch(order(), 1000);
    expect(r.transportOutcome).toBe("OK");
    expect(r.destinationRef).toBeUndefined();
    expect(calls[0]?.url).toBe(`${BASE}/notify`);
    expect(refdest.truthDump().effects[0]?.via).toBe("notify");
  });

  const cases: ReadonlyArray<
    readonly [
      string,
      FaultEntryInput | null,
      Record<string, unknown>,
      string,
      string | undefined,
      number,
    ]
  > = [
    [
      "THROTTLE_429",
      { fault: "THROTTLE_429", match: { op: "create" } },
      {},
      "FAILED",
      "RETRYABLE",
      0,
    ],
    ["reject (400 invalid_request)", null, { reject: true }, "FAILED", "TERMINAL", 0],
    [
      "ERROR_5XX_NO_COMMIT",
      { fault: "ERROR_5XX_NO_COMMIT", match: { op: "create" } },
      {},
      "LOST",
      undefined,
      0,
    ],
    [
      "ERROR_5XX_AFTER_COMMIT",
      { fault: "ERROR_5XX_AFTER_COMMIT", match: { op: "create" } },
      {},
      "LOST",
      undefined,
      1,
    ],
    [
      "DROP_RESPONSE_BEFORE_COMMIT",
      { fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } },
      {},
      "LOST",
      undefined,
      0,
    ],
    [
      "DROP_RESPONSE_AFTER_COMMIT",
      { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } },
      {},
      "LOST",
      undefined,
      1,
    ],
    [
      "DUPLICATE_ACCEPT",
      { fault: "DUPLICATE_ACCEPT", match: { op: "create" } },
      {},
      "OK",
      undefined,
      2,
    ],
    [
      "DELAY past the deadline, committed",
      { fault: "DELAY", match: { op: "create" }, param: { ms: 400 } },
      {},
      "TIMEOUT",
      undefined,
      1,
    ],
    [
      "DELAY past the deadline, not committed",
      { fault: "DELAY", match: { op: "create" }, param: { ms: 400, commit: false } },
      {},
      "TIMEOUT",
      undefined,
      0,
    ],
    [
      "DELAY within the deadline, not committed (504)",
      { fault: "DELAY", match: { op: "create" }, param: { ms: 20, commit: false } },
      {},
      "LOST",
      undefined,
      0,
    ],
  ];
  for (const [name, fault, extra, outcome, kind, effects] of cases) {
    it(`${name} ⇒ ${outcome}${kind === undefined ? "" : "/" + kind}, ${effects} effect(s) at the destination`, async () => {
      const { adapter, refdest, calls } = setup("C2", fault === null ? [] : [fault]);
      const r = await adapter.dispatch(order(1, { sku: "A1", ...extra }), 150);
      expect(r.transportOutcome).toBe(outcome);
      expect(r.failureKind).toBe(kind);
      expect(calls).toHaveLength(1);
      expect(refdest.truthDump().effects).toHaveLength(effects);
      if (outcome === "TIMEOUT") expect(r.evidence).toMatchObject({ deadline_ms: 150 });
      if (name.startsWith("DROP"))
        expect(r.evidence).toMatchObject({ send_state: "sent_no_response" });
    });
  }

  it("C1 parameter mismatch (409) is LOST, not FAILED: the key's first request may have committed", async () => {
    const { adapter } = setup("C1");
    await adapter.dispatch(order(1, { sku: "A1" }), 1000);
    const r = await adapter.dispatch(order(1, { sku: "B2" }), 1000);
    expect(r).toMatchObject({
      transportOutcome: "LOST",
      evidence: { http_status: 409, error_code: "idempotency_key_mismatch" },
    });
  });
});

describe("dispatch taxonomy for shapes the refdest never sends (stub transport)", () => {
  const cases: ReadonlyArray<readonly [string, HttpExchange, string, string | undefined]> = [
    [
      "429 without the documented code",
      json(429, { error: { code: "slow_down" } }),
      "LOST",
      undefined,
    ],
    ["400 with another code", json(400, { error: { code: "malformed_json" } }), "LOST", undefined],
    ["201 with an unknown body", json(201, { ok: true }), "LOST", undefined],
    [
      "201 with a non-JSON body",
      { kind: "response", status: 201, headers: {}, bodyText: "<html>" },
      "LOST",
      undefined,
    ],
    [
      "201 with bad UTF-8",
      { kind: "response", status: 201, headers: {}, bodyText: null },
      "LOST",
      undefined,
    ],
    ["302 redirect", json(302, {}), "LOST", undefined],
    ["404", json(404, { error: { code: "route_not_found" } }), "LOST", undefined],
    ["503", json(503, {}), "LOST", undefined],
    ["an oversized response", { kind: "response_too_large", status: 201 }, "LOST", undefined],
    [
      "a reset after sending",
      { kind: "transport_error", sendState: "sent_no_response", errorCode: "ECONNRESET" },
      "LOST",
      undefined,
    ],
    [
      "a truncated body",
      { kind: "transport_error", sendState: "partial_response", errorCode: "ERR_TRUNCATED" },
      "LOST",
      undefined,
    ],
    [
      "a refused connection",
      { kind: "transport_error", sendState: "not_sent", errorCode: "ECONNREFUSED" },
      "LOST",
      undefined,
    ],
    ["a deadline", { kind: "timeout", sendState: "sent_no_response" }, "TIMEOUT", undefined],
    ["a cited 429", json(429, { error: { code: "rate_limited" } }), "FAILED", "RETRYABLE"],
    ["a cited 400", json(400, { error: { code: "invalid_request" } }), "FAILED", "TERMINAL"],
  ];
  for (const [name, exchange, outcome, kind] of cases) {
    it(`${name} ⇒ ${outcome}`, async () => {
      const adapter = new RefdestAdapter({
        baseUrl: BASE,
        declaration: REFDEST_C2_DECLARATION,
        transport: stub(exchange),
      });
      const r = await adapter.dispatch(order(), 100);
      expect(r.transportOutcome).toBe(outcome);
      expect(r.failureKind).toBe(kind);
    });
  }
});

describe("statusQuery", () => {
  it("by destination_ref: 200 PRESENT, 404 resource_missing ABSENT", async () => {
    const { adapter } = setup("C2");
    const { destinationRef } = await adapter.dispatch(order(), 1000);
    expect(
      await adapter.statusQuery({ kind: "destination_ref", value: destinationRef ?? "" }, 1000),
    ).toMatchObject({
      result: "PRESENT",
      nFound: 1,
      destinationRefs: [destinationRef],
    });
    expect(
      await adapter.statusQuery(
        { kind: "destination_ref", value: "dest_00000000000000000000000000000000" },
        1000,
      ),
    ).toMatchObject({
      result: "ABSENT",
      nFound: 0,
    });
  });

  it("by client_ref: n = matches (2 after a duplicate), zero matches ABSENT", async () => {
    const { adapter } = setup("C2", [{ fault: "DUPLICATE_ACCEPT", match: { op: "create" } }]);
    await adapter.dispatch(order(), 1000);
    const found = await adapter.statusQuery({ kind: "client_ref", value: "intent1:step1" }, 1000);
    expect(found).toMatchObject({ result: "PRESENT", nFound: 2 });
    expect(found.destinationRefs).toHaveLength(2);
    expect(
      await adapter.statusQuery({ kind: "client_ref", value: "intent9:step1" }, 1000),
    ).toMatchObject({ result: "ABSENT", nFound: 0 });
  });

  const failing: ReadonlyArray<readonly [string, FaultEntryInput]> = [
    ["429", { fault: "THROTTLE_429", match: { op: "get" } }],
    ["5xx", { fault: "ERROR_5XX_NO_COMMIT", match: { op: "get" } }],
    ["a dropped connection", { fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "get" } }],
    ["a delay past the deadline", { fault: "DELAY", match: { op: "get" }, param: { ms: 300 } }],
  ];
  for (const [name, fault] of failing) {
    it(`${name} is INDETERMINATE, never ABSENT`, async () => {
      const { adapter } = setup("C2", [fault]);
      const r = await adapter.statusQuery(
        { kind: "destination_ref", value: "dest_00000000000000000000000000000000" },
        100,
      );
      expect(r).toMatchObject({ result: "INDETERMINATE", nFound: null, destinationRefs: [] });
    });
  }

  it("a 404 without the authoritative code, or an odd body, is INDETERMINATE", async () => {
    for (const x of [
      json(404, { error: { code: "route_not_found" } }),
      json(404, "nope"),
      json(200, { destination_ref: "other" }),
      json(200, { matches: "x" }),
    ]) {
      const adapter = new RefdestAdapter({
        baseUrl: BASE,
        declaration: REFDEST_C2_DECLARATION,
        transport: stub(x),
      });
      expect(
        (await adapter.statusQuery({ kind: "destination_ref", value: "dest_a" }, 100)).result,
      ).toBe("INDETERMINATE");
      expect((await adapter.statusQuery({ kind: "client_ref", value: "c" }, 100)).result).toBe(
        "INDETERMINATE",
      );
    }
  });

  it("under read lag the destination answers ABSENT until the lag passes (the declaration states PT30S)", async () => {
    const { adapter, refdest } = setup("C2", [], 30);
    expect(adapter.declare().consistency.status_settlement_lag).toBe("PT30S");
    const { destinationRef } = await adapter.dispatch(order(), 1000);
    const key = { kind: "destination_ref", value: destinationRef ?? "" } as const;
    expect((await adapter.statusQuery(key, 1000)).result).toBe("ABSENT");
    refdest.advanceClock(30);
    expect((await adapter.statusQuery(key, 1000)).result).toBe("PRESENT");
  });

  it("refuses keys the declaration does not support with capability_unsupported", async () => {
    const c3 = setup("C3").adapter;
    await expect(c3.statusQuery({ kind: "client_ref", value: "x" }, 100)).rejects.toMatchObject({
      code: "capability_unsupported",
    });
    const c2 = setup("C2").adapter;
    await expect(
      c2.statusQuery({ kind: "stable_id", name: "order", value: "o-1" }, 100),
    ).rejects.toMatchObject({ code: "capability_unsupported" });
  });
});

describe("listEffects", () => {
  it("pages with the destination's cursor and includes quirk-hidden effects", async () => {
    const { adapter, refdest } = setup("C2", [
      { fault: "LIST_FILTER_QUIRK", match: { op: "oob" } },
    ]);
    refdest.createOutOfBand({ effect_type: "t", payload: {} });
    for (let i = 1; i <= 150; i++) await adapter.dispatch(order(i), 1000);
    const first = await adapter.listEffects(WINDOW, null, 1000);
    expect(first.effects).toHaveLength(100);
    expect(first.nextCursor).not.toBeNull();
    const second = await adapter.listEffects(WINDOW, first.nextCursor, 1000);
    expect(second.effects).toHaveLength(51);
    expect(second.nextCursor).toBeNull();
    expect(first.effects[0]).toMatchObject({ clientRef: null, effectType: "t", status: "created" });
    expect(second.effects[50]?.clientRef).toBe("intent150:step1");
  });

  it("a failed page throws destination_unavailable (retryable), never an empty page", async () => {
    const { adapter } = setup("C2", [{ fault: "ERROR_5XX_NO_COMMIT", match: { op: "list" } }]);
    await expect(adapter.listEffects(WINDOW, null, 1000)).rejects.toMatchObject({
      code: "destination_unavailable",
      retryable: true,
    });
    const dropped = new RefdestAdapter({
      baseUrl: BASE,
      declaration: REFDEST_C2_DECLARATION,
      transport: stub({ kind: "timeout", sendState: "sent_no_response" }),
    });
    await expect(dropped.listEffects(WINDOW, null, 100)).rejects.toMatchObject({
      code: "destination_unavailable",
    });
  });

  it("refuses C3 and malformed windows", async () => {
    await expect(setup("C3").adapter.listEffects(WINDOW, null, 100)).rejects.toMatchObject({
      code: "capability_unsupported",
    });
    await expect(
      setup("C2").adapter.listEffects({ from: "today", to: WINDOW.to }, null, 100),
    ).rejects.toMatchObject({ code: "usage" });
  });
});

describe("validatePayload (before any claim)", () => {
  const adapter = setup("C2").adapter;
  const deep = (n: number): Record<string, unknown> => (n === 1 ? { leaf: 1 } : { d: deep(n - 1) });
  class Money {
    amount = 1;
  }
  const bad: ReadonlyArray<readonly [string, unknown]> = [
    ["an array", [1, 2]],
    ["null", null],
    ["a string", "x"],
    ["an undefined member", { a: undefined }],
    ["NaN", { a: Number.NaN }],
    ["an unsafe integer", { a: 2 ** 60 }],
    ["a bigint", { a: 1n }],
    ["a function", { a: () => 1 }],
    ["a class instance", { a: new Money() }],
    ["a Date", { a: new Date(0) }],
    ["nesting deeper than 64", deep(65)],
    ["more than 256 KiB", { blob: "x".repeat(256 * 1024) }],
  ];
  for (const [name, payload] of bad) {
    it(`refuses ${name} with payload_invalid`, () => {
      expect(() =>
        adapter.validatePayload("order.create", payload as Record<string, unknown>),
      ).toThrow(expect.objectContaining({ code: "payload_invalid" }));
    });
  }

  it("refuses an empty or over-long effect type", () => {
    expect(() => adapter.validatePayload("", {})).toThrow(
      expect.objectContaining({ code: "payload_invalid" }),
    );
    expect(() => adapter.validatePayload("x".repeat(201), {})).toThrow(
      expect.objectContaining({ code: "payload_invalid" }),
    );
  });

  it("accepts what the destination accepts, at the limits", async () => {
    const { adapter: a, refdest } = setup("C2");
    const big = { blob: "x".repeat(256 * 1024 - 20) };
    for (const p of [deep(64), big, { a: [1, "two", null, true, { b: 1.5 }] }]) {
      expect(() => a.validatePayload("order.create", p)).not.toThrow();
      expect((await a.dispatch({ ...order(), payload: p }, 2000)).transportOutcome).toBe("OK");
    }
    expect(refdest.truthDump().effects).toHaveLength(3);
  });

  it("dispatch of an invalid payload sends nothing and returns FAILED/TERMINAL (not_sent)", async () => {
    const { adapter: a, calls } = setup("C2");
    const r = await a.dispatch(
      { ...order(), payload: { a: undefined } as Record<string, unknown> },
      100,
    );
    expect(r).toMatchObject({
      transportOutcome: "FAILED",
      failureKind: "TERMINAL",
      evidence: { send_state: "not_sent" },
    });
    expect(calls).toHaveLength(0);
  });
});

describe("construction and arguments", () => {
  it("validates the declaration, the base URL and deadlines", async () => {
    const bad = { ...REFDEST_C2_DECLARATION, tier: "C9" };
    expect(() => new RefdestAdapter({ baseUrl: BASE, declaration: bad as never })).toThrow(
      expect.objectContaining({ code: "declaration_invalid" }),
    );
    for (const url of [
      "http://example.com",
      "ftp://127.0.0.1",
      "http://127.0.0.1:1/path",
      "not a url",
    ]) {
      expect(
        () => new RefdestAdapter({ baseUrl: url, declaration: REFDEST_C2_DECLARATION }),
      ).toThrow(expect.objectContaining({ code: "config_invalid" }));
    }
    const a = setup("C2").adapter;
    expect(a.adapterId).toBe("refdest-c2");
    await expect(a.dispatch(order(), 0)).rejects.toMatchObject({ code: "usage" });
    await expect(
      a.statusQuery({ kind: "client_ref", value: "x" }, Number.POSITIVE_INFINITY),
    ).rejects.toMatchObject({ code: "usage" });
  });
});
