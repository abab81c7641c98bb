/**
 * Regression (issue 14, "the sweep explains only what was sent"): step 0's response is lost,
 * absence is proven (LOST), a human re-dispatches step 1, which commits, and the worker has
 * already audited the record. Then step 0's order surfaces at the destination after all: two
 * orders for one intent. Before the fix the sweep counted it explained (its client ref is an
 * operation id) and the audit asked only about step 1, so no finding was ever written. Now
 * the worker's sweep sees a claimed key whose effect the ledger never saw, audits every step,
 * and reports CONTRADICTED (step 0 failed but is present) and DUPLICATE (the intent's excess
 * effect), once. Both backends; the defect is in what the sweep and audit conclude, not in a
 * process boundary, so one in-process worker and destination suffice.
 */
import { afterEach, expect, it } from "vitest";
import { countByInvariant } from "../../src/testing/history-checker.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend } from "../support/databases.js";
import { checkRun } from "../support/history/ledger-history.js";
import {
  lostThenRedispatched,
  MAIN,
  openTwoDestinations,
  plantEffect,
  type TwoDestinations,
} from "./sweep-explanation-support.js";

describeEachBackend("sweep: a late step 0 after re-dispatch of step 1", (backend) => {
  let t: TwoDestinations | undefined;
  afterEach(async () => {
    if (t !== undefined) await expectAuditClean(t.ledger);
    await t?.close();
    t = undefined;
  });

  it("the worker's sweep reports the second order (CONTRADICTED + DUPLICATE), once", async () => {
    t = await openTwoDestinations(backend);
    const main = t.destinations[MAIN];
    if (main === undefined) throw new Error("no destination");
    const { effectId, step0 } = await lostThenRedispatched(t);
    // The worker's one audit of the freshly settled record happens before the late order.
    const before = await t.irrevon.cycle({ sweep: true });
    expect(before.errors).toEqual([]);
    expect((await t.irrevon.findings({ effectId })).map((f) => f.classification)).toEqual(["LOST"]);

    const late = plantEffect(main, step0);
    for (let i = 0; i < 3; i += 1) {
      const report = await t.irrevon.cycle({ sweep: true });
      expect(report.errors).toEqual([]);
    }

    const findings = await t.irrevon.findings({ effectId });
    expect(findings.map((f) => [f.classification, f.status])).toEqual([
      ["LOST", "CLOSED"],
      ["CONTRADICTED", "OPEN"],
      ["DUPLICATE", "OPEN"],
    ]);
    const [, contradicted, duplicate] = findings;
    expect(contradicted).toMatchObject({
      destinationRef: late,
      evidence: { direction: "failed_but_present", operation_id: step0 },
    });
    expect(duplicate).toMatchObject({
      destinationRef: late,
      excessEffectCount: 1,
      evidence: { excess_refs: [late] },
    });
    expect(await t.irrevon.findings({ classification: "ORPHANED" })).toEqual([]);
    // The audit cited the late ref: later runs match it without auditing again.
    expect(await t.irrevon.sweep(MAIN)).toMatchObject({ audited: [], auditFindings: [] });
    // Nothing was sent again, and the history checker agrees that both orders are reported.
    expect(main.requestLog().filter((r) => r.op === "create")).toHaveLength(2);
    const counts = countByInvariant((await checkRun(t.ledger.read, main)).violations);
    expect(counts.duplicate_effect + counts.false_suppression).toBe(0);
  });
});
