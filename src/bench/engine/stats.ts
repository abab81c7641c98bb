/**
 * bench/engine/stats — order statistics of latency samples (milliseconds). Medians and p99
 * use the nearest-rank definition on the sorted samples, so a reported p99 is a latency
 * that was actually observed. Imports: nothing.
 */

/** A latency distribution. */
export interface LatencySummary {
  readonly n: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

/** The nearest-rank `q`-quantile (0 < q ≤ 1) of ascending `sorted`. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Summarises samples (ms); NaN everywhere for an empty set. */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((s, x) => s + x, 0);
  return {
    n: sorted.length,
    medianMs: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    meanMs: sorted.length === 0 ? Number.NaN : total / sorted.length,
    minMs: sorted[0] ?? Number.NaN,
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Milliseconds since `startNs` (a `process.hrtime.bigint()` reading). */
export function elapsedMs(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e6;
}
