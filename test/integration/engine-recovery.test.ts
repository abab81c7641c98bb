/**
 * Recovery and worker leases (D2, D8) on both backends: an open attempt whose owner's lease
 * is live is left alone (in flight, no query); once that lease has expired it is closed as
 * LOST (AMBIGUOUS, recorded by recovery, evidence names the lease) and reconciled before any
 * new dispatch; the fence refuses a claim or receipt under a lease that is no longer live;
 * a lease that ran out is never renewed.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { claimDispatch } from "../../src/ledger/claim-dispatch.js";
import { recordOutcome } from "../../src/ledger/record-outcome.js";
import { registerWorker, renewWorker } from "../../src/ledger/worker-leases.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachBackend("engine: recovery and leases", (backend) => {
  let f: EngineFixture;
  beforeEach(async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
  });
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("a live owner's open attempt is in flight; after its lease expires recovery closes it as LOST and reconciles", async () => {
    const { effectId } = await f.irrevon.register(orderContract());
    const lease = await registerWorker(f.ledger.app, "worker-gone", 3_000);
    const claim = await claimDispatch(f.ledger.app, { effectId, lease });
    expect(claim.status).toBe("claimed");

    const live = await f.irrevon.recover();
    expect(live).toMatchObject({ scanned: 1, inFlight: 1, closedAttempts: 0, adjudicated: 0 });
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({ status: "in_flight" });
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "pending_reconciliation",
      frontier: "DISPATCHED",
    });
    expect(f.refdest.requestLog()).toHaveLength(0);

    await sleep(3_200);
    const expired = await f.irrevon.recover();
    expect(expired).toMatchObject({ scanned: 1, closedAttempts: 1, adjudicated: 1 });
    const receipt = await f.ledger.app.query<{
      transport_outcome: string;
      recorded_by: string;
      evidence: Record<string, unknown>;
    }>("SELECT transport_outcome, recorded_by, evidence FROM dispatch_receipts");
    expect(receipt.rows[0]).toMatchObject({ transport_outcome: "LOST", recorded_by: "recovery" });
    expect(receipt.rows[0]?.evidence).toMatchObject({
      owner_worker_id: "worker-gone",
      lease_state: "expired",
    });
    // Nothing was ever sent, so two ABSENT reads settle it as LOST; no create happened.
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_FAILED",
      classification: "LOST",
    });
    expect(f.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(0);
    expect(destinationEffects(f.refdest)).toBe(0);
  });

  it("online reconcile frees an attempt whose owner's lease expired (D8), without waiting for a restart", async () => {
    const { effectId } = await f.irrevon.register(orderContract());
    const lease = await registerWorker(f.ledger.app, "worker-crashed", 500);
    await claimDispatch(f.ledger.app, { effectId, lease });
    await sleep(700);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "failed",
      cause: "reconciled_absent",
    });
  });

  it("the fence refuses a claim and a receipt under a lease that is no longer live; an expired lease is never renewed", async () => {
    const a = await f.irrevon.register(orderContract());
    const lease = await registerWorker(f.ledger.app, "worker-slow", 500);
    const claim = await claimDispatch(f.ledger.app, { effectId: a.effectId, lease });
    if (claim.status !== "claimed") throw new Error("expected a claim");
    await sleep(700);
    await expect(renewWorker(f.ledger.app, lease, 60_000)).rejects.toMatchObject({
      code: "lease_lost",
    });
    const late = await recordOutcome(f.ledger.app, {
      attemptId: claim.attemptId,
      executionId: claim.executionId,
      transportOutcome: "OK",
      evidence: {},
      recordedBy: "dispatcher",
      lease,
    });
    expect(late).toMatchObject({ status: "late", reason: "fenced" });

    const b = await f.irrevon.register(orderContract({ scope: "acme-store/other" }));
    await expect(
      claimDispatch(f.ledger.app, { effectId: b.effectId, lease }),
    ).rejects.toMatchObject({ code: "lease_lost" });
    const attempts = await f.ledger.app.query("SELECT 1 FROM dispatch_attempts");
    expect(attempts.rows).toHaveLength(1);

    // The fenced OK was kept as a late response; recovery adjudicates from the destination.
    expect(await f.irrevon.recover()).toMatchObject({ closedAttempts: 1 });
  });

  it("a worker re-registering over its own live lease supersedes it at once", async () => {
    const { effectId } = await f.irrevon.register(orderContract());
    const old = await registerWorker(f.ledger.app, "worker-restarted", 60_000);
    await claimDispatch(f.ledger.app, { effectId, lease: old });
    expect(await f.irrevon.recover()).toMatchObject({ inFlight: 1 });
    const fresh = await registerWorker(f.ledger.app, "worker-restarted", 60_000, old.fencingToken);
    expect(fresh.fencingToken).toBeGreaterThan(old.fencingToken);
    // Closed at once; its absence counts only once the superseded lease's cover has ended
    // (the old token may have sent the call, and the destination may commit it until then).
    expect(await f.irrevon.recover()).toMatchObject({
      closedAttempts: 1,
      adjudicated: 0,
      parked: 1,
    });
    const ev = await f.ledger.app.query<{ evidence: Record<string, unknown> }>(
      "SELECT evidence FROM dispatch_receipts",
    );
    expect(ev.rows[0]?.evidence).toMatchObject({ lease_state: "superseded" });
    const coverEnd = Date.parse(String(ev.rows[0]?.evidence["lease_cover_end"]));
    expect(coverEnd).toBeGreaterThan(Date.now() + 55_000);
    f.clock.advance(61_000);
    expect(await f.irrevon.recover()).toMatchObject({ closedAttempts: 0, adjudicated: 1 });
  });
});
