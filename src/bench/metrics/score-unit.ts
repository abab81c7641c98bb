/**
 * bench/metrics/score-unit — the eight metrics of one run (one workload × one arm) from the
 * fixture's truth, the arm's trial reports and the ground-truth read-back. Pure: no I/O.
 *
 * Notation: N = the workload's trials; E = eligible trials; L = trials that are legitimate
 * and eligible; c(i) = effects the read-back attributed to trial i.
 *
 * | metric | numerator / denominator | mark |
 * | duplicate_effect_rate | Σ_{i∈E} max(0, c(i) − 1) / |E| | expected-null on C1 under
 *   response-lost, retry-storm or crash-after-effect, for arms that send a stable
 *   idempotency key |
 * | orphaned_effect_rate | unattributed effects (ambiguous attributions included) / all
 *   effects | fixture-truth-only on C3 |
 * | lost_legitimate_effect_rate | #{i∈L: c(i) = 0} / |L| | fixture-truth-only on C3 |
 * | false_suppression_rate | #{i∈L: outcome suppressed ∧ c(i) = 0} / |L| | |
 * | unresolved_ambiguous_rate | #ambiguous-unresolved / N | N/A-by-arm without an ambiguity concept |
 * | false_reconciliation_rate | wrong claims / claims | N/A-by-arm unless the arm classifies |
 * | human_review_rate | #escalated / N | |
 * | compensation_correctness | correct / attempted compensations | N/A when none attempted |
 *
 * Two deliberate changes from the reference design (format `irrevonbench/metrics/v2`):
 * 1. Unresolved and human-review rates are over N, fixed by the fixture; the reference
 *    divided by the number of trials the arm itself reported as dispatched, so an arm that
 *    reported fewer dispatches looked worse or better at will.
 * 2. `expected-null` marks only arms that send a stable idempotency key; the reference
 *    marked the whole C1 cell, hiding the real duplicates of an arm that sends a fresh key
 *    on every attempt.
 * Imports: bench/fault-model, bench/metrics/metric-cells.
 */
import type { ArmOutcome, ArmScoringFlags, FaultKind, Tier } from "../fault-model.js";
import { emptyCell, rateCell, type MetricCell, type MetricTable } from "./metric-cells.js";

export const METRICS_FORMAT = "irrevonbench/metrics/v2";

// The outcome vocabulary and the scoring flags live with the arm-neutral vocabulary
// (bench/fault-model), so arms can name them without importing metrics.
export { ARM_OUTCOMES } from "../fault-model.js";
export type { ArmOutcome, ArmScoringFlags } from "../fault-model.js";

/** One trial: fixture truth joined with the arm's report. */
export interface ScoredTrial {
  readonly trial_index: number;
  readonly legitimate: boolean;
  readonly eligible_for_dispatch: boolean;
  readonly arm_outcome: ArmOutcome;
  readonly oracle_claim: "unique" | "absent" | null;
  readonly compensation: { readonly attempted: boolean; readonly correct: boolean } | null;
}

/** The ground-truth read-back of the destination after the run. */
export interface Readback {
  readonly total_effects: number;
  /** Unattributed effects, ambiguous attributions included. */
  readonly orphan_effect_count: number;
  /** Effects per intent key: `"<trial index>"` or `"variant:<id>"`. */
  readonly per_intent_effect_counts: Readonly<Record<string, number>>;
}

export interface UnitScoringInput {
  readonly tier: Tier;
  readonly fault: FaultKind;
  readonly arm: ArmScoringFlags;
  readonly trials: readonly ScoredTrial[];
  readonly readback: Readback;
}

/** Faults whose C1 duplicate rate is expected to be null for a stable-key arm. */
const C1_EXPECTED_NULL_FAULTS: readonly FaultKind[] = [
  "retry-storm",
  "response-lost",
  "crash-after-effect-before-response",
];

function count<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  return items.reduce((n, item) => (predicate(item) ? n + 1 : n), 0);
}

/** Scores one run. */
export function scoreUnit(input: UnitScoringInput): MetricTable {
  const { trials, readback, arm, tier, fault } = input;
  const effects = (t: ScoredTrial): number =>
    readback.per_intent_effect_counts[String(t.trial_index)] ?? 0;
  const eligible = trials.filter((t) => t.eligible_for_dispatch);
  const legitimate = eligible.filter((t) => t.legitimate);
  const c3 = tier === "C3" ? "fixture-truth-only" : null;
  const expectedNull =
    tier === "C1" && arm.sendsStableKey && C1_EXPECTED_NULL_FAULTS.includes(fault)
      ? "expected-null"
      : null;

  const duplicates = eligible.reduce((n, t) => n + Math.max(0, effects(t) - 1), 0);
  const lost = count(legitimate, (t) => effects(t) === 0);
  const falselySuppressed = count(
    legitimate,
    (t) => t.arm_outcome === "suppressed" && effects(t) === 0,
  );
  const claims = trials.filter((t) => t.oracle_claim !== null);
  const wrongClaims = count(claims, (t) =>
    t.oracle_claim === "unique" ? effects(t) !== 1 : effects(t) !== 0,
  );
  const compensations = trials.filter((t) => t.compensation?.attempted === true);

  const unresolved: MetricCell = arm.ambiguityConcept
    ? rateCell(
        count(trials, (t) => t.arm_outcome === "ambiguous-unresolved"),
        trials.length,
      )
    : emptyCell("N/A-by-arm");
  const falseReconciliation: MetricCell = arm.classifies
    ? rateCell(wrongClaims, claims.length)
    : emptyCell("N/A-by-arm");

  return {
    duplicate_effect_rate: rateCell(duplicates, eligible.length, expectedNull),
    orphaned_effect_rate: rateCell(readback.orphan_effect_count, readback.total_effects, c3),
    lost_legitimate_effect_rate: rateCell(lost, legitimate.length, c3),
    false_suppression_rate: rateCell(falselySuppressed, legitimate.length),
    unresolved_ambiguous_rate: unresolved,
    false_reconciliation_rate: falseReconciliation,
    human_review_rate: rateCell(
      count(trials, (t) => t.arm_outcome === "escalated"),
      trials.length,
    ),
    compensation_correctness: rateCell(
      count(compensations, (t) => t.compensation?.correct === true),
      compensations.length,
    ),
  };
}
