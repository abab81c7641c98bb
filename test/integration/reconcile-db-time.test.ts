/**
 * The time base of absence decisions is the DATABASE clock (reference §6, D2, D3): the lag is
 * measured from `claimed_at`, which the database stamped, so "now" must come from the same
 * clock. A host whose clock runs 2 h ahead of the database (its Date is faked forward; the
 * engine uses the default system clock) must not count an ABSENT read as past a 1 h lag. The
 * injectable `clock` is only a test offset: moving a manual clock forward still moves every
 * decision forward. On PGlite the embedded database shares the host clock, so a skewed host
 * cannot arise there; the before/after difference shows on Postgres.
 */
import { afterEach, expect, it, vi } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport } from "../../src/refdest/index.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

const HOUR_MS = 3_600_000;
const LAG_SECONDS = 3_600;

/** An engine on the fixture's ledger and destination with the DEFAULT (system) clock. */
function openSystemClockEngine(f: EngineFixture): Promise<Irrevon> {
  return openIrrevon({
    database: f.ledger.app,
    adapters: [
      new RefdestAdapter({
        baseUrl: "http://127.0.0.1:4100",
        declaration: refdestDeclaration("C2", { lagSeconds: LAG_SECONDS }),
        transport: createInProcessTransport(f.refdest),
      }),
    ],
    config: {
      rereadGapSeconds: 0,
      dispatchDeadlineMs: 2_000,
      probeDeadlineMs: 2_000,
      leaseTtlMs: 60_000,
    },
    workerId: "skewed-host",
    crashPoints: NO_CRASH_POINTS,
  });
}

describeEachBackend("reconcile: database time base", (backend) => {
  let f: EngineFixture;
  let engine: Irrevon | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await engine?.close();
    engine = undefined;
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("a host clock 2 h ahead of the database does not count an ABSENT read as past a 1 h lag", async () => {
    const stampedAt = new Date().toISOString(); // real time: the authority is not from the future
    // From here on this host's clock reads 2 h ahead (PGlite runs on it too; Postgres does not).
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 2 * HOUR_MS });
    f = await openEngineFixture(backend, { lagSeconds: LAG_SECONDS });
    engine = await openSystemClockEngine(f);

    const { effectId } = await engine.register(
      orderContract({ adapter_id: f.adapterId, stamped_at: stampedAt }),
    );
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
    expect(await engine.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    const out = await engine.reconcile(effectId);
    expect(out.status).toBe("awaiting_lag");
    expect(await engine.status(effectId)).toMatchObject({
      lifecycle: "AMBIGUOUS",
      classification: "UNRECONCILED",
    });
    // The schedule the probe recorded is database time: an hour after the commit horizon the
    // receipt stamped (the call's deadline after the claim), never host time.
    const claim = await f.ledger.app.query<{ ms: number | string; horizon: string }>(
      `SELECT (extract(epoch FROM a.claimed_at) * 1000)::float8 AS ms, r.evidence->>'commit_horizon_at' AS horizon
         FROM dispatch_attempts a JOIN dispatch_receipts r USING (attempt_id)`,
    );
    const claimedMs = Number(claim.rows[0]?.ms);
    const horizonMs = Date.parse(claim.rows[0]?.horizon ?? "");
    expect(Number.isFinite(claimedMs)).toBe(true);
    // Not before the claim, and nowhere near the host's 2 h lead. (PGlite reads the faked host
    // Date here, which does not run, so the horizon's distance to the claim is not asserted.)
    expect(horizonMs - claimedMs).toBeGreaterThanOrEqual(0);
    expect(horizonMs - claimedMs).toBeLessThan(60_000);
    if (out.status === "awaiting_lag")
      expect(Date.parse(out.notBefore) - (horizonMs + LAG_SECONDS * 1000)).toBe(0);
  });

  it("the clock option is a test offset: moving a manual clock past the lag lets the absence count", async () => {
    f = await openEngineFixture(backend, {
      lagSeconds: LAG_SECONDS,
      config: { rereadGapSeconds: 0 },
    });
    const { effectId } = await f.irrevon.register(orderContract({ adapter_id: f.adapterId }));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
    await f.irrevon.dispatch(effectId);
    expect((await f.irrevon.reconcile(effectId)).status).toBe("awaiting_lag");
    f.clock.advance(LAG_SECONDS * 1000 + 60_000);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "failed",
      cause: "reconciled_absent",
    });
  });

  it("a PRESENT probe's time is engine time read by the settle itself: the database clock plus the offset", async () => {
    f = await openEngineFixture(backend); // no visibility lag: the order shows at once
    const { effectId } = await f.irrevon.register(orderContract({ adapter_id: f.adapterId }));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    f.clock.advance(HOUR_MS);
    const dbNow = async (): Promise<number> => {
      const { rows } = await f.ledger.app.query<{ ms: number | string }>(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms",
      );
      return Number(rows[0]?.ms);
    };
    const before = await dbNow();
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      cause: "reconciled_present",
    });
    const after = await dbNow();
    const { rows } = await f.ledger.app.query<{ ms: number | string; result: string }>(
      `SELECT (extract(epoch FROM p.queried_at) * 1000)::float8 AS ms, p.result FROM status_probes p
         JOIN effect_executions x ON x.execution_id = p.execution_id WHERE x.effect_id = $1`,
      [effectId],
    );
    expect(rows.map((r) => r.result)).toEqual(["PRESENT"]);
    const queriedMs = Number(rows[0]?.ms);
    // The settle's clock, an hour on (the manual clock's offset), to the millisecond.
    expect(queriedMs).toBeGreaterThanOrEqual(Math.floor(before) + HOUR_MS);
    expect(queriedMs).toBeLessThanOrEqual(after + HOUR_MS);
    expect(queriedMs % 1).toBe(0);
  });
});
