/**
 * Every request that can create an effect passes the commit gate and is recorded, on both
 * backends: a C1 replay probe is gated like a first send (deny-list, branch lineage, authority
 * freshness) — a denied replay sends nothing, stays AMBIGUOUS, is escalated once and its DENY
 * is on record; an allowed replay's attempt cites its ALLOW decision. A record registered on a
 * cancelled branch is `denied` / `branch_lineage`, not an exception. recover() counts only
 * re-dispatches that went out. A re-dispatch blocked by a standing deny entry is decided once
 * and escalated once, not re-gated every worker cycle; lifting the entry lets it through. An
 * effect the destination is known to hold is never re-sent, whatever its lifecycle says.
 */
import { afterEach, expect, it } from "vitest";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

const HOUR_MS = 3_600_000;

interface DecisionRow {
  variant: string;
  outcome: string;
  deny_check: string | null;
  cause: string | null;
}

async function decisions(f: EngineFixture, effectId: string): Promise<DecisionRow[]> {
  const { rows } = await f.ledger.app.query<DecisionRow>(
    `SELECT variant, outcome, deny_check, evidence->>'cause' AS cause FROM gate_decisions
      WHERE effect_id = $1 ORDER BY decision_id`,
    [effectId],
  );
  return rows;
}

async function escalations(f: EngineFixture, effectId: string): Promise<string[]> {
  const { rows } = await f.ledger.app.query<{ reason: string }>(
    `SELECT e.reason FROM execution_escalations e JOIN effect_executions x ON x.execution_id = e.execution_id
      WHERE x.effect_id = $1 ORDER BY e.escalation_id`,
    [effectId],
  );
  return rows.map((r) => r.reason);
}

function creates(f: EngineFixture): number {
  return f.refdest.requestLog().filter((e) => e.op === "create").length;
}

/** A C1 effect whose first create never reached the destination: AMBIGUOUS, zero effects. */
async function ambiguousC1(
  f: EngineFixture,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const { effectId } = await f.irrevon.register(
    orderContract({ adapter_id: "refdest-c1", ...overrides }),
  );
  f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
  expect(destinationEffects(f.refdest)).toBe(0);
  return effectId;
}

