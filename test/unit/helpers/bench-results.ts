/**
 * Builders of synthetic `irrevonbench/run-results/v1` documents for analysis tests: every
 * metric cell is a rate out of `trials`, and `rate(arm, cell, replicate)` picks the primary
 * metrics' numerators.
 */
import {
  emptyCell,
  METRIC_KEYS,
  rateCell,
  type MetricCell,
} from "../../../src/bench/metrics/metric-cells.js";
import type { RunResult, RunResults } from "../../../src/bench/analysis/run-results.js";

export const C2_CELLS = [
  "C2/refdest/crash-after-effect-before-response/IRREVERSIBLE",
  "C2/refdest/response-lost/IRREVERSIBLE",
  "C2/refdest/retry-storm/IRREVERSIBLE",
  "C2/refdest/semantic-resynthesis/IRREVERSIBLE",
];
export const C1_CELL = "C1/refdest/response-lost/IRREVERSIBLE";

export function runResult(
  arm: string,
  cellId: string,
  replicate: number,
  numerator: number,
  options: { trials?: number; validity?: "VALID" | "INVALID"; mark?: "expected-null" | null } = {},
): RunResult {
  const trials = options.trials ?? 60;
  const metrics = Object.fromEntries(
    METRIC_KEYS.map((key): [string, MetricCell] => {
      if (key === "duplicate_effect_rate")
        return [key, rateCell(numerator, trials, options.mark ?? null)];
      if (key === "orphaned_effect_rate" || key === "lost_legitimate_effect_rate")
        return [key, rateCell(numerator, trials)];
      if (key === "compensation_correctness") return [key, emptyCell("N/A")];
      return [key, rateCell(0, trials)];
    }),
  ) as unknown as RunResult["metrics"];
  return {
    run_id: `run_${cellId}.${replicate}.${arm}`,
    arm,
    cell_id: cellId,
    replicate_index: replicate,
    validity: options.validity ?? "VALID",
    metrics,
  };
}

/** Runs for arms × cells × replicates with numerators from `count`. */
export function matrix(
  arms: readonly string[],
  cells: readonly string[],
  replicates: number,
  count: (arm: string, cell: string, replicate: number) => number,
): RunResult[] {
  return arms.flatMap((arm) =>
    cells.flatMap((cell) =>
      Array.from({ length: replicates }, (_, r) => runResult(arm, cell, r, count(arm, cell, r))),
    ),
  );
}

export function results(runs: readonly RunResult[]): RunResults {
  return { format: "irrevonbench/run-results/v1", runs };
}
