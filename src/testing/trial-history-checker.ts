/**
 * testing/trial-history-checker — the causal-history check of IrrevonBench trials
 * (reference-bench §5.2): one trial's truth, the arm's reported outcome and the effects the
 * read-back attributed to it, checked against the same invariants as the run checker
 * (testing/history-checker). Pure. Imports: testing/history-checker.
 */
import { count, HistoryInvariant, type HistoryViolation } from "./history-checker.js";

// ---- trial histories (IrrevonBench, reference-bench §5.2) -----------------------------------
// The benchmark has no ledger for most arms: what it knows is each trial's fixture truth, what
// the arm reported, and which intent the ground-truth read-back attributed every destination
// effect to. The same invariants apply, keyed by intent instead of operation id.

/** What the fixture says about one trial (oracle labels) and the fault it got. */
export interface TrialTruthFact {
  readonly legitimate: boolean;
  readonly eligibleForDispatch: boolean;
  readonly fault: string | null;
}
/** What an arm reported for one trial. */
export interface TrialOutcomeFact {
  readonly trialIndex: number;
  readonly outcome: string;
  readonly dispatchAttempted: boolean;
  readonly claim: "unique" | "absent" | null;
}
/** One destination effect with the intent key the read-back attributed it to (null: orphan). */
export interface AttributedEffectFact {
  readonly destinationRef: string;
  /** `"<trial index>"`, `"variant:<id>"`, or null when unattributed. */
  readonly intentKey: string | null;
  readonly ambiguous: boolean;
}
export interface TrialHistory {
  readonly trials: ReadonlyMap<number, TrialTruthFact>;
  readonly outcomes: readonly TrialOutcomeFact[];
  readonly effects: readonly AttributedEffectFact[];
}
/** A trial history's verdict: violations plus diagnostics that are not violations. */
export interface TrialHistoryVerdict {
  readonly violations: readonly HistoryViolation[];
  readonly diagnostics: readonly {
    readonly kind: string;
    readonly subject: Record<string, unknown>;
  }[];
  /** Effects per intent key, from the effect events alone. */
  readonly effectsByIntent: ReadonlyMap<string, number>;
}

/**
 * Checks a benchmark trial history in one pass over its events (reference-bench §5.2):
 * duplicate_effect n−1 per intent key with n ≥ 2; orphan_effect per unattributed effect;
 * lost_legitimate_effect per legitimate eligible trial without effect; effect_after_cancellation,
 * unauthorized_effect and effect_despite_pre_persist_crash per trial whose fault forbids the
 * effect yet has one; false_suppression per legitimate eligible trial reported `suppressed`
 * without effect; claim_contradiction per `unique` claim with n ≠ 1 or `absent` claim with n ≠ 0.
 */
export function checkTrialHistory(history: TrialHistory): TrialHistoryVerdict {
  const violations: HistoryViolation[] = [];
  const diagnostics: { kind: string; subject: Record<string, unknown> }[] = [];
  const report = (
    invariant: HistoryInvariant,
    subject: Record<string, unknown>,
    detail: string,
    n = 1,
  ): void => {
    violations.push({ invariant, count: n, subject, detail });
  };
  const effectsByIntent = new Map<string, number>();
  for (const e of history.effects) {
    if (e.ambiguous)
      diagnostics.push({
        kind: "ambiguous-attribution",
        subject: { destination_ref: e.destinationRef },
      });
    if (e.intentKey === null) {
      report(
        HistoryInvariant.orphan_effect,
        { destination_ref: e.destinationRef },
        "destination effect attributed to no intent",
      );
    } else count(effectsByIntent, e.intentKey);
  }
  for (const [key, n] of effectsByIntent) {
    if (n >= 2)
      report(
        HistoryInvariant.duplicate_effect,
        { intent_key: key, effects: n },
        "more than one destination effect for one intent",
        n - 1,
      );
  }
  const outcomeOf = new Map(history.outcomes.map((o) => [o.trialIndex, o]));
  const forbidding: Readonly<Record<string, HistoryInvariant>> = {
    "branch-cancellation": HistoryInvariant.effect_after_cancellation,
    "stale-authorization": HistoryInvariant.unauthorized_effect,
    "crash-before-persist": HistoryInvariant.effect_despite_pre_persist_crash,
  };
  for (const [index, truth] of history.trials) {
    const n = effectsByIntent.get(String(index)) ?? 0;
    const outcome = outcomeOf.get(index);
    const subject = { trial_index: index, effects: n };
    if (truth.legitimate && truth.eligibleForDispatch && n === 0) {
      report(
        HistoryInvariant.lost_legitimate_effect,
        subject,
        "a legitimate eligible trial has no destination effect",
      );
      if (outcome?.outcome === "suppressed")
        report(
          HistoryInvariant.false_suppression,
          subject,
          "a legitimate eligible trial was suppressed and never happened",
        );
    }
    const forbidden = truth.fault === null ? undefined : forbidding[truth.fault];
    if (forbidden !== undefined && n > 0)
      report(
        forbidden,
        { ...subject, fault: truth.fault },
        `an effect exists despite ${truth.fault ?? ""}`,
      );
    if (outcome?.claim === "unique" && n !== 1)
      report(
        HistoryInvariant.claim_contradiction,
        { ...subject, claim: "unique" },
        "claimed unique, destination disagrees",
      );
    if (outcome?.claim === "absent" && n !== 0)
      report(
        HistoryInvariant.claim_contradiction,
        { ...subject, claim: "absent" },
        "claimed absent, destination holds the effect",
      );
    if (n > 0 && outcome !== undefined && !outcome.dispatchAttempted)
      diagnostics.push({ kind: "effect-without-recorded-dispatch", subject });
  }
  return { violations, diagnostics, effectsByIntent };
}
