/**
 * One tiny scenario of the engine benchmark (`npm run bench:engine`), so the harness cannot
 * rot: per-effect cost on PGlite and Postgres, one throughput worker process, the physical
 * limit with one connection. Checks the report's shape and that the counts are counted (a
 * clean effect costs at least one durable commit), never the speed.
 */
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/bench/engine/report.js";
import { runEngineBench } from "../../src/bench/engine/run-engine-bench.js";
import { SKIP_POSTGRES, TEST_PG_URL } from "../support/databases.js";

describe("engine benchmark smoke", () => {
  it("produces a complete report with counted commits and judged targets", async () => {
    const report = await runEngineBench({
      postgresUrl: SKIP_POSTGRES ? null : TEST_PG_URL,
      effects: 4,
      warmup: 1,
      workers: [1],
      throughputMs: 300,
      physicalConnections: [1],
      physicalMs: 200,
      command: "test/contract/bench-smoke.test.ts",
    });
    expect(report.format).toBe("irrevon-bench-engine/v1");
    const backends = report.perEffect.map((p) => p.backend);
    expect(backends).toEqual(SKIP_POSTGRES ? ["pglite"] : ["pglite", "postgres"]);
    for (const p of report.perEffect) {
      expect(p.guarded.n).toBe(4);
      expect(p.direct.n).toBe(4);
      expect(Number.isFinite(p.guarded.medianMs) && p.guarded.medianMs > 0).toBe(true);
      expect(p.commitsPerEffect.durableLedger).toBeGreaterThanOrEqual(1);
      // Each durable commit is an explicit transaction or a statement run on its own
      // (the hot path's steps are single autocommit statements).
      expect(
        p.commitsPerEffect.transactions + p.commitsPerEffect.standaloneStatements,
      ).toBeGreaterThanOrEqual(p.commitsPerEffect.durableLedger);
      expect(p.floor.durableInsert.n).toBeGreaterThan(0);
      if (p.backend === "postgres") expect(p.commitsPerEffect.xactCommit).toBeGreaterThan(0);
    }
    if (!SKIP_POSTGRES) {
      expect(report.throughput).toHaveLength(1);
      expect(report.throughput[0]?.effects).toBeGreaterThan(0);
      expect(report.throughput[0]?.errors).toBe(0);
      expect(report.physicalLimit[0]?.commits).toBeGreaterThan(0);
    }
    expect(report.targets.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "durable commits per clean effect (pglite)",
        "guarded-effect cost vs two durable commits (pglite)",
      ]),
    );
    const md = renderMarkdown(report);
    expect(md).toContain("## Targets");
    expect(md).toContain("| guarded effect (register + dispatch) |");
    expect(() => JSON.parse(JSON.stringify(report)) as unknown).not.toThrow();
  }, 120_000);
});
