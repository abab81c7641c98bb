/**
 * nodeHttpTransport + RefdestAdapter against a misbehaving loopback server: truncated bodies,
 * unknown statuses, redirects (never followed), oversized and non-UTF-8 bodies, slow answers,
 * resets and refused connections. None of them may throw, and none may become OK or ABSENT.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DispatchOrder } from "../../src/adapters/contract.js";
import { REFDEST_C2_DECLARATION } from "../../src/adapters/declarations/refdest.js";
import { nodeHttpTransport } from "../../src/adapters/http-kit.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";

const order: DispatchOrder = {
  operationId: "i:1",
  effectType: "t",
  payload: {},
  clientRef: "i:1",
  idempotencyKey: "i:1",
  stableIds: {},
};
let mode = "ok";
let hits = 0;
let server: Server;
let url = "";

const behaviours: Record<string, (res: ServerResponse) => void> = {
  ok: (res) =>
    res.writeHead(201, { "content-type": "application/json" }).end(
      JSON.stringify({
        destination_ref: "dest_a",
        effect_type: "t",
        client_ref: "i:1",
        created_at: "2026-07-21T00:00:01Z",
        status: "created",
      }),
    ),
  truncated: (res) => {
    res.writeHead(201, { "content-type": "application/json", "content-length": "500" });
    res.write('{"destination_ref":"dest_a"');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  teapot: (res) => res.writeHead(418).end("{}"),
  redirect: (res) => res.writeHead(307, { location: "/elsewhere" }).end(),
  huge: (res) =>
    res
      .writeHead(201, { "content-type": "application/json" })
      .end(JSON.stringify({ pad: "x".repeat(1024 * 1024 + 10) })),
  badUtf8: (res) => res.writeHead(201).end(Buffer.from([0x7b, 0xc3, 0x28, 0x7d])),
  slow: (res) => setTimeout(() => res.writeHead(201).end("{}"), 1000),
  reset: (res) => res.socket?.resetAndDestroy(),
  absentWrongCode: (res) =>
    res
      .writeHead(404, { "content-type": "application/json" })
      .end(JSON.stringify({ error: { code: "gone_fishing" } })),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    req.resume();
    req.on("end", () => (behaviours[mode] ?? behaviours["ok"])?.(res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const a = server.address();
  url = `http://127.0.0.1:${typeof a === "object" && a !== null ? a.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe("RefdestAdapter over a misbehaving wire", () => {
  const cases = [
    ["ok", "OK"],
    ["truncated", "LOST"],
    ["teapot", "LOST"],
    ["redirect", "LOST"],
    ["huge", "LOST"],
    ["badUtf8", "LOST"],
    ["slow", "TIMEOUT"],
    ["reset", "LOST"],
  ] as const;
  for (const [behaviour, outcome] of cases) {
    it(`${behaviour} ⇒ ${outcome} with exactly one request`, async () => {
      mode = behaviour;
      hits = 0;
      const adapter = new RefdestAdapter({ baseUrl: url, declaration: REFDEST_C2_DECLARATION });
      const r = await adapter.dispatch(order, 300);
      expect(r.transportOutcome).toBe(outcome);
      expect(hits).toBe(1);
      const status = await adapter.statusQuery({ kind: "destination_ref", value: "dest_a" }, 300);
      // Every behaviour answers GET with something other than 200/404-resource_missing
      // (the "ok" one answers 201): never PRESENT or ABSENT.
      expect(status.result).toBe("INDETERMINATE");
    });
  }

  it("a 404 with a non-authoritative code is INDETERMINATE", async () => {
    mode = "absentWrongCode";
    const adapter = new RefdestAdapter({ baseUrl: url, declaration: REFDEST_C2_DECLARATION });
    expect(
      (await adapter.statusQuery({ kind: "destination_ref", value: "dest_a" }, 300)).result,
    ).toBe("INDETERMINATE");
  });

  it("a refused connection is LOST (never FAILED) and evidence says nothing was sent", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const a = closed.address();
    const port = typeof a === "object" && a !== null ? a.port : 0;
    await new Promise<void>((r) => closed.close(() => r()));
    const adapter = new RefdestAdapter({
      baseUrl: `http://127.0.0.1:${port}`,
      declaration: REFDEST_C2_DECLARATION,
    });
    expect(await adapter.dispatch(order, 300)).toMatchObject({
      transportOutcome: "LOST",
      evidence: { send_state: "not_sent", error_code: "ECONNREFUSED" },
    });
    expect((await adapter.statusQuery({ kind: "client_ref", value: "i:1" }, 300)).result).toBe(
      "INDETERMINATE",
    );
  });

  it("nodeHttpTransport reports a truncated body as a transport error after a partial response", async () => {
    mode = "truncated";
    const x = await nodeHttpTransport({
      method: "GET",
      url: url + "/x",
      headers: {},
      body: null,
      deadlineMs: 500,
      maxResponseBytes: 1000,
    });
    expect(x).toEqual({
      kind: "transport_error",
      sendState: "partial_response",
      errorCode: "ERR_TRUNCATED",
    });
  });
});
