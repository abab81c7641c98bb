/**
 * Re-dispatch is decided on the NEWEST evidence about the effect (issue 14 item 1), on both
 * backends: after a LOST finding, anything that shows the effect at the destination — a later
 * PRESENT probe, a CONTRADICTED finding that was never compensated (open, escalated or
 * accepted as is), a late OK response — refuses a re-dispatch, human or policy, with
 * `resolution_invalid`, even though a recent ABSENT probe exists; nothing is sent and no
 * execution is opened. The locked function `ledger_resolve` refuses the same, so a caller
 * that skips the engine cannot re-dispatch either. And a REDISPATCHED finding closes when any
 * later execution of the effect commits, also when the replacement failed and its retry
 * committed (issue 14 item 7).
 */
import { afterEach, expect, it } from "vitest";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import { expectNoUnchosenSecondCreate } from "../support/no-second-create.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
  countRows,
} from "./engine-support.js";

const AUTHORITY = () => ({
  fresh_authority_ref: "auth_ops_review_9",
  stamped_at: new Date().toISOString(),
});

const count = countRows;

/** A response lost before commit: two ABSENT reads ⇒ SETTLED_FAILED + LOST (gap 0). */
async function lost(
  f: EngineFixture,
): Promise<{ effectId: string; operationId: string; findingId: number }> {
  const { effectId, operationId } = await f.irrevon.register(orderContract());
  f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
  // The absence rule: a dropped call's deadline (the fixture's 2 s) still counts, so absence
  // counts only once the clock is past it (docs/engine.md, "The absence rule").
  f.clock.advance(2_000);
  const outcome = await f.irrevon.reconcile(effectId);
  expect(outcome).toMatchObject({ status: "failed", escalated: false });
  if (outcome.status !== "failed" || outcome.findingId === null) throw new Error("no finding");
  return { effectId, operationId, findingId: outcome.findingId };
}

/** The order surfaces at the destination after absence was proven; the audit sees it. */
async function surfaces(f: EngineFixture, effectId: string, operationId: string): Promise<number> {
  f.refdest.createOutOfBand({ effect_type: "order.create", payload: {}, client_ref: operationId });
  const audit = await f.irrevon.audit(effectId);
  expect(audit).toMatchObject({
    status: "finding",
    classification: "CONTRADICTED",
    direction: "failed_but_present",
  });
  return audit.status === "finding" ? audit.findingId : 0;
}

async function expectRefusedRedispatch(
  f: EngineFixture,
  effectId: string,
  findingId: number,
  actor: "human" | "policy_auto" = "human",
): Promise<void> {
  const executions = await count(
    f,
    "SELECT count(*) AS n FROM effect_executions WHERE effect_id = $1",
    [effectId],
  );
  const before = destinationEffects(f.refdest);
  await expect(
    f.irrevon.resolve(findingId, "REDISPATCHED", { note: "resend", ...AUTHORITY() }, actor),
  ).rejects.toMatchObject({
    code: "resolution_invalid",
    details: { refusal: "present_at_destination" },
  });
  expect(
    await count(f, "SELECT count(*) AS n FROM effect_executions WHERE effect_id = $1", [effectId]),
  ).toBe(executions);
  expect(destinationEffects(f.refdest)).toBe(before);
  expect(
    (await f.irrevon.findings({ effectId })).find((x) => x.findingId === findingId)?.status,
  ).toBe("OPEN");
}

