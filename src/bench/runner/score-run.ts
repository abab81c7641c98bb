/**
 * bench/runner/score-run — joins a workload's truth with an arm's trial reports and the
 * read-back into the metrics module's input, and scores the run. Imports: bench/fixtures,
 * bench/metrics, bench/oracles, bench/arms/arm (types).
 */
import type { TrialReport } from "../arms/arm.js";
import type { Workload } from "../fixtures/documents.js";
import type { MetricTable } from "../metrics/metric-cells.js";
import {
  scoreUnit,
  type ArmScoringFlags,
  type Readback,
  type ScoredTrial,
} from "../metrics/score-unit.js";
import { reportCompensation } from "../oracles/history.js";

/** Fixture truth joined with each trial's report (a trial without a report is `arm-crashed`). */
export function scoredTrials(workload: Workload, reports: readonly TrialReport[]): ScoredTrial[] {
  const byIndex = new Map(reports.map((r) => [r.trial_index, r]));
  return workload.trials.map((t) => {
    const r = byIndex.get(t.trial_index);
    return {
      trial_index: t.trial_index,
      legitimate: t.legitimate,
      eligible_for_dispatch: t.eligible_for_dispatch,
      arm_outcome: r?.arm_outcome ?? "arm-crashed",
      oracle_claim: r?.detail.oracle_claim ?? null,
      compensation: r === undefined ? null : reportCompensation(r),
    };
  });
}

/** The eight metric cells of one run. */
export function scoreRun(
  workload: Workload,
  flags: ArmScoringFlags,
  trials: readonly ScoredTrial[],
  readback: Readback,
): MetricTable {
  return scoreUnit({
    tier: workload.cell.tier,
    fault: workload.cell.fault,
    arm: flags,
    trials,
    readback,
  });
}
