/**
 * bench/stats/proportions — companions for rates: the Wilson score interval, the risk
 * difference and the log risk ratio with the Haldane–Anscombe correction.
 * Imports: nothing.
 */

/** z for a two-sided 95% interval (the 0.975 normal quantile). */
export const Z_95 = 1.959963984540054;

/** Wilson score interval of k successes in n trials; null when n is 0. */
export function wilsonInterval(k: number, n: number, z = Z_95): readonly [number, number] | null {
  if (n <= 0) return null;
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Log risk ratio of a/nA against b/nB with its standard error. */
export interface LogRiskRatio {
  readonly logRr: number;
  readonly se: number;
  /** True when the Haldane–Anscombe correction was applied. */
  readonly corrected: boolean;
}

/**
 * log((a/nA)/(b/nB)) with SE = √(1/a − 1/nA + 1/b − 1/nB). When any count is 0 or equals its
 * n, ½ is added to both counts and both totals (the reference design's form of the
 * Haldane–Anscombe correction), so the ratio and its SE stay finite. Null if a total is 0.
 */
export function logRiskRatio(a: number, nA: number, b: number, nB: number): LogRiskRatio | null {
  if (nA <= 0 || nB <= 0) return null;
  const corrected = a === 0 || b === 0 || a === nA || b === nB;
  const [ca, cnA, cb, cnB] = corrected ? [a + 0.5, nA + 0.5, b + 0.5, nB + 0.5] : [a, nA, b, nB];
  return {
    logRr: Math.log(ca / cnA / (cb / cnB)),
    se: Math.sqrt(Math.max(0, 1 / ca - 1 / cnA + 1 / cb - 1 / cnB)),
    corrected,
  };
}
