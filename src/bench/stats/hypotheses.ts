/**
 * bench/stats/hypotheses — the two pre-registered rules the reference design stated but
 * never implemented:
 *
 * - the "large effect" rule: the reference arm's relative risk reduction against the
 *   composite baseline is at least 50% AND the lower bound of the 95% interval of the
 *   absolute reduction exceeds the equivalence margin δ;
 * - the registered null on C1 (native idempotency keys): the reference arm shows no
 *   duplicate-rate advantage over a native-idempotency arm — TOST equivalence within
 *   ±δ_C1 at α = 0.05, plus a non-inferiority guard (not worse by δ_C1) at α = 0.025.
 *   Both are reported uncorrected.
 *
 * Differences are per seed, reference minus comparator (negative = the reference is lower).
 * Imports: bench/stats/paired.
 */
import { pairedT, pNonInferior, requirePositiveMargin, tost, type TostResult } from "./paired.js";

export const LARGE_EFFECT_MIN_RELATIVE_REDUCTION = 0.5;

export interface LargeEffect {
  /** 1 − mean(reference)/mean(comparator); null when the comparator's mean rate is 0. */
  readonly relativeRiskReduction: number | null;
  /** Lower bound of the 95% CI of mean(comparator − reference). */
  readonly absoluteReductionCiLower: number;
  readonly margin: number;
  readonly large: boolean;
}

/**
 * The large-effect rule over per-seed rates of the reference arm and the comparator
 * (aligned by seed).
 */
export function largeEffect(
  referenceRates: readonly number[],
  comparatorRates: readonly number[],
  margin: number,
): LargeEffect {
  requirePositiveMargin(margin, "margin");
  const differences = referenceRates.map((r, i) => r - (comparatorRates[i] as number));
  const estimate = pairedT(differences, 0.95);
  const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
  const comparatorMean = mean(comparatorRates);
  const relativeRiskReduction =
    comparatorMean > 0 ? 1 - mean(referenceRates) / comparatorMean : null;
  const absoluteReductionCiLower = -estimate.ci[1];
  return {
    relativeRiskReduction,
    absoluteReductionCiLower,
    margin,
    large:
      relativeRiskReduction !== null &&
      relativeRiskReduction >= LARGE_EFFECT_MIN_RELATIVE_REDUCTION &&
      absoluteReductionCiLower > margin,
  };
}

export const H0_C1_TOST_ALPHA = 0.05;
export const H0_C1_NON_INFERIORITY_ALPHA = 0.025;

export interface RegisteredNullC1 {
  readonly tost: TostResult;
  /** p of H0: the reference is worse than the comparator by at least δ_C1. */
  readonly pNonInferior: number;
  /** True when equivalence holds and non-inferiority is shown: no advantage, no harm. */
  readonly nullSupported: boolean;
}

/** The C1 registered null against one native-idempotency comparator. */
export function registeredNullC1(
  differences: readonly number[],
  c1Margin: number,
): RegisteredNullC1 {
  requirePositiveMargin(c1Margin, "c1_margin");
  const equivalence = tost(differences, c1Margin, H0_C1_TOST_ALPHA);
  const p = pNonInferior(differences, c1Margin);
  return {
    tost: equivalence,
    pNonInferior: p,
    nullSupported: equivalence.equivalent && p < H0_C1_NON_INFERIORITY_ALPHA,
  };
}
