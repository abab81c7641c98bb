/**
 * The commit gate (reference §4, §12 test_gate rows) on both backends: every evaluation is a
 * persisted decision with its ordered checks; deny-list first and lift; 24 h authority expiry
 * with strict `>`; branch cancellation; dedup cites executions and variants; frontier rules
 * (AMBIGUOUS ⇒ pending with no gate row and no attempt, CANCELLED ⇒ denied by branch_lineage,
 * SETTLED_FAILED ⇒ dedup/retryable_failed with the real check shown); scope_busy; late
 * outcomes ⇒ late_responses with the contradiction flag, which queues an audit.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { claimDispatch } from "../../src/ledger/claim-dispatch.js";
import { recordOutcome } from "../../src/ledger/record-outcome.js";
import { registerWorker } from "../../src/ledger/worker-leases.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

const HOUR_MS = 3_600_000;

async function decisions(
  f: EngineFixture,
  effectId: string,
): Promise<
  Array<{
    outcome: string;
    deny_check: string | null;
    checks: Array<{ check: string; status: string }>;
    evidence: Record<string, unknown>;
  }>
> {
  const { rows } = await f.ledger.app.query<{
    outcome: string;
    deny_check: string | null;
    checks: Array<{ check: string; status: string }>;
    evidence: Record<string, unknown>;
  }>(
    "SELECT outcome, deny_check, checks, evidence FROM gate_decisions WHERE effect_id = $1 ORDER BY decision_id",
    [effectId],
  );
  return rows;
}

async function attemptCount(f: EngineFixture, effectId: string): Promise<number> {
  const { rows } = await f.ledger.app.query<{ n: string | number }>(
    "SELECT count(*) AS n FROM dispatch_attempts a JOIN effect_executions x ON x.execution_id = a.execution_id WHERE x.effect_id = $1",
    [effectId],
  );
  return Number(rows[0]?.n);
}

describeEachBackend("gate", (backend) => {
  let f: EngineFixture;
  beforeEach(async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
  });
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("ALLOW is persisted with the four checks in order, and the attempt's key is the operation id", async () => {
    const { effectId, operationId } = await f.irrevon.register(orderContract());
    const out = await f.irrevon.dispatch(effectId);
    expect(out).toMatchObject({ status: "dispatched", lifecycle: "SETTLED_COMMITTED" });
    const [d] = await decisions(f, effectId);
    expect(d?.outcome).toBe("ALLOW");
    expect(d?.checks.map((c) => [c.check, c.status])).toEqual([
      ["deny_list", "passed"],
      ["authority", "passed"],
      ["branch_lineage", "passed"],
      ["dedup", "passed"],
    ]);
    expect(typeof d?.evidence["input_digest"]).toBe("string");
    const { rows } = await f.ledger.app.query<{
      idempotency_key: string;
      owner_worker_id: string;
      fencing_token: unknown;
    }>("SELECT idempotency_key, owner_worker_id, fencing_token FROM dispatch_attempts");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ idempotency_key: operationId, owner_worker_id: "worker-a" });
    expect(rows[0]?.fencing_token).not.toBeNull();
  });

  it("deny-list is checked first, later checks are not_reached, and a lift lets the dispatch through", async () => {
    const stale = new Date(Date.now() - 25 * HOUR_MS).toISOString();
    const { effectId } = await f.irrevon.register(orderContract({ stamped_at: stale }));
    const denyId = await f.irrevon.operator.addDenyEntry({
      scope: "acme-store/prod",
      reason: "incident 42",
    });
    const first = await f.irrevon.dispatch(effectId);
    expect(first).toMatchObject({ status: "denied", check: "deny_list", cause: "deny_listed" });
    const [d1] = await decisions(f, effectId);
    expect(d1?.checks.map((c) => c.status)).toEqual([
      "denied",
      "not_reached",
      "not_reached",
      "not_reached",
    ]);
    expect(d1?.evidence["deny_entries"]).toEqual([{ deny_id: denyId, reason: "incident 42" }]);

    await f.irrevon.operator.liftDenyEntry(denyId);
    const second = await f.irrevon.dispatch(effectId);
    // With the deny entry lifted the next check decides: the 25 h old authority has expired.
    expect(second).toMatchObject({ status: "denied", check: "authority", cause: "expired" });
    await f.irrevon.operator.appendAuthority(effectId, {
      authorityRef: "auth_renewed",
      stampedAt: new Date().toISOString(),
    });
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "dispatched",
      lifecycle: "SETTLED_COMMITTED",
    });
    expect((await decisions(f, effectId)).map((d) => d.outcome)).toEqual(["DENY", "DENY", "ALLOW"]);
  });

  it("authority expires after 24 h (strictly greater), by the database clock", async () => {
    const justInside = new Date(Date.now() - 24 * HOUR_MS + 120_000).toISOString();
    const justOutside = new Date(Date.now() - 24 * HOUR_MS - 120_000).toISOString();
    const inside = await f.irrevon.register(orderContract({ stamped_at: justInside }));
    const outside = await f.irrevon.register(
      orderContract({ stamped_at: justOutside, scope: "acme-store/other" }),
    );
    expect(await f.irrevon.dispatch(inside.effectId)).toMatchObject({ status: "dispatched" });
    const denied = await f.irrevon.dispatch(outside.effectId);
    expect(denied).toMatchObject({ status: "denied", check: "authority", cause: "expired" });
    if (denied.status === "denied") expect(typeof denied.evidence["expired_at"]).toBe("string");
    expect(await attemptCount(f, outside.effectId)).toBe(0);
  });

  it("a branch cancelled after registration is denied by branch_lineage; one cancelled before is INTENDED→CANCELLED and its dispatch is denied too, on record", async () => {
    const late = await f.irrevon.register(orderContract({ branch_ref: "plan-7" }));
    await f.irrevon.operator.cancelBranch("plan-7", "user aborted");
    expect(await f.irrevon.dispatch(late.effectId)).toMatchObject({
      status: "denied",
      check: "branch_lineage",
      cause: "branch_cancelled",
    });

    const early = await f.irrevon.register(orderContract({ branch_ref: "plan-7" }));
    expect(early.lifecycle).toBe("CANCELLED");
    expect(await f.irrevon.dispatch(early.effectId)).toMatchObject({
      status: "denied",
      check: "branch_lineage",
      cause: "branch_cancelled",
    });
    expect((await decisions(f, early.effectId)).map((d) => d.deny_check)).toEqual([
      "branch_lineage",
    ]);
    expect(await attemptCount(f, early.effectId)).toBe(0);
  });

  it("AMBIGUOUS ⇒ pending_reconciliation: no gate row, no new attempt, no wire call", async () => {
    const { effectId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "dispatched",
      lifecycle: "AMBIGUOUS",
    });
    const before = f.refdest.requestLog().length;
    const again = await f.irrevon.dispatch(effectId);
    expect(again).toMatchObject({ status: "pending_reconciliation", frontier: "AMBIGUOUS" });
    if (again.status === "pending_reconciliation")
      expect(again.lastReceipt?.transportOutcome).toBe("LOST");
    expect(await decisions(f, effectId)).toHaveLength(1);
    expect(await attemptCount(f, effectId)).toBe(1);
    expect(f.refdest.requestLog().length).toBe(before);
    await f.irrevon.reconcile(effectId);
  });

  it("SETTLED_FAILED ⇒ dedup denies with retryable_failed and the checks say so; a retry is a new step and key", async () => {
    const { effectId, operationId } = await f.irrevon.register(
      orderContract({ parameters: { reject: true } }),
    );
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "dispatched",
      transportOutcome: "FAILED",
      lifecycle: "SETTLED_FAILED",
    });
    const denied = await f.irrevon.dispatch(effectId);
    expect(denied).toMatchObject({ status: "denied", check: "dedup", cause: "retryable_failed" });
    const last = (await decisions(f, effectId)).at(-1);
    expect(last?.deny_check).toBe("dedup");
    expect(last?.checks.map((c) => c.status)).toEqual(["passed", "passed", "passed", "denied"]);
    expect(last?.evidence).toMatchObject({
      cause: "retryable_failed",
      retry_operation: "open_retry_execution",
    });

    await expect(
      f.irrevon.retry(effectId, { authorityRef: "", stampedAt: new Date().toISOString() }),
    ).rejects.toMatchObject({ code: "resolution_invalid" });
    const retry = await f.irrevon.retry(effectId, {
      authorityRef: "auth_retry_1",
      stampedAt: new Date().toISOString(),
    });
    expect(retry.step).toBe(1);
    expect(retry.operationId).toBe(`${effectId}:1`);
    expect(retry.operationId).not.toBe(operationId);
    // The stored payload still says reject: the retry fails cleanly again, under its own key.
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "dispatched",
      operationId: `${effectId}:1`,
      lifecycle: "SETTLED_FAILED",
    });
    const keys = await f.ledger.app.query<{ idempotency_key: string }>(
      "SELECT idempotency_key FROM dispatch_attempts ORDER BY attempt_id",
    );
    expect(keys.rows.map((r) => r.idempotency_key)).toEqual([`${effectId}:0`, `${effectId}:1`]);
  });

  it("an open attempt in the slot ⇒ scope_busy for another effect, with no gate row", async () => {
    const a = await f.irrevon.register(orderContract());
    const b = await f.irrevon.register(orderContract());
    const lease = await registerWorker(f.ledger.app, "worker-stuck", 60_000);
    const claim = await claimDispatch(f.ledger.app, { effectId: a.effectId, lease });
    expect(claim.status).toBe("claimed");
    const busy = await f.irrevon.dispatch(b.effectId);
    expect(busy).toMatchObject({ status: "scope_busy", blockingEffectId: a.effectId });
    expect(await decisions(f, b.effectId)).toHaveLength(0);
    // Close the stuck attempt so the ledger ends clean.
    if (claim.status === "claimed") {
      await recordOutcome(f.ledger.app, {
        attemptId: claim.attemptId,
        executionId: claim.executionId,
        transportOutcome: "OK",
        evidence: {},
        recordedBy: "dispatcher",
        lease,
      });
    }
    expect(await f.irrevon.dispatch(b.effectId)).toMatchObject({ status: "dispatched" });
  });

  it("a response after settlement goes to late_responses, flagged when it contradicts", async () => {
    const { effectId } = await f.irrevon.register(orderContract());
    const lease = await registerWorker(f.ledger.app, "worker-late", 60_000);
    const claim = await claimDispatch(f.ledger.app, { effectId, lease });
    if (claim.status !== "claimed") throw new Error("expected a claim");
    const base = {
      attemptId: claim.attemptId,
      executionId: claim.executionId,
      evidence: {},
      recordedBy: "dispatcher" as const,
      lease,
    };
    expect(await recordOutcome(f.ledger.app, { ...base, transportOutcome: "OK" })).toMatchObject({
      status: "recorded",
      lifecycle: "SETTLED_COMMITTED",
    });
    const late = await recordOutcome(f.ledger.app, {
      ...base,
      transportOutcome: "FAILED",
      failureKind: "TERMINAL",
    });
    expect(late).toMatchObject({
      status: "late",
      contradictsSettle: true,
      reason: "already_received",
      frontier: "SETTLED_COMMITTED",
    });
    const quiet = await recordOutcome(f.ledger.app, { ...base, transportOutcome: "OK" });
    expect(quiet).toMatchObject({ status: "late", contradictsSettle: false });
    const { rows } = await f.ledger.app.query<{ contradicts_settle: boolean }>(
      "SELECT contradicts_settle FROM late_responses ORDER BY late_id",
    );
    expect(rows.map((r) => r.contradicts_settle)).toEqual([true, false]);
    // The contradiction queues an audit: the destination never saw a create, so the
    // committed settlement is contradicted (committed_then_vanished). Audited once only.
    expect(await f.irrevon.recover()).toMatchObject({ audited: 1 });
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      classification: "CONTRADICTED",
    });
    expect(await f.irrevon.recover()).toMatchObject({ audited: 0 });
  });
});
