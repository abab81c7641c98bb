/**
 * bench/metrics/metric-cells — the eight benchmark metrics and the shape of one metric cell
 * `{numerator, denominator, value, mark}`.
 *
 * Marks say why a cell must not be read as a plain rate. Two kinds:
 * - value marks (`N/A`, `N/A-by-arm`, `NOT-DETECTABLE`): the cell has no value at all
 *   (numerator, denominator and value null). Such a cell is never zero-filled.
 * - annotation marks (`expected-null`, `fixture-truth-only`): the value is real, but it
 *   answers a different question than a cross-arm comparison asks, so the confirmatory
 *   pool leaves it out; the test registered for it (the C1 null for `expected-null`) reads it.
 * Imports: nothing.
 */

export const METRIC_KEYS = [
  "duplicate_effect_rate",
  "orphaned_effect_rate",
  "lost_legitimate_effect_rate",
  "false_suppression_rate",
  "unresolved_ambiguous_rate",
  "false_reconciliation_rate",
  "human_review_rate",
  "compensation_correctness",
] as const;
export type MetricKey = (typeof METRIC_KEYS)[number];

/** The three metrics the superiority hypothesis and the kill rule are about. */
export const PRIMARY_METRICS: readonly MetricKey[] = [
  "duplicate_effect_rate",
  "orphaned_effect_rate",
  "lost_legitimate_effect_rate",
];

export const VALUE_MARKS = ["N/A", "N/A-by-arm", "NOT-DETECTABLE"] as const;
export const ANNOTATION_MARKS = ["expected-null", "fixture-truth-only"] as const;
export type ValueMark = (typeof VALUE_MARKS)[number];
export type AnnotationMark = (typeof ANNOTATION_MARKS)[number];
export type Mark = ValueMark | AnnotationMark;

/** A cell with a value (possibly annotated). */
export interface NumericCell {
  readonly numerator: number;
  readonly denominator: number;
  readonly value: number;
  readonly mark: AnnotationMark | null;
}

/** A cell without a value; the mark says why. */
export interface EmptyCell {
  readonly numerator: null;
  readonly denominator: null;
  readonly value: null;
  readonly mark: ValueMark;
}

export type MetricCell = NumericCell | EmptyCell;
export type MetricTable = Readonly<Record<MetricKey, MetricCell>>;

/** A cell without a value. */
export function emptyCell(mark: ValueMark): EmptyCell {
  return { numerator: null, denominator: null, value: null, mark };
}

/** numerator/denominator, or an `N/A` cell when the denominator is not positive. */
export function rateCell(
  numerator: number,
  denominator: number,
  mark: AnnotationMark | null = null,
): MetricCell {
  if (!(denominator > 0)) return emptyCell("N/A");
  return { numerator, denominator, value: numerator / denominator, mark };
}

/** True when the cell has a value. */
export function isNumeric(cell: MetricCell): cell is NumericCell {
  return cell.value !== null;
}
