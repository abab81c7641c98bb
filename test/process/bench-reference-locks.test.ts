/**
 * Strength locks for arm R (reference design §3.4): this engine through its public API, on
 * a Postgres server (fresh database per unit from a migrated template) and on PGlite. On the
 * C2 discriminating cells R has no duplicate, no lost effect and no false suppression; on
 * crash-after-effect a REAL child process is SIGKILLed at adapter.post_call after the
 * destination committed, recovery in a fresh engine asks the destination, and R has 0
 * duplicates where B5 has ≥ 1. Extension: read lag, agent re-plan and new intent do not
 * fool R; on an opaque C3 destination R escalates instead of re-sending.
 */
import { afterAll, describe, expect, it } from "vitest";
import { settleUnitDatabaseDrops } from "../../src/bench/arms/reference-engine.js";
import { buildDevSplit } from "../../src/bench/fixtures/dev-split.js";
import { buildExtSplit } from "../../src/bench/fixtures/ext-split.js";
import { drive, TEST_PG_URL, unitOf } from "../support/bench-units.js";

const dev = buildDevSplit();
const ext = buildExtSplit();
const C2 = (fault: string): string => `C2/refdest/${fault}/IRREVERSIBLE`;

describe("bench strength locks: R", { timeout: 240_000 }, () => {
  afterAll(settleUnitDatabaseDrops);

  it("R@postgres: 0 duplicates, 0 lost, 0 false suppression on the C2 discriminating cells", async () => {
    for (const fault of ["response-lost", "retry-storm", "semantic-resynthesis"]) {
      const r = await drive("R@postgres", unitOf(dev, C2(fault)), TEST_PG_URL);
      expect(r.counts, fault).toEqual([1, 1, 1, 1]);
      expect(r.outcomes, fault).toEqual(["committed", "committed", "committed", "committed"]);
      expect(r.reports.filter((x) => x.trial_index % 2 === 1).map((x) => x.detail.oracle_claim), fault).toEqual(["unique", "unique"]);
    }
  });

  it("crash-after-effect: R@postgres recovers a SIGKILLed child without a duplicate; B5 duplicates", async () => {
    const unit = unitOf(dev, C2("crash-after-effect-before-response"));
    const r = await drive("R@postgres", unit, TEST_PG_URL);
    expect(r.counts).toEqual([1, 1, 1, 1]);
    for (const report of r.reports.filter((x) => x.trial_index % 2 === 1)) {
      expect(report.detail.log.find((e) => e.action === "child-killed")).toMatchObject({ signal: "SIGKILL", seam: "adapter.post_call" });
      expect(report.arm_outcome).toBe("committed");
    }
    const b5 = await drive("B5", unit);
    expect(b5.duplicates).toBeGreaterThanOrEqual(1);
  });

  it("R suppresses stale authority and a cancelled branch with the right deny check", async () => {
    const stale = await drive("R@postgres", unitOf(dev, C2("stale-authorization")), TEST_PG_URL);
    expect(stale.counts).toEqual([1, 0, 1, 0]);
    expect(stale.reports.filter((x) => x.arm_outcome === "suppressed").map((x) => x.detail["deny_check"])).toEqual(["authority", "authority"]);
    const branch = await drive("R@postgres", unitOf(dev, C2("branch-cancellation")), TEST_PG_URL);
    expect(branch.counts).toEqual([1, 0, 1, 0]);
    expect(branch.reports.filter((x) => x.arm_outcome === "suppressed").map((x) => x.detail["deny_check"])).toEqual(["branch_lineage", "branch_lineage"]);
  });

  it("extension: read lag, agent re-plan and a new intent do not fool R; on C3 (dev and extension) it escalates", async () => {
    for (const fault of ["read-lag", "agent-replan", "new-intent"]) {
      const r = await drive("R@postgres", unitOf(ext, C2(fault)), TEST_PG_URL);
      expect(r.counts, fault).toEqual([1, 1, 1, 1]);
    }
    for (const unit of [unitOf(ext, "C3/refdest/c3-real-effect/IRREVERSIBLE"), unitOf(dev, "C3/refdest/response-lost/IRREVERSIBLE")]) {
      const c3 = await drive("R@postgres", unit, TEST_PG_URL);
      expect(c3.counts, unit.workload.cell_id).toEqual([1, 1, 1, 1]);
      expect(c3.outcomes, unit.workload.cell_id).toEqual(["committed", "escalated", "committed", "escalated"]);
    }
  });

  it("R@pglite: the same engine on the embedded database, C2 response-lost", async () => {
    const r = await drive("R@pglite", unitOf(dev, C2("response-lost")));
    expect(r.counts).toEqual([1, 1, 1, 1]);
    expect(r.outcomes).toEqual(["committed", "committed", "committed", "committed"]);
  });
});
