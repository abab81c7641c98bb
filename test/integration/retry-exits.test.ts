/**
 * The exits from a failed effect, on both backends:
 *   - C3 after a human said "not committed": retry opens a new step under fresh authority,
 *     citing the human decision; the dispatch is gated and recorded like any other;
 *   - a reconciled absence refuses retry and names the LOST finding that exists (resolve it);
 *   - a corrected retry after a clean FAILED (400): the caller adopts a recorded parameter
 *     variant, with a reason, for the next attempt; an unrecorded variant is refused.
 */
import { afterEach, expect, it } from "vitest";
import { canonicalDigest } from "../../src/core/canonical.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  ORIGINAL_PARAMS,
  type EngineFixture,
} from "./engine-support.js";

const AUTHORITY = (): { authorityRef: string; stampedAt: string } => ({
  authorityRef: "auth_fresh_after_review",
  stampedAt: new Date().toISOString(),
});

describeEachBackend("retry exits", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("C3: after a human says 'not committed', retry opens a new gated step under fresh authority", async () => {
    f = await openEngineFixture(backend, { tier: "C3" });
    const { effectId } = await f.irrevon.register(orderContract({ adapter_id: "refdest-c3" }));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "notify" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    await f.irrevon.settleManually(effectId, {
      committed: false,
      decidedBy: "ops@acme",
      note: "customer never got the message",
    });
    const opened = await f.irrevon.retry(effectId, AUTHORITY(), {
      reason: "resend after the human check",
    });
    expect(opened).toMatchObject({ step: 1, lifecycle: "PERSISTED" });
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "dispatched",
      lifecycle: "SETTLED_COMMITTED",
    });
    expect(destinationEffects(f.refdest)).toBe(1);
    const d = await f.ledger.app.query<{ variant: string; outcome: string }>(
      "SELECT variant, outcome FROM gate_decisions WHERE effect_id = $1 ORDER BY decision_id",
      [effectId],
    );
    expect(d.rows).toEqual([
      { variant: "dispatch", outcome: "ALLOW" },
      { variant: "retry_after_failure", outcome: "ALLOW" },
    ]);
    const t = await f.ledger.app.query<{ evidence: Record<string, unknown> }>(
      `SELECT t.evidence FROM effect_transitions t JOIN effect_executions x ON x.execution_id = t.execution_id
        WHERE x.effect_id = $1 AND x.step = 1 AND t.to_state = 'PERSISTED'`,
      [effectId],
    );
    expect(t.rows[0]?.evidence).toMatchObject({
      opened_by: "retry_after_failure",
      reason: "resend after the human check",
      after: { cause: "reconciled_absent", actor: "human" },
    });
  });

  it("a reconciled absence refuses retry and names the LOST finding that exists", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const { effectId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
    await f.irrevon.dispatch(effectId);
    // The absence rule: a dropped connection does not end the server's work, so an ABSENT read
    // counts only once the call's deadline (the fixture's 2 s) plus the declared lag (PT0S) passed.
    f.clock.advance(2_000);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({ status: "failed" });
    const [lost] = await f.irrevon.findings({ effectId });
    expect(lost?.classification).toBe("LOST");
    await expect(f.irrevon.retry(effectId, AUTHORITY())).rejects.toMatchObject({
      code: "illegal_state",
      details: { lost_finding_id: lost?.findingId, next_action: "resolve_redispatch" },
    });
  });

  it("a corrected retry after a clean FAILED adopts a recorded variant and sends it", async () => {
    f = await openEngineFixture(backend);
    const rejected = { ...ORIGINAL_PARAMS, reject: true };
    const contract = orderContract({ parameters: rejected });
    const { effectId } = await f.irrevon.register(contract);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      transportOutcome: "FAILED",
      lifecycle: "SETTLED_FAILED",
    });
    const corrected = { ...ORIGINAL_PARAMS, note: "loading dock B" };
    // Not registered yet: adopting it is refused and nothing is opened.
    await expect(
      f.irrevon.retry(effectId, AUTHORITY(), { parameters: corrected, reason: "fix the 400" }),
    ).rejects.toMatchObject({ code: "resolution_invalid" });
    const again = await f.irrevon.register({ ...contract, parameters: corrected });
    expect(again).toMatchObject({ effectId, replayed: true });
    const opened = await f.irrevon.retry(effectId, AUTHORITY(), {
      parameters: corrected,
      reason: "the 400 named the note field",
    });
    expect(opened).toMatchObject({ step: 1, parametersDigest: canonicalDigest(corrected) });
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "dispatched",
      lifecycle: "SETTLED_COMMITTED",
    });
    const effects = f.refdest.truthDump().effects;
    expect(effects).toHaveLength(1);
    expect(effects[0]?.payload_digest).toBe(canonicalDigest(corrected));
    const { rows } = await f.ledger.app.query<{ parameters_digest: string; reason: string }>(
      "SELECT parameters_digest, reason FROM execution_parameters",
    );
    expect(rows).toEqual([
      { parameters_digest: canonicalDigest(corrected), reason: "the 400 named the note field" },
    ]);
  });
});
