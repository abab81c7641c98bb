/**
 * The audit of a COMMITTED effect counts the destination's read lag from when its call ended —
 * the commit happened by then — not from the claim (docs/engine.md, "Audits"), on both
 * backends. A destination with a declared 60 s read lag whose create takes 50 s (test clock)
 * and commits at its end: an audit 65 s after the claim is only 15 s after the commit, so an
 * ABSENT answer there is the lag, not a vanished order (before the fix: a CONTRADICTED
 * `committed_then_vanished` finding on an order that exists). Once 60 s have passed since the
 * call ended, an order that really is gone is reported. An answer is dated when the destination
 * was asked, not when it answered: a read made inside the lag that answers after it proves
 * nothing (before: a false finding on an order that exists); reconcile does not count such a
 * read toward a LOST either.
 */
import { afterEach, expect, it } from "vitest";
import type { Adapter, DispatchOrder, QueryKey } from "../../src/adapters/contract.js";
import { manualClock, type ManualClock } from "../../src/engine/clock.js";
import type { EngineConfig } from "../../src/engine/config.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { stubAdapter } from "../support/stub-adapter.js";
import { orderContract } from "./engine-support.js";

const LAG_S = 60;
const CALL_MS = 50_000;

/**
 * Reads see an order LAG_S after its commit; `vanish()` deletes every order. A status call
 * reads the destination's state when it starts and answers `answerAfterMs` later.
 */
function laggingDestination(
  clock: ManualClock,
  answerAfterMs = 0,
): { adapter: Adapter; vanish: () => void } {
  let orders: { ref: string; clientRef: string; committedAtMs: number }[] = [];
  const adapter = stubAdapter(
    "lagging-c2",
    {
      async dispatch(order: DispatchOrder) {
        clock.advance(CALL_MS); // the call takes 50 s; the order commits at its end
        const ref = `ord_${orders.length + 1}`;
        orders.push({ ref, clientRef: order.clientRef, committedAtMs: clock.now().getTime() });
        return { transportOutcome: "OK", destinationRef: ref, evidence: {} };
      },
      async statusQuery(key: QueryKey) {
        const now = clock.now().getTime();
        const visible = orders.filter(
          (o) =>
            now >= o.committedAtMs + LAG_S * 1000 &&
            (key.kind === "destination_ref" ? o.ref : o.clientRef) === key.value,
        );
        clock.advance(answerAfterMs);
        return visible.length > 0
          ? {
              result: "PRESENT",
              nFound: visible.length,
              destinationRefs: visible.map((o) => o.ref),
              evidence: {},
            }
          : { result: "ABSENT", nFound: 0, destinationRefs: [], evidence: {} };
      },
    },
    { consistency: { status_settlement_lag: `PT${LAG_S}S`, listing_lag: `PT${LAG_S}S` } },
  );
  return { adapter, vanish: () => (orders = []) };
}

/** An engine on `adapter` under the test clock: 2 s calls, 10 s status calls, a long lease. */
function openEngine(
  ledger: TestLedger,
  adapter: Adapter,
  clock: ManualClock,
  config: Partial<EngineConfig> = {},
): Promise<Irrevon> {
  return openIrrevon({
    database: ledger.app,
    adapters: [adapter],
    clock,
    config: { dispatchDeadlineMs: 2_000, probeDeadlineMs: 10_000, leaseTtlMs: 600_000, ...config },
    workerId: "worker-audit-lag",
    crashPoints: NO_CRASH_POINTS,
  });
}

describeEachBackend("audit: read lag from the end of the call", (backend) => {
  let ledger: TestLedger | undefined;
  let engine: Irrevon | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    if (ledger !== undefined) await expectAuditClean(ledger);
    await ledger?.close();
    ledger = undefined;
  });

  it("an ABSENT answer within the lag after a long call's commit is inconclusive; after it, a vanished order is reported", async () => {
    ledger = await openTestLedger(backend);
    const clock = manualClock();
    const destination = laggingDestination(clock);
    engine = await openEngine(ledger, destination.adapter, clock, { probeDeadlineMs: 2_000 });
    const { effectId } = await engine.register(orderContract({ adapter_id: "lagging-c2" }));
    expect(await engine.dispatch(effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });

    clock.advance(15_000); // 65 s after the claim, 15 s after the commit
    expect(await engine.audit(effectId)).toMatchObject({
      status: "inconclusive",
      reason: "lag_not_elapsed",
    });
    const findings = await ledger.app.query(
      "SELECT finding_id FROM findings WHERE effect_id = $1",
      [effectId],
    );
    expect(findings.rows).toEqual([]);

    clock.advance(46_000); // 61 s after the commit: reads have caught up
    destination.vanish();
    expect(await engine.audit(effectId)).toMatchObject({
      status: "finding",
      classification: "CONTRADICTED",
      direction: "committed_then_vanished",
    });
  });

  it("an answer is dated when it was asked: a read made inside the lag that answers after it is inconclusive", async () => {
    ledger = await openTestLedger(backend);
    const clock = manualClock();
    const destination = laggingDestination(clock, 8_000);
    engine = await openEngine(ledger, destination.adapter, clock);
    const { effectId } = await engine.register(orderContract({ adapter_id: "lagging-c2" }));
    expect(await engine.dispatch(effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
    // The destination reads 55 s after the commit (inside the 60 s lag) and answers ABSENT
    // 8 s later, 63 s after it: the read is what counts, so nothing is concluded.
    clock.advance(55_000);
    expect(await engine.audit(effectId)).toMatchObject({
      status: "inconclusive",
      reason: "lag_not_elapsed",
    });
    const findings = await ledger.app.query(
      "SELECT finding_id FROM findings WHERE effect_id = $1",
      [effectId],
    );
    expect(findings.rows).toEqual([]);
  });

  it("reconcile dates an ABSENT answer when it was asked: asked before counts_from, it does not count", async () => {
    ledger = await openTestLedger(backend);
    const clock = manualClock();
    // A create whose outcome is unknown (TIMEOUT, nothing committed); reads answer 8 s late.
    const destination = laggingDestination(clock, 8_000);
    const unknown = {
      ...destination.adapter,
      dispatch: async () => ({ transportOutcome: "TIMEOUT" as const, evidence: {} }),
    } as unknown as Adapter;
    engine = await openEngine(ledger, unknown, clock, { rereadGapSeconds: 0 });
    const { effectId } = await engine.register(orderContract({ adapter_id: "lagging-c2" }));
    expect(await engine.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    // counts_from = the call's horizon (its 2 s deadline) + the 60 s lag. Asked 5 s before it,
    // answered 3 s after it: the read is inside the lag, so the absence is not yet counted.
    clock.advance(2_000 + LAG_S * 1_000 - 5_000);
    const outcome = await engine.reconcile(effectId);
    expect(outcome.status).not.toBe("failed");
    expect(outcome).toMatchObject({ status: "awaiting_lag" });
  });
});
