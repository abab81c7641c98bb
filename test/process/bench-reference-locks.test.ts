/**
 * Strength locks for arm R (reference design §3.4): this engine through its public API, on
 * a Postgres server (fresh database per unit from a migrated template) and on PGlite. On the
 * C2 discriminating cells R has no duplicate, no lost effect and no false suppression; on
 * crash-after-effect a REAL child process is SIGKILLed at adapter.post_call after the
 * destination committed, recovery in a fresh engine asks the destination, and R has 0
 * duplicates where B5 has ≥ 1 (on both backends). Units sharing a ledger are namespaced, so
 * they are driven once before the checks, the server ones concurrently. Extension: read lag, agent re-plan and new intent do not
 * fool R; on an opaque C3 destination R escalates instead of re-sending.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleUnitDatabaseDrops } from "../../src/bench/arms/reference-engine.js";
import { buildDevSplit } from "../../src/bench/fixtures/dev-split.js";
import { buildExtSplit } from "../../src/bench/fixtures/ext-split.js";
import { drive, TEST_PG_URL, unitOf, type DrivenUnit, type UnitDocs } from "../support/bench-units.js";

const dev = buildDevSplit();
const ext = buildExtSplit();
const C2 = (fault: string): string => `C2/refdest/${fault}/IRREVERSIBLE`;

/** Every (arm, unit) the locks read, driven once and concurrently (units are independent). */
const RUNS = {
  pgLost: ["R@postgres", unitOf(dev, C2("response-lost"))],
  pgStorm: ["R@postgres", unitOf(dev, C2("retry-storm"))],
  pgResynth: ["R@postgres", unitOf(dev, C2("semantic-resynthesis"))],
  pgCrash: ["R@postgres", unitOf(dev, C2("crash-after-effect-before-response"))],
  b5Crash: ["B5", unitOf(dev, C2("crash-after-effect-before-response"))],
  pgStale: ["R@postgres", unitOf(dev, C2("stale-authorization"))],
  pgBranch: ["R@postgres", unitOf(dev, C2("branch-cancellation"))],
  pgReadLag: ["R@postgres", unitOf(ext, C2("read-lag"))],
  pgReplan: ["R@postgres", unitOf(ext, C2("agent-replan"))],
  pgNewIntent: ["R@postgres", unitOf(ext, C2("new-intent"))],
  pgC3Ext: ["R@postgres", unitOf(ext, "C3/refdest/c3-real-effect/IRREVERSIBLE")],
  pgC3Dev: ["R@postgres", unitOf(dev, "C3/refdest/response-lost/IRREVERSIBLE")],
  liteLost: ["R@pglite", unitOf(dev, C2("response-lost"))],
  liteCrash: ["R@pglite", unitOf(dev, C2("crash-after-effect-before-response"))],
} as const satisfies Record<string, readonly [string, UnitDocs]>;
type RunName = keyof typeof RUNS;
const runs = new Map<RunName, DrivenUnit>();
const run = (name: RunName): DrivenUnit => {
  const r = runs.get(name);
  if (r === undefined) throw new Error(`${name} was not driven`);
  return r;
};

function expectCrashRecovered(r: DrivenUnit): void {
  expect(r.counts).toEqual([1, 1, 1, 1]);
  for (const report of r.reports.filter((x) => x.trial_index % 2 === 1)) {
    expect(report.detail.log.find((e) => e.action === "child-killed")).toMatchObject({ signal: "SIGKILL", seam: "adapter.post_call" });
    expect(report.arm_outcome).toBe("committed");
  }
}

describe("bench strength locks: R", { timeout: 240_000 }, () => {
  beforeAll(async () => {
    const all = Object.entries(RUNS) as [RunName, (typeof RUNS)[RunName]][];
    const go = async ([name, [arm, unit]]: [RunName, (typeof RUNS)[RunName]]): Promise<void> => {
      runs.set(name, await drive(arm, unit, arm === "R@postgres" ? TEST_PG_URL : null));
    };
    // PGlite runs on this thread and stalls the event loop while it opens: R@pglite units run
    // one at a time after the others, so no unit's deadlines depend on another's open.
    await Promise.all(all.filter(([, [arm]]) => arm !== "R@pglite").map(go));
    for (const entry of all.filter(([, [arm]]) => arm === "R@pglite")) await go(entry);
  }, 240_000);
  afterAll(settleUnitDatabaseDrops);

  it("R@postgres: 0 duplicates, 0 lost, 0 false suppression on the C2 discriminating cells", () => {
    for (const name of ["pgLost", "pgStorm", "pgResynth"] as const) {
      const r = run(name);
      expect(r.counts, name).toEqual([1, 1, 1, 1]);
      expect(r.outcomes, name).toEqual(["committed", "committed", "committed", "committed"]);
      expect(r.reports.filter((x) => x.trial_index % 2 === 1).map((x) => x.detail.oracle_claim), name).toEqual(["unique", "unique"]);
    }
  });

  it("crash-after-effect: R recovers a SIGKILLed child without a duplicate on both backends; B5 duplicates", () => {
    expectCrashRecovered(run("pgCrash"));
    expectCrashRecovered(run("liteCrash"));
    expect(run("b5Crash").duplicates).toBeGreaterThanOrEqual(1);
  });

  it("R suppresses stale authority and a cancelled branch with the right deny check", () => {
    const stale = run("pgStale");
    expect(stale.counts).toEqual([1, 0, 1, 0]);
    expect(stale.reports.filter((x) => x.arm_outcome === "suppressed").map((x) => x.detail["deny_check"])).toEqual(["authority", "authority"]);
    const branch = run("pgBranch");
    expect(branch.counts).toEqual([1, 0, 1, 0]);
    expect(branch.reports.filter((x) => x.arm_outcome === "suppressed").map((x) => x.detail["deny_check"])).toEqual(["branch_lineage", "branch_lineage"]);
  });

  it("extension: read lag, agent re-plan and a new intent do not fool R; on C3 (dev and extension) it escalates", () => {
    for (const name of ["pgReadLag", "pgReplan", "pgNewIntent"] as const) {
      expect(run(name).counts, name).toEqual([1, 1, 1, 1]);
    }
    for (const name of ["pgC3Ext", "pgC3Dev"] as const) {
      const c3 = run(name);
      expect(c3.counts, name).toEqual([1, 1, 1, 1]);
      expect(c3.outcomes, name).toEqual(["committed", "escalated", "committed", "escalated"]);
    }
  });

  it("R@pglite: the same engine on the embedded (shared, namespaced) ledger, C2 response-lost", () => {
    const r = run("liteLost");
    expect(r.counts).toEqual([1, 1, 1, 1]);
    expect(r.outcomes).toEqual(["committed", "committed", "committed", "committed"]);
  });
});
