/**
 * IrrevonBench kill rule and verdicts on synthetic runs: identical arms ⇒ `kill-fires` and
 * the verdict says the data cannot separate them; R clearly lower ⇒ `superiority` and
 * `kill-does-not-fire`; equivalence overall but one cell where R is better by at least the
 * gate ⇒ `inconclusive-with-localized-signal`; fewer than two seeds ⇒ `insufficient-seeds`;
 * the gate is required (no default).
 */
import { describe, expect, it } from "vitest";
import { analyzeRuns } from "../../src/bench/analysis/analyze.js";
import { RUN_RESULTS_FORMAT, type RunResult } from "../../src/bench/analysis/run-results.js";
import { METRIC_KEYS, rateCell, type MetricTable } from "../../src/bench/metrics/metric-cells.js";
import { killVerdict, renderVerdict } from "../../src/bench/verdict/verdict.js";

const CELLS = [
  "response-lost",
  "retry-storm",
  "semantic-resynthesis",
  "crash-after-effect-before-response",
].map((f) => `C2/refdest/${f}/IRREVERSIBLE`);
const ARMS = ["R", "B5+B3+B6", "B5"];

function table(rate: number): MetricTable {
  return Object.fromEntries(
    METRIC_KEYS.map((k) => [k, rateCell(Math.round(rate * 100), 100)]),
  ) as unknown as MetricTable;
}
/** rate(arm, cell, replicate) */
function runs(
  rate: (arm: string, cell: string, rep: number) => number,
  reps = [0, 1, 2],
): RunResult[] {
  return ARMS.flatMap((arm) =>
    CELLS.flatMap((cell) =>
      reps.map((rep) => ({
        run_id: `${arm}-${cell}-${rep}`,
        arm,
        cell_id: cell,
        replicate_index: rep,
        validity: "VALID" as const,
        metrics: table(rate(arm, cell, rep)),
      })),
    ),
  );
}
const opts = {
  margin: 0.01,
  c1Margin: 0.005,
  referenceArm: "R",
  compositeArm: "B5+B3+B6",
  b5Arm: "B5",
  c1Arms: [] as string[],
};
function verdictOf(rs: RunResult[], gate = 0.1) {
  return killVerdict(analyzeRuns({ format: RUN_RESULTS_FORMAT, runs: rs }, opts), rs, gate);
}

describe("kill verdict", () => {
  it("fires when R and the composite are identical, and says they cannot be separated", () => {
    const v = verdictOf(runs(() => 0.2));
    expect(v.overall).toBe("kill-fires");
    expect(v.metrics.map((m) => m.verdict)).toEqual([
      "equivalence-kill",
      "equivalence-kill",
      "equivalence-kill",
    ]);
    expect(v.metrics.every((m) => m.indistinguishable)).toBe(true);
    expect(v.statements.join(" ")).toContain("cannot separate R from B5+B3+B6");
    expect(renderVerdict(v)).toContain("worst-cell gate 0.1");
  });

  it("reports superiority and does not fire when R is clearly lower", () => {
    const v = verdictOf(runs((arm, _c, rep) => (arm === "R" ? 0 : 0.3 + rep * 0.01)));
    expect(v.overall).toBe("kill-does-not-fire");
    expect(v.metrics.map((m) => m.verdict)).toEqual(["superiority", "superiority", "superiority"]);
    expect(v.metrics[0]?.large_effect).toBe(true);
    expect(v.statements.join(" ")).toContain("not survival");
  });

  it("is inconclusive with a localized signal when one cell's gap reaches the gate", () => {
    // R is better by 0.04 on average in one cell only (0.12, 0.20, 0.16 against 0.20): per-seed
    // mean differences −0.02, 0, −0.01 are equivalent within 0.04 and not significantly lower,
    // but the gap in that cell reaches a 0.04 gate.
    const rCell0 = [0.12, 0.2, 0.16];
    const rs = runs((arm, cell, rep) =>
      arm === "R" && cell === CELLS[0] ? (rCell0[rep] as number) : 0.2,
    );
    const a = analyzeRuns({ format: RUN_RESULTS_FORMAT, runs: rs }, { ...opts, margin: 0.04 });
    const v = killVerdict(a, rs, 0.04);
    expect(v.overall).toBe("inconclusive-with-localized-signal");
    expect(v.metrics[0]?.worst_cell.fired).toBe(true);
    expect(v.metrics[0]?.worst_cell.per_cell_composite_minus_r[CELLS[0] as string]).toBeCloseTo(
      0.04,
      12,
    );
    expect(v.metrics[0]?.verdict).toBe("inconclusive-with-localized-signal");
  });

  it("never decides on fewer than two seeds", () => {
    const v = verdictOf(runs(() => 0.2, [0]));
    expect(v.overall).toBe("kill-does-not-fire");
    expect(v.metrics.map((m) => m.verdict)).toEqual([
      "insufficient-seeds",
      "insufficient-seeds",
      "insufficient-seeds",
    ]);
  });

  it("requires a positive gate", () => {
    const rs = runs(() => 0.2);
    const a = analyzeRuns({ format: RUN_RESULTS_FORMAT, runs: rs }, opts);
    expect(() => killVerdict(a, rs, 0)).toThrow(/worst_cell_gate/);
  });
});
