/**
 * bench/oracles/cross-check — re-derives ALL EIGHT metric cells from the causal history alone
 * and compares them, field by field (numerator, denominator, value, mark), with the cells the
 * metrics module computed from the read-back and the arm's reports (D10; the reference checked
 * five). Any discrepancy makes the run INVALID `harness-corruption`.
 *
 * | metric | from the history |
 * | duplicate_effect_rate | H1 (duplicate_effect) counts on eligible trial keys / eligible trials |
 * | orphaned_effect_rate | H2 (orphan_effect) / effect events |
 * | lost_legitimate_effect_rate | H3 (lost_legitimate_effect) / legitimate ∧ eligible trials |
 * | false_suppression_rate | H6 (false_suppression) / legitimate ∧ eligible trials |
 * | unresolved_ambiguous_rate | `ambiguous-unresolved` outcome events / trials (N/A-by-arm without the concept) |
 * | false_reconciliation_rate | H7 (claim_contradiction) / claim-bearing outcome events (N/A-by-arm unless it classifies) |
 * | human_review_rate | `escalated` outcome events / trials |
 * | compensation_correctness | correct / attempted compensation events (N/A when none) |
 * Imports: testing/history-checker (via oracles/history), bench/metrics.
 */
import {
  METRIC_KEYS,
  type MetricCell,
  type MetricKey,
  type MetricTable,
} from "../metrics/metric-cells.js";
import { checkHistoryDocument, type HistoryDocument } from "./history.js";

export interface CrossCheckDiscrepancy {
  readonly metric: MetricKey;
  readonly field: "numerator" | "denominator" | "value" | "mark";
  readonly metric_value: number | string | null;
  readonly history_value: number | string | null;
}

type Expected = {
  readonly numerator: number | null;
  readonly denominator: number | null;
  readonly mark: string | null;
};

const C1_NULL_FAULTS = new Set([
  "retry-storm",
  "response-lost",
  "crash-after-effect-before-response",
]);

function rate(numerator: number, denominator: number, mark: string | null = null): Expected {
  return denominator > 0
    ? { numerator, denominator, mark }
    : { numerator: null, denominator: null, mark: "N/A" };
}
const empty = (mark: string): Expected => ({ numerator: null, denominator: null, mark });

/** The eight cells as the history alone says they must be. */
export function cellsFromHistory(doc: HistoryDocument): Record<MetricKey, Expected> {
  const verdict = checkHistoryDocument(doc);
  const truth = Object.entries(doc.trials_truth);
  const eligible = new Set(truth.filter(([, t]) => t.eligible_for_dispatch).map(([k]) => k));
  const legitimate = truth.filter(([, t]) => t.eligible_for_dispatch && t.legitimate).length;
  const n = truth.length;
  const sum = (
    invariant: string,
    keep: (subject: Record<string, unknown>) => boolean = () => true,
  ): number =>
    verdict.violations
      .filter((v) => v.invariant === invariant && keep(v.subject))
      .reduce((s, v) => s + v.count, 0);
  const outcomes = doc.events.flatMap((e) => (e.source === "arm-outcome" ? [e] : []));
  const effectEvents = doc.events.filter((e) => e.source === "destination").length;
  const c3 = doc.tier === "C3" ? "fixture-truth-only" : null;
  const expectedNull =
    doc.tier === "C1" && doc.arm.sends_stable_key && C1_NULL_FAULTS.has(doc.fault)
      ? "expected-null"
      : null;
  const compensations = outcomes.filter((o) => o.compensation?.attempted === true);
  return {
    duplicate_effect_rate: rate(
      sum("duplicate_effect", (s) => eligible.has(String(s["intent_key"]))),
      eligible.size,
      expectedNull,
    ),
    orphaned_effect_rate: rate(sum("orphan_effect"), effectEvents, c3),
    lost_legitimate_effect_rate: rate(sum("lost_legitimate_effect"), legitimate, c3),
    false_suppression_rate: rate(sum("false_suppression"), legitimate),
    unresolved_ambiguous_rate: doc.arm.ambiguity_concept
      ? rate(outcomes.filter((o) => o.outcome === "ambiguous-unresolved").length, n)
      : empty("N/A-by-arm"),
    false_reconciliation_rate: doc.arm.classifies
      ? rate(sum("claim_contradiction"), outcomes.filter((o) => o.oracle_claim !== null).length)
      : empty("N/A-by-arm"),
    human_review_rate: rate(outcomes.filter((o) => o.outcome === "escalated").length, n),
    compensation_correctness: rate(
      compensations.filter((o) => o.compensation?.correct === true).length,
      compensations.length,
    ),
  };
}

/** Every field where the metrics and the history disagree; empty means the run is consistent. */
export function crossCheckMetrics(
  metrics: MetricTable,
  doc: HistoryDocument,
): CrossCheckDiscrepancy[] {
  const expected = cellsFromHistory(doc);
  const out: CrossCheckDiscrepancy[] = [];
  for (const metric of METRIC_KEYS) {
    const got: MetricCell = metrics[metric];
    const want = expected[metric];
    const wantValue =
      want.numerator === null || want.denominator === null
        ? null
        : want.numerator / want.denominator;
    const pairs: [
      CrossCheckDiscrepancy["field"],
      number | string | null,
      number | string | null,
    ][] = [
      ["numerator", got.numerator, want.numerator],
      ["denominator", got.denominator, want.denominator],
      ["value", got.value, wantValue],
      ["mark", got.mark, want.mark],
    ];
    for (const [field, a, b] of pairs)
      if (a !== b) out.push({ metric, field, metric_value: a, history_value: b });
  }
  return out;
}
