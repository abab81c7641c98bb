/**
 * Hostile destination responses through RefdestAdapter (a fake transport answers anything:
 * malformed JSON, NaN/Infinity text, huge and deeply nested bodies, bad UTF-8, wrong member
 * types, odd statuses, timeouts, resets) and through the engine's own guard
 * (normaliseDispatchResult / normaliseStatusResult). Never an exception; the transport
 * taxonomy holds (I5): OK only for a 2xx with a well-formed view, FAILED only for the two
 * cited side-effect-free answers, everything unknown LOST/TIMEOUT; a status query is ABSENT
 * only on the destination's own authoritative "none", never on garbage. A few cases also go
 * over real sockets (node:http transport). Control: a naive adapter is caught.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DispatchOrder, DispatchResult } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import type { HttpExchange, HttpTransport } from "../../src/adapters/http-kit.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import {
  callDispatch,
  callStatusQuery,
  normaliseDispatchResult,
  normaliseStatusResult,
} from "../../src/engine/call-adapter.js";

const RUNS = process.env["IRREVON_PROOF_SCALE"] === "full" ? 10_000 : 600;
const OP = `${"a".repeat(64)}:0`;
const ORDER: DispatchOrder = {
  operationId: OP,
  effectType: "order.create",
  payload: { sku: "SKU-1" },
  clientRef: OP,
  idempotencyKey: OP,
  stableIds: { order_id: "1" },
};
const VIEW = {
  destination_ref: "dest_1",
  effect_type: "order.create",
  client_ref: OP,
  created_at: "2026-07-21T00:00:01Z",
  status: "created",
  replayed: false,
};

const DEEP = "[".repeat(100_000) + "]".repeat(100_000);
const HUGE = JSON.stringify({ ...VIEW, pad: "x".repeat(2 * 1024 * 1024) });

/** A body: valid-ish views with wrong member types, error envelopes, junk and extremes. */
const bodyText: fc.Arbitrary<string | null> = fc.oneof(
  fc.constant(null), // not valid UTF-8
  fc.json(),
  fc.string(),
  fc.constantFrom(
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "9007199254740993",
    "{",
    '{"a":',
    DEEP,
    HUGE,
    "",
  ),
  fc
    .record({
      key: fc.constantFrom(...Object.keys(VIEW)),
      value: fc.oneof(fc.anything(), fc.constant(undefined)),
    })
    .map(({ key, value }) => JSON.stringify({ ...VIEW, [key]: value })),
  fc
    .constantFrom("rate_limited", "invalid_request", "resource_missing", "server_error", "weird", 7)
    .map((code) => JSON.stringify({ error: { code, message: "m" } })),
  fc
    .array(fc.oneof(fc.constant(VIEW), fc.anything()))
    .map((matches) => JSON.stringify({ matches })),
  fc.constant(JSON.stringify({ matches: [] })),
  fc.constant(JSON.stringify(VIEW)),
);

const exchange: fc.Arbitrary<HttpExchange> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("response" as const),
      status: fc.oneof(
        fc.constantFrom(200, 201, 202, 204, 301, 400, 404, 409, 429, 500, 502, 503),
        fc.integer({ min: 100, max: 599 }),
      ),
      headers: fc.dictionary(
        fc.constantFrom("idempotent-replayed", "x-y", "content-type"),
        fc.string(),
      ),
      bodyText,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 100, max: 599 })
      .map((status) => ({ kind: "response_too_large" as const, status })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("not_sent", "sent_no_response", "partial_response")
      .map((sendState) => ({ kind: "timeout" as const, sendState })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("not_sent", "sent_no_response", "partial_response"), fc.string())
      .map(([sendState, errorCode]) => ({
        kind: "transport_error" as const,
        sendState,
        errorCode,
      })),
  },
);

function adapterAnswering(x: HttpExchange, tier: "C1" | "C2" = "C2"): RefdestAdapter {
  const transport: HttpTransport = () => Promise.resolve(x);
  return new RefdestAdapter({
    baseUrl: "http://127.0.0.1:9",
    declaration: refdestDeclaration(tier),
    transport,
  });
}

function codeOf(x: HttpExchange): unknown {
  if (x.kind !== "response" || x.bodyText === null) return undefined;
  try {
    const body = JSON.parse(x.bodyText) as { error?: { code?: unknown } } | null;
    return body?.error?.code;
  } catch {
    return undefined;
  }
}

/** The taxonomy a dispatch result must respect, given what the wire said. */
function expectDispatchTaxonomy(x: HttpExchange, r: DispatchResult): void {
  expect(["OK", "FAILED", "TIMEOUT", "LOST"]).toContain(r.transportOutcome);
  expect(typeof r.evidence).toBe("object");
  expect(() => JSON.stringify(r.evidence)).not.toThrow();
  if (r.transportOutcome === "OK") {
    expect(x.kind).toBe("response");
    if (x.kind === "response") expect([200, 201, 202]).toContain(x.status);
    expect(typeof r.destinationRef).toBe("string");
    expect(r.destinationRef?.length).toBeGreaterThan(0);
  }
  if (r.transportOutcome === "FAILED") {
    expect(x.kind).toBe("response");
    const status = x.kind === "response" ? x.status : 0;
    const cited =
      (status === 429 && codeOf(x) === "rate_limited" && r.failureKind === "RETRYABLE") ||
      (status === 400 && codeOf(x) === "invalid_request" && r.failureKind === "TERMINAL");
    expect(cited).toBe(true);
  }
  if (r.transportOutcome === "TIMEOUT") expect(x.kind).toBe("timeout");
  // What the engine makes of it is the same outcome (the adapter's answer is well-formed).
  expect(normaliseDispatchResult(r).transportOutcome).toBe(r.transportOutcome);
}

