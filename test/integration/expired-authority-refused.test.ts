/**
 * A fresh authority that is already expired is refused before anything is written, on both
 * backends: a re-dispatch (REDISPATCHED) and a retry stamped longer ago than the authority
 * policy's max_age (the default 24 h) are refused with `resolution_invalid` naming
 * `stamped_at`, its expiry and the policy's max_age. Before the fix the finding moved to
 * REDISPATCHED, an authority row was appended and a new execution opened, and only then did the
 * gate deny the dispatch (a re-dispatch every worker cycle would then retry).
 */
import { afterEach, expect, it } from "vitest";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { countRows } from "../support/ledger-fixtures.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

const TWO_DAYS_AGO = (): string => new Date(Date.now() - 48 * 3_600_000).toISOString();

async function ledgerCounts(f: EngineFixture): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ["authorities", "effect_executions", "finding_resolutions", "status_probes"])
    out[t] = await countRows(f.ledger.superuser, t);
  return out;
}

describeEachBackend("an expired fresh authority", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("a re-dispatch or a retry stamped beyond the policy's max_age is refused, nothing written", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    // A LOST finding: the create never reached the destination, absence proven twice.
    const lost = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(lost.effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    f.clock.advance(5_000); // past the call's deadline: absence counts
    const reconciled = await f.irrevon.reconcile(lost.effectId);
    expect(reconciled).toMatchObject({ status: "failed", cause: "reconciled_absent" });
    const findingId = reconciled.status === "failed" ? (reconciled.findingId ?? 0) : 0;
    // A terminal FAILED receipt: the retry case.
    const failed = await f.irrevon.register(orderContract({ parameters: { reject: true } }));
    expect(await f.irrevon.dispatch(failed.effectId)).toMatchObject({
      lifecycle: "SETTLED_FAILED",
    });
    const before = await ledgerCounts(f);
    const creates = f.refdest.requestLog().filter((e) => e.op === "create").length;

    const stampedAt = TWO_DAYS_AGO();
    await expect(
      f.irrevon.resolve(findingId, "REDISPATCHED", {
        note: "re-send it",
        fresh_authority_ref: "auth_fresh",
        stamped_at: stampedAt,
      }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
      details: { field: "stamped_at", stamped_at: stampedAt, max_age: "24:00:00" },
    });
    await expect(
      f.irrevon.retry(failed.effectId, { authorityRef: "auth_fresh", stampedAt }),
    ).rejects.toMatchObject({ code: "resolution_invalid", details: { field: "stamped_at" } });

    expect(await ledgerCounts(f)).toEqual(before);
    expect(f.refdest.requestLog().filter((e) => e.op === "create").length).toBe(creates);
    expect(await f.irrevon.status(lost.effectId)).toMatchObject({
      lifecycle: "SETTLED_FAILED",
      resolution: "OPEN",
    });
    // A fresh stamp is accepted.
    expect(
      await f.irrevon.retry(failed.effectId, {
        authorityRef: "auth_fresh",
        stampedAt: new Date().toISOString(),
      }),
    ).toMatchObject({ step: 1 });
  });
});
