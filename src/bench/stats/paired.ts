/**
 * bench/stats/paired — tests on paired differences (one difference per seed, arm A minus
 * arm B): the Student-t estimate with its confidence interval, the two one-sided tests of
 * equivalence (TOST), and the one-sided tests superiority and the kill rule use.
 *
 * Conventions when every difference is equal (standard error 0), kept from the reference
 * design so verdicts agree: t = ±∞ (0 when the mean is 0); the two-sided p is 0 unless the
 * mean is 0 (then 1); the interval is [mean, mean]; TOST is equivalent iff −δ < mean < δ,
 * with both p 0 inside and 1 outside; the one-sided "A lower" p is 0 iff mean < 0.
 * Margins are required arguments with no default, and must be > 0.
 * Imports: core/errors, bench/stats/student-t.
 */
import { IrrevonError } from "../../core/errors.js";
import { studentTCdf, studentTQuantile } from "./student-t.js";

/** The Student-t summary of paired differences. */
export interface PairedEstimate {
  readonly n: number;
  readonly mean: number;
  readonly sd: number;
  readonly se: number;
  readonly t: number;
  readonly df: number;
  readonly pTwoSided: number;
  /** Confidence interval of the mean difference at `confidence`. */
  readonly ci: readonly [number, number];
  readonly confidence: number;
}

function usage(message: string, details: Record<string, unknown>): IrrevonError {
  return new IrrevonError("usage", message, { details });
}

function summary(differences: readonly number[]): {
  n: number;
  mean: number;
  sd: number;
  se: number;
} {
  const n = differences.length;
  if (n < 2) throw usage("a paired test needs at least 2 seeds", { field: "seeds", value: n });
  if (!differences.every(Number.isFinite))
    throw usage("differences must be finite numbers", { field: "differences" });
  // Equal differences have SE exactly 0; summing them could leave a rounding residue.
  if (differences.every((d) => d === differences[0])) {
    return { n, mean: differences[0] as number, sd: 0, se: 0 };
  }
  const mean = differences.reduce((s, d) => s + d, 0) / n;
  const ss = differences.reduce((s, d) => s + (d - mean) ** 2, 0);
  const sd = Math.sqrt(ss / (n - 1));
  return { n, mean, sd, se: sd / Math.sqrt(n) };
}

/** Paired Student-t: mean difference, t, df = n − 1, two-sided p and the CI. */
export function pairedT(differences: readonly number[], confidence = 0.95): PairedEstimate {
  const { n, mean, sd, se } = summary(differences);
  const df = n - 1;
  if (se === 0) {
    const t = mean === 0 ? 0 : mean > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    return { n, mean, sd, se, t, df, pTwoSided: mean === 0 ? 1 : 0, ci: [mean, mean], confidence };
  }
  const t = mean / se;
  const pTwoSided = Math.min(1, 2 * studentTCdf(-Math.abs(t), df));
  const half = studentTQuantile(1 - (1 - confidence) / 2, df) * se;
  return { n, mean, sd, se, t, df, pTwoSided, ci: [mean - half, mean + half], confidence };
}

/** Result of two one-sided tests of equivalence within (−margin, margin). */
export interface TostResult {
  readonly margin: number;
  readonly alpha: number;
  readonly equivalent: boolean;
  /** p of H0: mean ≤ −margin. */
  readonly pLower: number;
  /** p of H0: mean ≥ margin. */
  readonly pUpper: number;
  /** The (1 − 2α) interval; equivalence ⇔ it lies inside (−margin, margin). */
  readonly ci: readonly [number, number];
}

/** Throws `usage` unless `margin` is a finite number > 0. */
export function requirePositiveMargin(margin: number, name: string): void {
  if (!(Number.isFinite(margin) && margin > 0)) {
    throw usage(`${name} must be a number > 0`, { field: name, value: margin });
  }
}

/** TOST at level `alpha` (no multiplicity adjustment). Equivalent iff both p < alpha. */
export function tost(differences: readonly number[], margin: number, alpha = 0.05): TostResult {
  requirePositiveMargin(margin, "margin");
  const { n, mean, se } = summary(differences);
  const df = n - 1;
  if (se === 0) {
    const inside = -margin < mean && mean < margin;
    const p = inside ? 0 : 1;
    return { margin, alpha, equivalent: inside, pLower: p, pUpper: p, ci: [mean, mean] };
  }
  const pLower = 1 - studentTCdf((mean + margin) / se, df);
  const pUpper = studentTCdf((mean - margin) / se, df);
  const half = studentTQuantile(1 - alpha, df) * se;
  return {
    margin,
    alpha,
    equivalent: pLower < alpha && pUpper < alpha,
    pLower,
    pUpper,
    ci: [mean - half, mean + half],
  };
}

/** One-sided p of H0: mean ≥ 0 against H1: mean < 0 (arm A lower than arm B). */
export function pLower(differences: readonly number[]): number {
  const { n, mean, se } = summary(differences);
  if (se === 0) return mean < 0 ? 0 : 1;
  return studentTCdf(mean / se, n - 1);
}

/** One-sided p of H0: mean ≤ 0 against H1: mean > 0 (arm B lower than arm A). */
export function pHigher(differences: readonly number[]): number {
  const { n, mean, se } = summary(differences);
  if (se === 0) return mean > 0 ? 0 : 1;
  return 1 - studentTCdf(mean / se, n - 1);
}

/**
 * Non-inferiority of A against B within `margin`: p of H0: mean ≥ margin (A worse by at
 * least the margin) against H1: mean < margin.
 */
export function pNonInferior(differences: readonly number[], margin: number): number {
  requirePositiveMargin(margin, "margin");
  const { n, mean, se } = summary(differences);
  if (se === 0) return mean < margin ? 0 : 1;
  return studentTCdf((mean - margin) / se, n - 1);
}

/**
 * Intersection–union test: "A beats every comparator" is rejected only when every
 * component rejects, so its p is the largest component p (no multiplicity cost).
 */
export function intersectionUnionP(pValues: readonly number[]): number {
  if (pValues.length === 0)
    throw usage("an intersection–union test needs at least one p", { field: "p" });
  return Math.max(...pValues);
}
