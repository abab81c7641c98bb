/**
 * IrrevonBench analysis over synthetic runs: per-seed means over the analysis cells, pairing
 * by replicate, superiority as an intersection–union test with Holm, the kill component,
 * INVALID and marked cells left out, and the C1 registered null.
 */
import { describe, expect, it } from "vitest";
import { analyzeRuns, type AnalysisOptions } from "../../src/bench/analysis/analyze.js";
import { parseRunResults } from "../../src/bench/analysis/run-results.js";
import { C1_CELL, C2_CELLS, matrix, results, runResult } from "./helpers/bench-results.js";

const OPTIONS: AnalysisOptions = {
  margin: 0.01,
  c1Margin: 0.005,
  referenceArm: "R",
  compositeArm: "B5+B3+B6",
  b5Arm: "B5",
  c1Arms: ["B4", "B5"],
};
const ARMS = ["R", "B5+B3+B6", "B5"];

describe("analyzeRuns", () => {
  it("R far below both comparators: superiority rejected, large effect, kill component absent", () => {
    const runs = matrix(ARMS, C2_CELLS, 5, (arm, _cell, r) => (arm === "R" ? 0 : 20 + r));
    const a = analyzeRuns(results(runs), OPTIONS);
    expect(a.confirmatory).toBe(false);
    expect(a.labels).toEqual(["non-confirmatory", "synthetic-destination", "S-REF"]);
    expect(a.inputs.cells).toEqual(C2_CELLS);
    const dup = a.metrics[0];
    expect(dup?.metric).toBe("duplicate_effect_rate");
    expect(dup?.seeds).toEqual([0, 1, 2, 3, 4]);
    // Per-seed composite mean is (20 + r)/60 in every cell; R is 0.
    expect(dup?.vs_composite?.estimate.mean).toBeCloseTo(-22 / 60, 12);
    expect(dup?.holm_rejected).toBe(true);
    expect(dup?.vs_composite?.kill_component).toBe(false);
    expect(dup?.vs_composite?.large_effect.large).toBe(true);
    expect(dup?.vs_composite?.permutation?.p_two_sided).toBe(2 / 32);
  });

  it("R equal to the composite within δ: equivalence, so the kill component holds", () => {
    const runs = matrix(ARMS, C2_CELLS, 6, (arm, cell, r) =>
      arm === "B5" ? 30 : (r + C2_CELLS.indexOf(cell) + (arm === "R" ? 1 : 0)) % 2,
    );
    const dup = analyzeRuns(results(runs), OPTIONS).metrics[0];
    expect(dup?.vs_composite?.tost.equivalent).toBe(true);
    expect(dup?.vs_composite?.kill_component).toBe(true);
    // R beats B5 but not the composite: the intersection–union test does not reject.
    expect(dup?.vs_b5?.p_reference_lower).toBeLessThan(0.001);
    expect(dup?.holm_rejected).toBe(false);
  });

  it("a seed counts only with one VALID run with a value in every cell", () => {
    const runs = matrix(ARMS, C2_CELLS, 4, (arm) => (arm === "R" ? 0 : 10));
    const invalid = runs.map((run) =>
      run.arm === "R" && run.replicate_index === 0 && run.cell_id === C2_CELLS[0]
        ? { ...run, validity: "INVALID" as const }
        : run,
    );
    const a = analyzeRuns(results(invalid), OPTIONS);
    expect(a.metrics[0]?.seeds).toEqual([1, 2, 3]);
    expect(a.inputs.invalid_runs).toBe(1);
    const marked = [
      ...runs.filter(
        (r) => !(r.arm === "B5" && r.replicate_index === 1 && r.cell_id === C2_CELLS[2]),
      ),
      runResult("B5", C2_CELLS[2] as string, 1, 10, { mark: "expected-null" }),
    ];
    expect(analyzeRuns(results(marked), OPTIONS).metrics[0]?.seeds).toEqual([0, 2, 3]);
  });

  it("fewer than 2 shared seeds is reported as insufficient, never as a result", () => {
    const runs = matrix(ARMS, C2_CELLS, 1, () => 1);
    const a = analyzeRuns(results(runs), OPTIONS);
    expect(a.metrics.map((m) => m.status)).toEqual([
      "insufficient-seeds",
      "insufficient-seeds",
      "insufficient-seeds",
    ]);
    expect(a.metrics[0]?.holm_rejected).toBeUndefined();
  });

  it("the C1 registered null reads expected-null duplicate cells", () => {
    const c1 = ["R", "B4", "B5"].flatMap((arm) =>
      Array.from({ length: 5 }, (_, r) => runResult(arm, C1_CELL, r, 0, { mark: "expected-null" })),
    );
    const a = analyzeRuns(results(c1), OPTIONS);
    expect(a.inputs.c1_cells).toEqual([C1_CELL]);
    expect(
      a.registered_null_c1.map((n) => [n.comparator, n.status, n.result?.nullSupported]),
    ).toEqual([
      ["B4", "ok", true],
      ["B5", "ok", true],
    ]);
  });

  it("margins are required and must be positive", () => {
    expect(() => analyzeRuns(results([]), { ...OPTIONS, margin: 0 })).toThrow(/margin/);
    expect(() => analyzeRuns(results([]), { ...OPTIONS, c1Margin: Number.NaN })).toThrow(
      /c1_margin/,
    );
  });

  it("a results document is schema-checked before use", () => {
    expect(() =>
      parseRunResults({ format: "irrevonbench/run-results/v1", runs: [{ arm: "R" }] }),
    ).toThrow(/results document invalid/);
    const run = runResult("R", C1_CELL, 0, 1);
    const zeroFilled = {
      ...run,
      metrics: {
        ...run.metrics,
        compensation_correctness: { numerator: 0, denominator: null, value: null, mark: "N/A" },
      },
    };
    expect(() =>
      parseRunResults({ format: "irrevonbench/run-results/v1", runs: [zeroFilled] }),
    ).toThrow(/results document invalid/);
    expect(parseRunResults(results([run])).runs).toHaveLength(1);
  });
});
