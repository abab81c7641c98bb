/**
 * An attempt abandoned while its call may still run (docs/engine.md, "The absence rule", 1), on
 * both backends. Engine A sends a create the destination works on for 800 ms and commits at its
 * end; 150 ms in, A is closed (its lease released while the call is in flight). Engine B's
 * reconcile closes the open attempt as LOST. The destination can still commit the call until
 * A's lease would have run out, so B's ABSENT answers must not count (before the fix: the
 * absence clock started at B's receipt, two ABSENT reads 0 s apart confirmed a LOST, and a
 * re-dispatch created a second order). B probes again once the cover has ended and finds the
 * order the call committed: COMMITTED, one order.
 */
import { afterEach, expect, it } from "vitest";
import type { Adapter, DispatchOrder, QueryKey } from "../../src/adapters/contract.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { stubAdapter } from "../support/stub-adapter.js";
import { orderContract } from "./engine-support.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A C2 destination whose creates take `workMs` and commit at their end. */
function slowDestination(workMs: number): { adapter: Adapter; orders: () => number } {
  const orders: { ref: string; clientRef: string; stableIds: Readonly<Record<string, string>> }[] =
    [];
  const adapter = stubAdapter("slow-c2", {
    async dispatch(order: DispatchOrder) {
      await sleep(workMs);
      const ref = `ord_${orders.length + 1}`;
      orders.push({ ref, clientRef: order.clientRef, stableIds: order.stableIds });
      return { transportOutcome: "OK", destinationRef: ref, evidence: {} };
    },
    async statusQuery(key: QueryKey) {
      const hits = orders.filter((o) =>
        key.kind === "client_ref"
          ? o.clientRef === key.value
          : key.kind === "destination_ref"
            ? o.ref === key.value
            : o.stableIds[key.name] === key.value,
      );
      return hits.length > 0
        ? {
            result: "PRESENT",
            nFound: hits.length,
            destinationRefs: hits.map((h) => h.ref),
            evidence: {},
          }
        : { result: "ABSENT", nFound: 0, destinationRefs: [], evidence: {} };
    },
  });
  return { adapter, orders: () => orders.length };
}

/** The shortest lease these deadlines allow (2 × 1 s + 1 s). */
const CONFIG = {
  dispatchDeadlineMs: 1_000,
  probeDeadlineMs: 1_000,
  leaseTtlMs: 3_000,
  rereadGapSeconds: 0,
};

describeEachBackend("an attempt abandoned while its call may still run", (backend) => {
  let ledger: TestLedger | undefined;
  const engines: Irrevon[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close().catch(() => undefined);
    if (ledger !== undefined) await expectAuditClean(ledger);
    await ledger?.close();
    ledger = undefined;
  });

  it("a lease released mid-call: absence waits for the lease's cover, the commit is found, one order", async () => {
    ledger = await openTestLedger(backend);
    const destination = slowDestination(800);
    const open = async (workerId: string): Promise<Irrevon> => {
      const engine = await openIrrevon({
        database: (ledger as TestLedger).app,
        adapters: [destination.adapter],
        config: CONFIG,
        workerId,
        crashPoints: NO_CRASH_POINTS,
      });
      engines.push(engine);
      return engine;
    };
    const a = await open("worker-a");
    const b = await open("worker-b");
    const { effectId } = await a.register(orderContract({ adapter_id: "slow-c2" }));

    const inFlight = a.dispatch(effectId).then(
      (outcome) => outcome,
      (e: unknown) => e,
    );
    await sleep(150);
    await a.close(); // the lease is released; the call is still running

    const first = await b.reconcile(effectId);
    expect(first.status).not.toBe("failed");
    expect(first).toMatchObject({ status: "awaiting_lag" });
    expect(destination.orders()).toBe(0);
    const { rows } = await ledger.app.query<{ evidence: Record<string, unknown> }>(
      `SELECT d.evidence FROM dispatch_receipts d JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
        JOIN effect_executions x ON x.execution_id = a.execution_id WHERE x.effect_id = $1`,
      [effectId],
    );
    expect(rows[0]?.evidence).toMatchObject({
      recovery: "abandoned open attempt",
      lease_state: "released",
    });
    expect(typeof rows[0]?.evidence["commit_horizon_at"]).toBe("string");

    await inFlight; // the destination committed at the end of the call
    expect(destination.orders()).toBe(1);
    // The absence clock starts where A's lease cover ends; B probes from then on.
    const notBefore = Date.parse(String((first as { notBefore?: string }).notBefore));
    expect(notBefore).toBeGreaterThan(Date.now());
    await sleep(notBefore - Date.now() + 50);
    const second = await b.reconcile(effectId);
    expect(second).toMatchObject({ status: "committed", cause: "reconciled_present" });
    const frontier = await ledger.app.query<{ frontier: string }>(
      "SELECT frontier FROM execution_frontiers WHERE effect_id = $1 ORDER BY step DESC LIMIT 1",
      [effectId],
    );
    expect(frontier.rows).toEqual([{ frontier: "SETTLED_COMMITTED" }]);
    expect(destination.orders()).toBe(1);
  });
});