describeEachBackend("re-dispatch on the newest evidence", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await expectNoUnchosenSecondCreate(f.ledger.read, f.refdest);
    await f.close();
  });

  it("an open CONTRADICTED failed_but_present refuses a human re-dispatch despite a fresh ABSENT probe", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const a = await lost(f);
    await surfaces(f, a.effectId, a.operationId);
    expect(destinationEffects(f.refdest)).toBe(1);
    await expectRefusedRedispatch(f, a.effectId, a.findingId);
    expect(destinationEffects(f.refdest)).toBe(1);
  });

  it("a later PRESENT probe refuses it after the CONTRADICTED finding was accepted as is", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const a = await lost(f);
    const contradicted = await surfaces(f, a.effectId, a.operationId);
    await f.irrevon.resolve(contradicted, "ACCEPTED_AS_IS", { note: "the order exists as is" });
    await expectRefusedRedispatch(f, a.effectId, a.findingId);
  });

  it("a late OK response refuses it, also when no probe has seen the order yet", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const a = await lost(f);
    // The lost create's response arrives after absence was proven (recorded as a late response).
    await f.ledger.app.query(
      `INSERT INTO late_responses (attempt_id, transport_outcome, destination_ref, evidence, contradicts_settle)
       SELECT a.attempt_id, 'OK', 'ord_late', '{}'::jsonb, true FROM dispatch_attempts a
         JOIN effect_executions x ON x.execution_id = a.execution_id WHERE x.effect_id = $1`,
      [a.effectId],
    );
    await expectRefusedRedispatch(f, a.effectId, a.findingId);
  });

  it("ledger_resolve refuses REDISPATCHED on presence evidence or without citing the newest ABSENT probe", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const a = await lost(f);
    const probes = await f.ledger.app.query<{ probe_id: unknown; result: string }>(
      `SELECT p.probe_id, p.result FROM status_probes p JOIN effect_executions x ON x.execution_id = p.execution_id
        WHERE x.effect_id = $1 ORDER BY p.probe_id`,
      [a.effectId],
    );
    const [older, newest] = probes.rows.map((r) => Number(r.probe_id));
    const redispatch = (evidence: Record<string, unknown>) =>
      f.ledger.app.query("SELECT ledger_resolve($1, 'OPEN', 'REDISPATCHED', 'human', $2::jsonb)", [
        a.findingId,
        JSON.stringify({ note: "resend", ...evidence }),
      ]);
    for (const evidence of [{}, { absent_probe_id: older }, { absent_probe_id: 424242 }]) {
      const refused = await expectDbError(redispatch(evidence), "resolution_invalid", "DT004");
      expect(refused.details["constraint"]).toBe("redispatch_absence_not_newest");
    }
    await surfaces(f, a.effectId, a.operationId);
    // The audit's PRESENT read now shows the order: citing the once-newest ABSENT read is refused.
    const err = await expectDbError(
      redispatch({ absent_probe_id: newest }),
      "resolution_invalid",
      "DT004",
    );
    expect(err.details["constraint"]).toBe("redispatch_presence_probe");
    expect(
      await count(f, "SELECT count(*) AS n FROM finding_resolutions WHERE finding_id = $1", [
        a.findingId,
      ]),
    ).toBe(0);
  });

  it("a policy re-dispatch is refused on the same evidence and escalates the LOST finding", async () => {
    f = await openEngineFixture(backend, {
      lagSeconds: 0,
      config: { rereadGapSeconds: 0, autoRedispatch: { "order.create": { grantRef: "grant-1" } } },
    });
    const a = await lost(f);
    await surfaces(f, a.effectId, a.operationId);
    await expectRefusedRedispatch(f, a.effectId, a.findingId, "policy_auto");
  });

  it("a REDISPATCHED finding whose replacement failed closes when the retry commits (issue 14 item 7)", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const a = await lost(f);
    f.refdest.schedule([{ fault: "THROTTLE_429", match: { op: "create" } }]);
    const outcome = await f.irrevon.resolve(a.findingId, "REDISPATCHED", {
      note: "resend",
      ...AUTHORITY(),
    });
    expect(outcome).toMatchObject({
      current: "REDISPATCHED",
      closed: false,
      redispatch: { dispatch: { lifecycle: "SETTLED_FAILED" } },
    });
    await f.irrevon.retry(a.effectId, {
      authorityRef: "auth_retry_1",
      stampedAt: new Date().toISOString(),
    });
    expect(await f.irrevon.dispatch(a.effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
    expect((await f.irrevon.findings({ effectId: a.effectId }))[0]?.status).toBe("CLOSED");
    const { rows } = await f.ledger.app.query<{ evidence: Record<string, unknown> }>(
      "SELECT evidence FROM finding_resolutions WHERE finding_id = $1 AND to_status = 'CLOSED'",
      [a.findingId],
    );
    expect(rows[0]?.evidence["replacement_operation_id"]).toBe(`${a.effectId}:2`);
    expect(destinationEffects(f.refdest)).toBe(1);
  });

  it("it closes too when the retry's commit came through reconciliation, and the worker leaves it closed", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const a = await lost(f);
    f.refdest.schedule([{ fault: "THROTTLE_429", match: { op: "create" } }]);
    await f.irrevon.resolve(a.findingId, "REDISPATCHED", { note: "resend", ...AUTHORITY() });
    await f.irrevon.retry(a.effectId, {
      authorityRef: "auth_retry_2",
      stampedAt: new Date().toISOString(),
    });
    // The retry's response is lost after the commit; reconciliation settles it.
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(a.effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    expect(await f.irrevon.reconcile(a.effectId)).toMatchObject({ status: "committed" });
    await f.irrevon.cycle({ sweep: false });
    expect(
      (await f.irrevon.findings({ effectId: a.effectId })).find((x) => x.findingId === a.findingId)
        ?.status,
    ).toBe("CLOSED");
  });
});