describeEachBackend("gate on every send", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  const denials: ReadonlyArray<{
    name: string;
    check: string;
    cause: string;
    overrides?: Record<string, unknown>;
    deny: (f: EngineFixture, effectId: string) => Promise<unknown>;
  }> = [
    {
      name: "a deny-listed effect type",
      check: "deny_list",
      cause: "deny_listed",
      deny: (f) =>
        f.irrevon.operator.addDenyEntry({ effectType: "order.create", reason: "incident 7" }),
    },
    {
      name: "a cancelled branch",
      check: "branch_lineage",
      cause: "branch_cancelled",
      overrides: { branch_ref: "plan-7" },
      deny: (f) => f.irrevon.operator.cancelBranch("plan-7", "the agent re-planned"),
    },
    {
      name: "an expired authority",
      check: "authority",
      cause: "expired",
      deny: (f, effectId) =>
        f.irrevon.operator.appendAuthority(effectId, {
          authorityRef: "auth_stale",
          stampedAt: new Date(Date.now() - 25 * HOUR_MS).toISOString(),
        }),
    },
  ];

  for (const d of denials) {
    it(`a C1 replay under ${d.name} is denied, recorded, escalated and never sent`, async () => {
      f = await openEngineFixture(backend, { tier: "C1" });
      const effectId = await ambiguousC1(f, d.overrides);
      await d.deny(f, effectId);
      const createsBefore = creates(f);
      const outcome = await f.irrevon.reconcile(effectId);
      expect(outcome.status).not.toBe("committed");
      expect(creates(f)).toBe(createsBefore);
      expect(destinationEffects(f.refdest)).toBe(0);
      expect(await f.irrevon.status(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      const replayDecisions = (await decisions(f, effectId)).filter(
        (r) => r.variant === "c1_replay_probe",
      );
      expect(replayDecisions).toEqual([
        { variant: "c1_replay_probe", outcome: "DENY", deny_check: d.check, cause: d.cause },
      ]);
      expect(await escalations(f, effectId)).toContain("gate_denied");
      const kinds = await f.ledger.app.query<{ kind: string }>(
        "SELECT kind FROM dispatch_attempts ORDER BY attempt_id",
      );
      expect(kinds.rows.map((r) => r.kind)).toEqual(["primary"]);

      // The worker comes back: the standing deny is not decided again, nothing is sent.
      await f.irrevon.reconcile(effectId);
      expect(
        (await decisions(f, effectId)).filter((r) => r.variant === "c1_replay_probe"),
      ).toHaveLength(1);
      expect(creates(f)).toBe(createsBefore);
    });
  }

  it("an allowed C1 replay records its ALLOW decision and the attempt cites it", async () => {
    f = await openEngineFixture(backend, { tier: "C1" });
    const effectId = await ambiguousC1(f);
    const outcome = await f.irrevon.reconcile(effectId);
    expect(outcome).toMatchObject({ status: "committed", cause: "replay_ok" });
    expect(destinationEffects(f.refdest)).toBe(1);
    const { rows } = await f.ledger.app.query<{
      kind: string;
      outcome: string | null;
      variant: string | null;
    }>(
      `SELECT a.kind, d.outcome, d.variant FROM dispatch_attempts a
         LEFT JOIN gate_decisions d ON d.decision_id = a.gate_decision_id ORDER BY a.attempt_id`,
    );
    expect(rows).toEqual([
      { kind: "primary", outcome: "ALLOW", variant: "dispatch" },
      { kind: "c1_replay_probe", outcome: "ALLOW", variant: "c1_replay_probe" },
    ]);
  });

  it("the database refuses an attempt without an ALLOW decision", async () => {
    f = await openEngineFixture(backend, { tier: "C1" });
    const effectId = await ambiguousC1(f);
    const x = await f.ledger.app.query<{ execution_id: unknown; operation_id: string }>(
      "SELECT execution_id, operation_id FROM effect_executions WHERE effect_id = $1",
      [effectId],
    );
    const row = x.rows[0];
    await expect(
      f.ledger.app.query(
        `INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest,
                                        idempotency_key, request_digest)
         VALUES ($1, $2, 9, 'c1_replay_probe', 'refdest-c1', 'd', $2, 'r')`,
        [row?.execution_id, row?.operation_id],
      ),
    ).rejects.toMatchObject({ code: "illegal_state", details: { sqlstate: "DT005" } });
  });

  it("dispatching a record registered on a cancelled branch is denied by branch_lineage", async () => {
    f = await openEngineFixture(backend);
    await f.irrevon.operator.cancelBranch("plan-9", "abandoned plan");
    const { effectId, lifecycle } = await f.irrevon.register(
      orderContract({ branch_ref: "plan-9" }),
    );
    expect(lifecycle).toBe("CANCELLED");
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "denied",
      check: "branch_lineage",
      cause: "branch_cancelled",
    });
    expect(await decisions(f, effectId)).toEqual([
      {
        variant: "dispatch",
        outcome: "DENY",
        deny_check: "branch_lineage",
        cause: "branch_cancelled",
      },
    ]);
    expect(creates(f)).toBe(0);
  });

  it("a policy re-dispatch blocked by a standing deny entry is decided once, escalated once, and goes out after the lift", async () => {
    f = await openEngineFixture(backend, {
      config: {
        rereadGapSeconds: 0,
        autoRedispatch: { "order.create": { grantRef: "policy:auto-orders" } },
      },
    });
    const { effectId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
    await f.irrevon.dispatch(effectId);
    // The absence rule: recovery proves the loss only once the dropped call's deadline (the
    // fixture's 2 s) plus the declared lag (PT0S) has passed.
    f.clock.advance(2_000);
    const denyId = await f.irrevon.operator.addDenyEntry({
      effectType: "order.create",
      reason: "incident 9",
    });
    const report = await f.irrevon.recover();
    expect(report.redispatched).toBe(0);
    expect(creates(f)).toBe(1);
    for (let i = 0; i < 3; i += 1) {
      const cycle = await f.irrevon.cycle({ sweep: false });
      expect(cycle.errors).toEqual([]);
      expect(cycle.redispatched).toBe(0);
    }
    const denied = (await decisions(f, effectId)).filter((r) => r.outcome === "DENY");
    expect(denied).toEqual([
      {
        variant: "resolve_redispatch",
        outcome: "DENY",
        deny_check: "deny_list",
        cause: "deny_listed",
      },
    ]);
    expect(await escalations(f, effectId)).toEqual(["gate_denied"]);
    expect(creates(f)).toBe(1);

    await f.irrevon.operator.liftDenyEntry(denyId);
    await f.irrevon.cycle({ sweep: false });
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      step: 1,
      classification: "LOST",
      resolution: "CLOSED",
    });
    expect(destinationEffects(f.refdest)).toBe(1);
  });

  it("an effect the destination holds is never re-sent by retry + dispatch after the contradiction is accepted", async () => {
    f = await openEngineFixture(backend);
    const { effectId, operationId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "THROTTLE_429", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      transportOutcome: "FAILED",
      lifecycle: "SETTLED_FAILED",
    });
    f.refdest.createOutOfBand({
      effect_type: "order.create",
      payload: { arrived_anyway: true },
      client_ref: operationId,
    });
    const audit = await f.irrevon.audit(effectId);
    expect(audit).toMatchObject({
      classification: "CONTRADICTED",
      direction: "failed_but_present",
    });
    const findingId = audit.status === "finding" ? audit.findingId : 0;
    await f.irrevon.resolve(findingId, "ACCEPTED_AS_IS", { note: "the order exists as is" });
    await f.irrevon.retry(effectId, {
      authorityRef: "auth_retry",
      stampedAt: new Date().toISOString(),
    });
    const out = await f.irrevon.dispatch(effectId);
    expect(out).toMatchObject({
      status: "denied",
      check: "dedup",
      cause: "present_at_destination",
    });
    expect(destinationEffects(f.refdest)).toBe(1);
    expect(creates(f)).toBe(1);
  });
});