type Dispatcher = (x: HttpExchange) => Promise<DispatchResult>;

function dispatchProperty(dispatch: Dispatcher): fc.IAsyncPropertyWithHooks<[HttpExchange]> {
  return fc.asyncProperty(exchange, async (x) => {
    expectDispatchTaxonomy(x, await dispatch(x));
  });
}

describe("fuzz: destination responses through the adapter", () => {
  it("dispatch: never throws; OK/FAILED only when the wire said so; unknown is LOST/TIMEOUT", async () => {
    await fc.assert(
      dispatchProperty((x) => adapterAnswering(x).dispatch(ORDER, 1_000)),
      { numRuns: RUNS },
    );
  });

  it("status queries: never throw; ABSENT only on the destination's authoritative none", async () => {
    await fc.assert(
      fc.asyncProperty(exchange, fc.boolean(), async (x, byRef) => {
        const r = await adapterAnswering(x).statusQuery(
          byRef ? { kind: "destination_ref", value: "dest_1" } : { kind: "client_ref", value: OP },
          1_000,
        );
        expect(["PRESENT", "ABSENT", "INDETERMINATE"]).toContain(r.result);
        if (r.result === "ABSENT") {
          expect(x.kind).toBe("response");
          if (x.kind !== "response") return;
          if (byRef) expect([x.status, codeOf(x)]).toEqual([404, "resource_missing"]);
          else expect([x.status, x.bodyText]).toEqual([200, JSON.stringify({ matches: [] })]);
        }
        if (r.result === "PRESENT") expect(r.nFound).toBeGreaterThanOrEqual(1);
        expect(normaliseStatusResult(r).result).toBe(r.result);
      }),
      { numRuns: RUNS },
    );
  });

  it("at the engine boundary (callDispatch/callStatusQuery) every answer, gap included, keeps the taxonomy", async () => {
    await fc.assert(
      fc.asyncProperty(exchange, async (x) => {
        const adapter = adapterAnswering(x);
        const wire = await callDispatch(adapter, ORDER, 1_000);
        expectDispatchTaxonomy(x, { ...wire, evidence: wire.evidence });
        const probe = await callStatusQuery(adapter, { kind: "client_ref", value: OP }, 1_000);
        if (probe.result === "ABSENT") expect(x.kind === "response" && x.status === 200).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("the engine's guard turns any adapter answer into a well-formed outcome", () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withNullPrototype: true }), (raw) => {
        const d = normaliseDispatchResult(raw);
        expect(["OK", "FAILED", "TIMEOUT", "LOST"]).toContain(d.transportOutcome);
        if (d.transportOutcome === "FAILED")
          expect(["TERMINAL", "RETRYABLE"]).toContain(d.failureKind);
        const s = normaliseStatusResult(raw);
        if (s.result === "ABSENT") expect(s.nFound).toBe(0);
        if (s.result === "PRESENT") expect(s.nFound).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: RUNS },
    );
  });

  it("control: an adapter that trusts the body is caught by the same property", async () => {
    const naive: Dispatcher = (x) => {
      if (x.kind !== "response") return Promise.resolve({ transportOutcome: "LOST", evidence: {} });
      const body = JSON.parse(x.bodyText ?? "") as { destination_ref: string };
      return Promise.resolve(
        x.status < 500
          ? { transportOutcome: "OK", destinationRef: body.destination_ref, evidence: {} }
          : { transportOutcome: "FAILED", failureKind: "RETRYABLE", evidence: {} },
      );
    };
    const outcome = await fc.check(dispatchProperty(naive), { numRuns: RUNS });
    expect(outcome.failed).toBe(true);
  });
});

describe("hostile bytes over real sockets (node:http transport)", () => {
  let server: Server;
  let baseUrl = "";
  const answers: Record<string, (res: ServerResponse) => void> = {
    "bad-utf8": (res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    },
    truncated: (res) => {
      res.writeHead(201, { "content-type": "application/json", "content-length": "500" });
      res.write(JSON.stringify(VIEW).slice(0, 40));
      setTimeout(() => res.socket?.destroy(), 20);
    },
    huge: (res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(HUGE);
    },
    deep: (res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(DEEP);
    },
    nan: (res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end('{"destination_ref": NaN}');
    },
    reset: (res) => res.socket?.resetAndDestroy(),
  };
  let mode = "";

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => answers[mode]?.(res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const name of Object.keys(answers)) {
    it(`${name}: LOST, never OK, never a throw`, async () => {
      mode = name;
      const adapter = new RefdestAdapter({ baseUrl, declaration: refdestDeclaration("C2") });
      const r = await adapter.dispatch(ORDER, 2_000);
      expect(r.transportOutcome).toBe("LOST");
      const q = await adapter.statusQuery({ kind: "client_ref", value: OP }, 2_000);
      expect(q.result).toBe("INDETERMINATE");
    });
  }
});
