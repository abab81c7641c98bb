/**
 * The model-based test's property helper (test/support/no-second-create) on both backends:
 * it reports a second order reached under a later operation id that a policy chose, and
 * stays quiet when a human chose it on fresh evidence of absence — so it can fail.
 */
import { afterEach, expect, it } from "vitest";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend } from "../support/databases.js";
import { findUnchosenSecondCreates } from "../support/no-second-create.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

async function lostThenRedispatched(
  f: EngineFixture,
  actor: "human" | "policy_auto",
): Promise<{ effectId: string }> {
  const { effectId } = await f.irrevon.register(orderContract());
  f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  await f.irrevon.dispatch(effectId);
  // The absence rule: a dropped call's deadline (the fixture's 2 s) still counts, so absence
  // counts only once the clock is past it (docs/engine.md, "The absence rule").
  f.clock.advance(2_000);
  const settled = await f.irrevon.reconcile(effectId);
  if (settled.status !== "failed" || settled.findingId === null) throw new Error("no LOST");
  const outcome = await f.irrevon.resolve(
    settled.findingId,
    "REDISPATCHED",
    { note: "resend", fresh_authority_ref: "auth_x", stamped_at: new Date().toISOString() },
    actor,
  );
  expect(outcome.closed).toBe(true);
  // The step-0 order surfaces late: the destination now holds :0 and :1.
  f.refdest.createOutOfBand({
    effect_type: "order.create",
    payload: {},
    client_ref: `${effectId}:0`,
  });
  return { effectId };
}

describeEachBackend("no second create unless a human chose it", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("accepts a human re-dispatch on fresh absence", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    await lostThenRedispatched(f, "human");
    expect(await findUnchosenSecondCreates(f.ledger.read, f.refdest)).toEqual([]);
  });

  it("reports a second order a policy chose", async () => {
    f = await openEngineFixture(backend, {
      lagSeconds: 0,
      config: { rereadGapSeconds: 0, autoRedispatch: { "order.create": { grantRef: "grant-1" } } },
    });
    const { effectId } = await lostThenRedispatched(f, "policy_auto");
    expect(await findUnchosenSecondCreates(f.ledger.read, f.refdest)).toMatchObject([
      { effectId, unchosen: `${effectId}:1`, operationIds: [`${effectId}:0`, `${effectId}:1`] },
    ]);
  });
});
