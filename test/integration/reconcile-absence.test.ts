/**
 * Confirmed absence and parking (reference §6; D3, D7, D9) on both backends, with an
 * injected clock — nothing here waits. Two ABSENT reads a re-read gap apart: the first call
 * returns at once and the second probe happens only once due. On a lagging destination an
 * early ABSENT never settles anything. INDETERMINATE parks with backoff and escalates after
 * the budget. No covering key ⇒ park + escalate. C3 ⇒ park + escalate, never query. No
 * declared lag ⇒ LOST goes to a human and is never re-dispatched automatically.
 */
import { afterEach, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

async function probeCount(f: EngineFixture): Promise<number> {
  const { rows } = await f.ledger.app.query<{ n: string | number }>(
    "SELECT count(*) AS n FROM status_probes",
  );
  return Number(rows[0]?.n);
}

async function escalations(f: EngineFixture): Promise<string[]> {
  const { rows } = await f.ledger.app.query<{ reason: string }>(
    "SELECT reason FROM execution_escalations ORDER BY escalation_id",
  );
  return rows.map((r) => r.reason);
}

async function lostDispatch(
  f: EngineFixture,
  fault: "DROP_RESPONSE_BEFORE_COMMIT" | "DROP_RESPONSE_AFTER_COMMIT",
  contract = orderContract(),
): Promise<string> {
  const { effectId } = await f.irrevon.register(contract);
  f.refdest.schedule([{ fault, match: { op: "create" } }]);
  expect(await f.irrevon.dispatch(effectId)).toMatchObject({
    status: "dispatched",
    lifecycle: "AMBIGUOUS",
  });
  // A dropped connection does not end the server's work: absence counts only from the call's
  // deadline (the fixture's 2 s), so move past it.
  f.clock.advance(2_000);
  return effectId;
}

describeEachBackend("reconcile: absence and parking", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("two ABSENT reads a 60 s gap apart: the first call returns at once, the second probe only once due", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 60 } });
    const effectId = await lostDispatch(f, "DROP_RESPONSE_BEFORE_COMMIT");
    const started = Date.now();
    const first = await f.irrevon.reconcile(effectId);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(first.status).toBe("reread_scheduled");
    expect(await probeCount(f)).toBe(1);

    // Database time runs underneath the manual clock (engine-time), so "not yet due" is checked
    // with 10 s of slack for a loaded machine, and "due" with 1 s past the gap.
    f.clock.advance(50_000);
    const early = await f.irrevon.reconcile(effectId);
    expect(early.status).toBe("reread_scheduled");
    expect(await probeCount(f)).toBe(1); // not due: no query at all

    f.clock.advance(11_000);
    const second = await f.irrevon.reconcile(effectId);
    expect(second).toMatchObject({
      status: "failed",
      cause: "reconciled_absent",
      escalated: false,
    });
    if (second.status === "failed") expect(second.probeIds).toHaveLength(2);
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_FAILED",
      classification: "LOST",
      resolution: "OPEN",
    });
    expect(destinationEffects(f.refdest)).toBe(0);
  });

  it("on a destination with read lag an early ABSENT never settles anything", async () => {
    f = await openEngineFixture(backend, { lagSeconds: 30, config: { rereadGapSeconds: 0 } });
    const effectId = await lostDispatch(
      f,
      "DROP_RESPONSE_AFTER_COMMIT",
      orderContract({ adapter_id: f.adapterId }),
    );
    const early = await f.irrevon.reconcile(effectId);
    expect(early.status).toBe("awaiting_lag");
    expect((await f.irrevon.status(effectId)).lifecycle).toBe("AMBIGUOUS");
    const probes = await probeCount(f);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "awaiting_lag",
      probeId: null,
    });
    expect(await probeCount(f)).toBe(probes);

    f.clock.advance(31_000);
    f.refdest.advanceClock(31);
    const later = await f.irrevon.reconcile(effectId);
    expect(later).toMatchObject({ status: "committed", classification: "CONFIRMED_UNIQUE" });
    expect(destinationEffects(f.refdest)).toBe(1);
  });

  it("INDETERMINATE parks with exponential backoff, escalates after the budget, and settles once the destination answers", async () => {
    f = await openEngineFixture(backend, {
      config: { rereadGapSeconds: 0, backoffBaseSeconds: 30, escalationBudget: 3 },
    });
    const effectId = await lostDispatch(f, "DROP_RESPONSE_AFTER_COMMIT");
    f.refdest.schedule([{ fault: "THROTTLE_429", match: { op: "query" }, once: false }]);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "parked",
      reason: "indeterminate",
      escalated: false,
    });
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "parked",
      reason: "backoff",
    });
    expect(await probeCount(f)).toBe(1);
    f.clock.advance(31_000);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "parked",
      reason: "indeterminate",
      escalated: false,
    });
    f.clock.advance(50_000); // 10 s of slack: database time runs underneath
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "parked",
      reason: "backoff",
    });
    f.clock.advance(11_000);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "parked",
      reason: "indeterminate",
      escalated: true,
    });
    expect(await escalations(f)).toEqual(["indeterminate_budget"]);
    const probes = await f.ledger.app.query<{ result: string; evidence: Record<string, unknown> }>(
      "SELECT result, evidence FROM status_probes ORDER BY probe_id",
    );
    expect(probes.rows.map((p) => [p.result, p.evidence["consecutive_indeterminate"]])).toEqual([
      ["INDETERMINATE", 1],
      ["INDETERMINATE", 2],
      ["INDETERMINATE", 3],
    ]);
    expect((await f.irrevon.status(effectId)).lifecycle).toBe("AMBIGUOUS");

    f.refdest.schedule([], { replace: true });
    f.clock.advance(121_000);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      classification: "CONFIRMED_UNIQUE",
    });
  });

  it("no covering key ⇒ park and escalate, never a query", async () => {
    const base = refdestDeclaration("C2");
    f = await openEngineFixture(backend, {
      declaration: { ...base, queryable: { supported: true, by: ["destination_ref"] } },
    });
    const effectId = await lostDispatch(f, "DROP_RESPONSE_AFTER_COMMIT");
    const before = f.refdest.requestLog().length;
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "parked",
      reason: "no_covering_key",
      escalated: true,
    });
    expect(f.refdest.requestLog().length).toBe(before);
    expect(await escalations(f)).toEqual(["no_covering_key"]);
  });

  it("C3 ⇒ park and escalate without querying; a human settles it citing the decision", async () => {
    f = await openEngineFixture(backend, { tier: "C3" });
    const { effectId } = await f.irrevon.register(orderContract({ adapter_id: "refdest-c3" }));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "notify" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    const before = f.refdest.requestLog().length;
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "parked",
      reason: "opaque_destination",
      escalated: true,
    });
    expect(f.refdest.requestLog().length).toBe(before);
    await expect(
      f.irrevon.settleManually(effectId, { committed: true, decidedBy: "", note: "" }),
    ).rejects.toMatchObject({ code: "resolution_invalid" });
    await f.irrevon.settleManually(effectId, {
      committed: true,
      decidedBy: "ops@acme",
      note: "customer confirmed the message",
    });
    const t = await f.ledger.app.query<{ actor: string; evidence: Record<string, unknown> }>(
      "SELECT actor, evidence FROM effect_transitions ORDER BY transition_seq DESC LIMIT 1",
    );
    expect(t.rows[0]).toMatchObject({
      actor: "human",
      evidence: { human: { decided_by: "ops@acme" } },
    });
  });

  it("no declared lag ⇒ absence is recorded, LOST goes to a human, and a policy grant does not re-dispatch it", async () => {
    const base = refdestDeclaration("C2");
    f = await openEngineFixture(backend, {
      declaration: { ...base, consistency: { status_settlement_lag: null, listing_lag: null } },
      config: {
        rereadGapSeconds: 0,
        autoRedispatch: { "order.create": { grantRef: "policy:auto-orders" } },
      },
    });
    const effectId = await lostDispatch(f, "DROP_RESPONSE_BEFORE_COMMIT");
    const out = await f.irrevon.reconcile(effectId);
    expect(out).toMatchObject({ status: "failed", cause: "reconciled_absent", escalated: true });
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_FAILED",
      classification: "LOST",
      resolution: "ESCALATED_HUMAN",
    });
    const report = await f.irrevon.recover();
    expect(report.redispatched).toBe(0);
    expect(f.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(1);
  });
});
