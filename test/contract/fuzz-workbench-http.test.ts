/**
 * Hostile requests against the read-only workbench (the Hono app, no socket) over a real
 * ledger holding a few effects: arbitrary methods, hosts, paths and query strings (filters,
 * cursors, limits, ids that almost match). Every answer carries the security headers; an API
 * error is the JSON envelope with a code from the workbench's closed set and never `internal`;
 * a refused method is 405 and a foreign Host 421 before anything is read; nothing is written
 * (row counts unchanged). Control: a handler that echoes its parameters unchecked is caught.
 */
import fc from "fast-check";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import type { Db } from "../../src/db/db.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { WorkbenchErrorCode } from "../../src/workbench/http-errors.js";
import { createWorkbenchApp } from "../../src/workbench/app.js";
import { openTestLedger, type TestLedger } from "../support/databases.js";
import { intent } from "../support/history/intents.js";

const RUNS = process.env["IRREVON_PROOF_SCALE"] === "full" ? 3_000 : 300;
const PORT = 5180;
const CODES = new Set<string>(Object.values(WorkbenchErrorCode));

interface Probe {
  readonly method: string;
  readonly path: string;
  readonly host: string;
}

const junk = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    "",
    "-1",
    "0",
    "1e3",
    "999999999999",
    "NaN",
    "%00",
    "%FF",
    "..%2F..",
    "'; DROP TABLE x;--",
  ),
);
const param = fc
  .tuple(
    fc.constantFrom(
      "scope",
      "lifecycle",
      "classification",
      "effect_type",
      "effect_class",
      "from",
      "to",
      "limit",
      "cursor",
      "resolution_status",
      "subject_effect_id",
      "adapter",
      "destination_ref",
      "x",
    ),
    junk,
  )
  .map(([k, v]) => `${k}=${encodeURIComponent(v)}`);

const probe: fc.Arbitrary<Probe> = fc.record({
  method: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"),
  path: fc
    .tuple(
      fc.oneof(
        fc.constantFrom(
          "/",
          "/effects",
          "/findings",
          "/adapters",
          "/assets/app.css",
          "/api/v1/effects",
          "/api/v1/findings",
          "/api/v1/adapters",
          "/api/v1/bench-runs",
          "/api/v1/health",
          `/api/v1/effects/${"a".repeat(64)}`,
          `/api/v1/effects/${"a".repeat(63)}G`,
          `/api/v1/effects/${"a".repeat(64)}/inspect`,
          "/api/v1/nope",
          "/../etc/passwd",
          "/effects/%2e%2e",
        ),
        fc.webPath(),
      ),
      fc.array(param, { maxLength: 4 }),
    )
    .map(([p, q]) => (q.length === 0 ? p : `${p}?${q.join("&")}`)),
  host: fc.constantFrom(
    `127.0.0.1:${PORT}`,
    `localhost:${PORT}`,
    `127.0.0.1:${PORT}`,
    "evil.example",
    `127.0.0.1:${PORT + 1}`,
  ),
});

type Handle = (p: Probe) => Promise<Response>;

async function rowCounts(db: Db): Promise<string> {
  const { rows } = await db.query(
    "SELECT (SELECT count(*) FROM effect_records) AS r, (SELECT count(*) FROM effect_transitions) AS t, (SELECT count(*) FROM findings) AS f",
  );
  return JSON.stringify(rows[0]);
}

function surfaceProperty(handle: Handle, db: Db): fc.IAsyncPropertyWithHooks<[Probe]> {
  return fc.asyncProperty(probe, async (p) => {
    const before = await rowCounts(db);
    const res = await handle(p);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    if (!["GET", "HEAD"].includes(p.method)) expect(res.status).toBe(405);
    else if (!p.host.endsWith(`:${PORT}`) || p.host === "evil.example")
      expect(res.status).toBe(421);
    expect(res.status).not.toBe(500);
    const type = res.headers.get("content-type") ?? "";
    if (res.status >= 400 && type.startsWith("application/json") && p.method !== "HEAD") {
      const body = (await res.json()) as { error?: { code?: string } };
      expect(CODES.has(String(body.error?.code))).toBe(true);
    }
    expect(await rowCounts(db)).toBe(before);
  });
}

describe("fuzz: the workbench HTTP surface", () => {
  let ledger: TestLedger;
  let app: Hono;

  beforeAll(async () => {
    ledger = await openTestLedger("pglite");
    const refdest = createRefdest({ tier: "C2", seed: 3 });
    const engine = await openIrrevon({
      database: ledger.app,
      adapters: [
        new RefdestAdapter({
          baseUrl: "http://127.0.0.1:9",
          declaration: refdestDeclaration("C2"),
          transport: createInProcessTransport(refdest),
        }),
      ],
    });
    for (const n of ["1", "2", "3"]) {
      const x = intent(`wb-${n}`);
      await engine.register(x.contract);
      await engine.dispatch(x.effectId);
    }
    await engine.close();
    app = createWorkbenchApp({ db: ledger.read, port: PORT }) as unknown as Hono;
  });
  afterAll(async () => {
    await ledger?.close();
  });

  const viaApp: Handle = (p) =>
    Promise.resolve(app.request(p.path, { method: p.method, headers: { host: p.host } }));

  it("every request is answered within the closed set of codes, headers on, nothing written", async () => {
    await fc.assert(surfaceProperty(viaApp, ledger.superuser), { numRuns: RUNS });
  });

  it("control: an unguarded handler is caught by the same property", async () => {
    const naive = new Hono();
    naive.all("*", (c) =>
      c.json({ echo: c.req.query() }, c.req.query("limit") === "-1" ? 500 : 200),
    );
    const handle: Handle = (p) =>
      Promise.resolve(naive.request(p.path, { method: p.method, headers: { host: p.host } }));
    const outcome = await fc.check(surfaceProperty(handle, ledger.superuser), { numRuns: RUNS });
    expect(outcome.failed).toBe(true);
  });
});
