/**
 * bench/stats/sign-flip — the exact two-sided sign-flip (paired permutation) test: under the
 * null each difference is equally likely to carry either sign, so the p-value is the share
 * of all 2^S sign vectors whose |mean| is at least the observed |mean| (ties within 1e-15
 * count as at least). Exact enumeration only, so S ≤ 20.
 * Imports: core/errors.
 */
import { IrrevonError } from "../../core/errors.js";

export const SIGN_FLIP_MAX_SEEDS = 20;
const TIE_TOLERANCE = 1e-15;

/** Exact sign-flip p and its floor (the smallest p this S can give). */
export interface SignFlipResult {
  readonly p: number;
  /**
   * 2/2^S: the observed vector and its mirror image always count, so no p below this is
   * possible. (The reference design reported 1/2^S, which understates it.)
   */
  readonly floor: number;
}

export function signFlipTest(differences: readonly number[]): SignFlipResult {
  const s = differences.length;
  if (s < 1 || s > SIGN_FLIP_MAX_SEEDS) {
    throw new IrrevonError("usage", `exact sign-flip needs 1 to ${SIGN_FLIP_MAX_SEEDS} seeds`, {
      details: { field: "seeds", value: s },
    });
  }
  const observed = Math.abs(differences.reduce((sum, d) => sum + d, 0)) / s;
  const vectors = 2 ** s;
  let atLeast = 0;
  for (let mask = 0; mask < vectors; mask += 1) {
    let sum = 0;
    for (let i = 0; i < s; i += 1) {
      const d = differences[i] as number;
      sum += (mask >> i) & 1 ? -d : d;
    }
    if (Math.abs(sum) / s >= observed - TIE_TOLERANCE) atLeast += 1;
  }
  return { p: atLeast / vectors, floor: Math.min(1, 2 / vectors) };
}
