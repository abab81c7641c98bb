/**
 * bench/metrics/pool — pooling one metric over the VALID runs of one arm in one cell:
 * Σ numerators / Σ denominators over the cells that have a value, with a Wilson interval.
 * Cells without a value contribute nothing and are never counted as zero; when no cell has
 * a value the pooled cell has none either, and it keeps the marks that explain why.
 * INVALID runs are excluded by the caller's `valid` flag, never silently.
 * Imports: bench/metrics/metric-cells, bench/stats/proportions.
 */
import { wilsonInterval } from "../stats/proportions.js";
import { isNumeric, type MetricCell, type Mark } from "./metric-cells.js";

export interface PooledCell {
  readonly pooled_rate: number | null;
  readonly numerator: number | null;
  readonly denominator: number | null;
  readonly wilson_95: readonly [number, number] | null;
  /** Every distinct mark among the pooled runs' cells, sorted. */
  readonly marks: readonly Mark[];
  /** Runs whose cell had a value / runs whose cell had none. */
  readonly runs_with_value: number;
  readonly runs_without_value: number;
}

/** Pools the cells of VALID runs. */
export function poolCells(
  cells: readonly { readonly valid: boolean; readonly cell: MetricCell }[],
): PooledCell {
  let numerator = 0;
  let denominator = 0;
  let withValue = 0;
  let withoutValue = 0;
  const marks = new Set<Mark>();
  for (const { valid, cell } of cells) {
    if (!valid) continue;
    if (cell.mark !== null) marks.add(cell.mark);
    if (isNumeric(cell)) {
      numerator += cell.numerator;
      denominator += cell.denominator;
      withValue += 1;
    } else withoutValue += 1;
  }
  const has = withValue > 0 && denominator > 0;
  return {
    pooled_rate: has ? numerator / denominator : null,
    numerator: has ? numerator : null,
    denominator: has ? denominator : null,
    // A Wilson interval needs counts out of trials; rates above 1 (never produced) get none.
    wilson_95: has && numerator <= denominator ? wilsonInterval(numerator, denominator) : null,
    marks: [...marks].sort(),
    runs_with_value: withValue,
    runs_without_value: withoutValue,
  };
}

/** How a pooled cell prints: `N/A (marks)` without a value, else `rate (95% Wilson lo–hi) [marks]`. */
export function renderPooled(cell: PooledCell, digits = 3): string {
  const marks = cell.marks.join(", ");
  if (cell.pooled_rate === null) return `N/A (${marks || "no valid run"})`;
  const ci =
    cell.wilson_95 === null
      ? ""
      : ` (95% Wilson ${cell.wilson_95[0].toFixed(digits)}–${cell.wilson_95[1].toFixed(digits)})`;
  return `${cell.pooled_rate.toFixed(digits)}${ci}${marks ? ` [${marks}]` : ""}`;
}
