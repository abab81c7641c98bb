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
      busyScopeEffects: 6,
      busyScopeWindow: 2,
      command: "test/contract/bench-smoke.test.ts",
    });
    expect(report.format).toBe("irrevon-bench-engine/v1");
    const backends = report.perEffect.map((p) => p.backend);
    expect(backends).toEqual(SKIP_POSTGRES ? ["pglite"] : ["pglite", "postgres"]);
    for (const p of report.perEffect) {
      expect(p.direct.n).toBe(4);
      // The judged path (fused) and the two-call path, each measured and counted on its own.
      for (const path of [p, p.twoCall]) {
        expect(path.guarded.n).toBe(4);
        expect(Number.isFinite(path.guarded.medianMs) && path.guarded.medianMs > 0).toBe(true);
        expect(path.commitsPerEffect.durableLedger).toBeGreaterThanOrEqual(1);
        // Each durable commit is an explicit transaction or a statement run on its own.
        expect(
          path.commitsPerEffect.transactions + path.commitsPerEffect.standaloneStatements,
        ).toBeGreaterThanOrEqual(path.commitsPerEffect.durableLedger);
        if (p.backend === "postgres") expect(path.commitsPerEffect.xactCommit).toBeGreaterThan(0);
      }
      // The fused path holds registration and claim in one transaction; two calls do not.
      expect(p.commitsPerEffect.transactions).toBe(1);
      expect(p.twoCall.commitsPerEffect.transactions).toBe(0);
      expect(p.floor.durableInsert.n).toBeGreaterThan(0);
    }
    if (!SKIP_POSTGRES) {
      expect(report.throughput).toHaveLength(1);
      expect(report.throughput[0]?.effects).toBeGreaterThan(0);
      expect(report.throughput[0]?.errors).toBe(0);
      // CPU per effect: the workers' own accounting, and the local server's from /proc.
      expect(report.throughput[0]?.engineCpuMsPerEffect).toBeGreaterThan(0);
      const server = report.throughput[0]?.serverCpuMsPerEffect;
      if (server !== null) expect(server).toBeGreaterThan(0);
      expect(report.physicalLimit[0]?.commits).toBeGreaterThan(0);
    }
    expect(report.targets.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "durable commits per clean effect (pglite, registerAndDispatch)",
        "guarded-effect cost vs two durable commits (pglite, registerAndDispatch)",
        "clean guarded effect as two calls, register then dispatch (pglite)",
        // PGlite has no wire: its calls are reported, the round-trip goal is judged on a server.
        "calls into the embedded database per clean effect (pglite, registerAndDispatch)",
        ...(SKIP_POSTGRES ? [] : ["round trips per clean effect (postgres, registerAndDispatch)"]),
        "guarded effect in one busy scope (pglite, registerAndDispatch)",
      ]),
    );
    // The busy-scope row is judged (met or not), with both windows measured.
    const busy = report.targets.find((t) => t.name.startsWith("guarded effect in one busy scope"));
    expect(typeof busy?.met).toBe("boolean");
    expect(busy?.measured).toMatch(/^first 2: \d+\.\d{3} ms, last 2: \d+\.\d{3} ms/);
    const md = renderMarkdown(report);
    expect(md).toContain("## Targets");
    expect(md).toContain("| guarded effect, registerAndDispatch (fused) |");
    expect(md).toContain("| guarded effect, register + dispatch (two calls) |");
    expect(md).toContain("## One busy scope");
    expect(() => JSON.parse(JSON.stringify(report)) as unknown).not.toThrow();
  }, 120_000);
});
