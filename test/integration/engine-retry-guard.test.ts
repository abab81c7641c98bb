/**
 * retry() after a clean FAILED receipt (reference §5.1) on both backends — refused while an
 * unresolved CONTRADICTED (failed_but_present) finding says the destination holds the effect
 * after all: a retry would create it a second time, and the gate would allow it. Refused with
 * illegal_state naming the finding, while it is OPEN and while it is ESCALATED_HUMAN; once a
 * human has closed it, the retry is theirs to make.
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

const AUTHORITY = (): { authorityRef: string; stampedAt: string } => ({
  authorityRef: "auth_retry_after_review",
  stampedAt: new Date().toISOString(),
});

async function executions(f: EngineFixture, effectId: string): Promise<number> {
  const { rows } = await f.ledger.app.query<{ n: string | number }>(
    "SELECT count(*) AS n FROM effect_executions WHERE effect_id = $1",
    [effectId],
  );
  return Number(rows[0]?.n);
}

describeEachBackend("retry: refused while the effect is contradicted", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("a FAILED effect the audit finds present (CONTRADICTED) cannot be retried until the finding is resolved", async () => {
    f = await openEngineFixture(backend);
    const { effectId, operationId } = await f.irrevon.register(
      orderContract({ parameters: { reject: true } }),
    );
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      transportOutcome: "FAILED",
      lifecycle: "SETTLED_FAILED",
    });
    // The destination holds the effect after all, under this execution's client ref.
    f.refdest.createOutOfBand({
      effect_type: "order.create",
      payload: { seen_later: true },
      client_ref: operationId,
    });
    const audit = await f.irrevon.audit(effectId);
    expect(audit).toMatchObject({
      status: "finding",
      classification: "CONTRADICTED",
      direction: "failed_but_present",
    });
    const findingId = audit.status === "finding" ? audit.findingId : 0;

    await expect(f.irrevon.retry(effectId, AUTHORITY())).rejects.toMatchObject({
      code: "illegal_state",
      details: { finding_id: findingId, classification: "CONTRADICTED", finding_status: "OPEN" },
    });
    expect(await executions(f, effectId)).toBe(1);

    await f.irrevon.resolve(findingId, "ESCALATED_HUMAN", { note: "look at the order" });
    await expect(f.irrevon.retry(effectId, AUTHORITY())).rejects.toMatchObject({
      code: "illegal_state",
      details: { finding_id: findingId, finding_status: "ESCALATED_HUMAN" },
    });
    expect(await executions(f, effectId)).toBe(1);
    expect(destinationEffects(f.refdest)).toBe(1);

    // A human closed it (the effect is accepted as it is): from then on retry is a human call.
    await f.irrevon.resolve(findingId, "ACCEPTED_AS_IS", { note: "order is fine as it is" });
    expect(await f.irrevon.retry(effectId, AUTHORITY())).toMatchObject({ step: 1 });
  });
});
