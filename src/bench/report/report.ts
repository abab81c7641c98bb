/**
 * bench/report/report — the report document of a results directory
 * (`irrevonbench/report/v1`): run accounting, the pooled rate of every metric per arm per cell
 * (Σ numerators / Σ denominators over VALID runs, 95% Wilson; a cell without a value stays
 * `N/A (<marks>)`, never zero), the analysis and the kill verdict for each reference backend,
 * and the bench's own wall time. Pure: the CLI reads and writes files.
 * Imports: bench/{analysis,metrics,verdict}.
 */
import { analyzeRuns, type Analysis, type AnalysisOptions } from "../analysis/analyze.js";
import type { RunResults } from "../analysis/run-results.js";
import { METRIC_KEYS, type MetricKey } from "../metrics/metric-cells.js";
import { poolCells, type PooledCell } from "../metrics/pool.js";
import { killVerdict, type Verdict } from "../verdict/verdict.js";

export const REPORT_FORMAT = "irrevonbench/report/v1";

export interface ReportInputs {
  readonly margin: number;
  readonly c1Margin: number;
  readonly gate: number;
  /** Reference arms to analyse (e.g. R@pglite, R@postgres); those without runs are skipped. */
  readonly referenceArms: readonly string[];
  readonly compositeArm: string;
  readonly b5Arm: string;
  readonly c1Arms: readonly string[];
}

export interface ReportDocument {
  readonly format: typeof REPORT_FORMAT;
  readonly confirmatory: false;
  readonly labels: readonly string[];
  readonly generated_at: string;
  readonly inputs: ReportInputs;
  readonly run: {
    readonly wall_time_s: number | null;
    readonly slots: number | null;
    readonly environment_digest: string | null;
    readonly manifest_root_hash: string | null;
    /** The fixture split the runs are from (its manifest id); null when not recorded. */
    readonly manifest_id: string | null;
  };
  readonly accounting: {
    readonly runs: number;
    readonly valid: number;
    readonly invalid: number;
    readonly invalid_run_ids: readonly string[];
  };
  readonly arms: readonly string[];
  readonly cells: readonly string[];
  /** table[metric][arm][cell] */
  readonly table: Readonly<
    Record<MetricKey, Readonly<Record<string, Readonly<Record<string, PooledCell>>>>>
  >;
  readonly analyses: readonly {
    readonly reference_arm: string;
    readonly analysis: Analysis;
    readonly verdict: Verdict;
  }[];
}

/** Builds the report from the run results and the (required) statistical inputs. */
export function buildReport(
  results: RunResults,
  inputs: ReportInputs,
  run: ReportDocument["run"],
  now = new Date(),
): ReportDocument {
  const runs = results.runs;
  const arms = [...new Set(runs.map((r) => r.arm))];
  const cells = [...new Set(runs.map((r) => r.cell_id))].sort();
  const table = Object.fromEntries(
    METRIC_KEYS.map((metric) => [
      metric,
      Object.fromEntries(
        arms.map((arm) => [
          arm,
          Object.fromEntries(
            cells.map((cell) => [
              cell,
              poolCells(
                runs
                  .filter((r) => r.arm === arm && r.cell_id === cell)
                  .map((r) => ({ valid: r.validity === "VALID", cell: r.metrics[metric] })),
              ),
            ]),
          ),
        ]),
      ),
    ]),
  ) as ReportDocument["table"];
  const analyses = inputs.referenceArms
    .filter((arm) => arms.includes(arm))
    .map((arm) => {
      const options: AnalysisOptions = {
        margin: inputs.margin,
        c1Margin: inputs.c1Margin,
        referenceArm: arm,
        compositeArm: inputs.compositeArm,
        b5Arm: inputs.b5Arm,
        c1Arms: inputs.c1Arms,
      };
      const analysis = analyzeRuns(results, options);
      return { reference_arm: arm, analysis, verdict: killVerdict(analysis, runs, inputs.gate) };
    });
  const invalid = runs.filter((r) => r.validity === "INVALID");
  return {
    format: REPORT_FORMAT,
    confirmatory: false,
    labels: analyses[0]?.analysis.labels ?? ["non-confirmatory"],
    generated_at: now.toISOString(),
    inputs,
    run,
    accounting: {
      runs: runs.length,
      valid: runs.length - invalid.length,
      invalid: invalid.length,
      invalid_run_ids: invalid.map((r) => r.run_id),
    },
    arms,
    cells,
    table,
    analyses,
  };
}
