/**
 * bench/analysis/analyze — the paired statistical analysis of a set of runs.
 *
 * Unit of analysis: the replicate (the "seed": every cell's unit seed derives from the
 * master seed, the cell and the replicate, and every arm sees the same one). For each arm,
 * metric and replicate the estimand is the unweighted mean of the analysis cells' rates; a
 * replicate counts only if every analysis cell has exactly one VALID run with a value, and
 * no annotation mark the test does not register for. Arms are paired within a replicate.
 *
 * For each primary metric, reference arm R against the composite baseline and against B5:
 * paired Student-t estimate (95% CI, df = S − 1), exact sign-flip p, TOST within ±δ
 * (α = 0.05), one-sided superiority (R lower, α = 0.025) as an intersection–union test
 * over both comparators, Holm across the three metrics (family F1), the kill-rule
 * component (equivalent, or the composite significantly better at 0.05) and the large-effect
 * rule. On C1, the registered null against each native-idempotency arm at ±δ_C1.
 * δ and δ_C1 are required: there are no default margins.
 *
 * Not built yet: the worst-cell gate and the overall verdict strings; per-cell tables.
 * Imports: bench/fault-model, bench/metrics, bench/stats, bench/analysis/run-results.
 */
import { DISCRIMINATING_FAULTS, parseCellId } from "../fault-model.js";
import { PRIMARY_METRICS, type AnnotationMark, type MetricKey } from "../metrics/metric-cells.js";
import {
  largeEffect,
  registeredNullC1,
  type LargeEffect,
  type RegisteredNullC1,
} from "../stats/hypotheses.js";
import { holm } from "../stats/p-adjust.js";
import {
  intersectionUnionP,
  pairedT,
  pHigher,
  pLower,
  requirePositiveMargin,
  tost,
  type PairedEstimate,
  type TostResult,
} from "../stats/paired.js";
import { signFlipTest, SIGN_FLIP_MAX_SEEDS } from "../stats/sign-flip.js";
import type { RunResult, RunResults } from "./run-results.js";

export const ANALYSIS_FORMAT = "irrevonbench/analysis/v1";
export const SUPERIORITY_ALPHA = 0.025;
export const KILL_ALPHA = 0.05;

export interface AnalysisOptions {
  /** Equivalence margin δ in rate units (0.01 = 1 percentage point). Required. */
  readonly margin: number;
  /** Equivalence margin δ_C1 of the registered C1 null. Required. */
  readonly c1Margin: number;
  readonly referenceArm: string;
  readonly compositeArm: string;
  readonly b5Arm: string;
  /** Native-idempotency comparators of the C1 null. */
  readonly c1Arms: readonly string[];
  /** Cells averaged per seed; default: C2 IRREVERSIBLE cells of the discriminating faults. */
  readonly cells?: readonly string[];
  /** C1 cells of the registered null; default: C1 IRREVERSIBLE discriminating-fault cells. */
  readonly c1Cells?: readonly string[];
}

export interface Comparison {
  readonly comparator: string;
  readonly estimate: PairedEstimate;
  readonly permutation: { readonly p_two_sided: number; readonly floor: number } | null;
  /** One-sided p that R is lower than the comparator. */
  readonly p_reference_lower: number;
}

export interface MetricAnalysis {
  readonly metric: MetricKey;
  readonly status: "ok" | "insufficient-seeds";
  readonly seeds: readonly number[];
  readonly vs_composite?: Comparison & {
    readonly tost: TostResult;
    /** One-sided p that the composite is lower than R. */
    readonly p_composite_lower: number;
    readonly composite_significantly_better: boolean;
    readonly kill_component: boolean;
    readonly large_effect: LargeEffect;
  };
  readonly vs_b5?: Comparison;
  readonly superiority_p_iut?: number;
  readonly holm_adjusted_p?: number;
  readonly holm_rejected?: boolean;
}

export interface Analysis {
  readonly format: typeof ANALYSIS_FORMAT;
  readonly confirmatory: false;
  readonly labels: readonly string[];
  readonly inputs: {
    readonly margin: number;
    readonly c1_margin: number;
    readonly reference_arm: string;
    readonly composite_arm: string;
    readonly b5_arm: string;
    readonly c1_arms: readonly string[];
    readonly cells: readonly string[];
    readonly c1_cells: readonly string[];
    readonly runs: number;
    readonly valid_runs: number;
    readonly invalid_runs: number;
  };
  readonly metrics: readonly MetricAnalysis[];
  readonly registered_null_c1: readonly {
    readonly comparator: string;
    readonly status: "ok" | "insufficient-seeds";
    readonly seeds: readonly number[];
    readonly result?: RegisteredNullC1;
  }[];
  readonly not_built: readonly string[];
}

function defaultCells(runs: readonly RunResult[], tier: "C1" | "C2"): string[] {
  const ids = new Set(runs.map((r) => r.cell_id));
  return [...ids]
    .filter((id) => {
      const cell = parseCellId(id);
      return (
        cell !== undefined &&
        cell.tier === tier &&
        cell.effect_class === "IRREVERSIBLE" &&
        DISCRIMINATING_FAULTS.includes(cell.fault)
      );
    })
    .sort();
}

/**
 * Per-replicate estimand of one arm and metric: the mean of the cells' rates, or nothing
 * for a replicate where any cell lacks exactly one VALID run with an admissible value.
 */
function perSeed(
  runs: readonly RunResult[],
  arm: string,
  metric: MetricKey,
  cells: readonly string[],
  allowedMark: AnnotationMark | null,
): Map<number, number> {
  const byReplicate = new Map<number, Map<string, number[]>>();
  for (const run of runs) {
    if (run.arm !== arm || run.validity !== "VALID" || !cells.includes(run.cell_id)) continue;
    const cell = run.metrics[metric];
    const admissible = cell.value !== null && (cell.mark === null || cell.mark === allowedMark);
    const perCell = byReplicate.get(run.replicate_index) ?? new Map<string, number[]>();
    byReplicate.set(run.replicate_index, perCell);
    const values = perCell.get(run.cell_id) ?? [];
    values.push(admissible ? (cell.value as number) : Number.NaN);
    perCell.set(run.cell_id, values);
  }
  const out = new Map<number, number>();
  for (const [replicate, perCell] of byReplicate) {
    const rates = cells.map((id) => perCell.get(id));
    if (!rates.every((v) => v !== undefined && v.length === 1 && !Number.isNaN(v[0]))) continue;
    out.set(replicate, rates.reduce((s, v) => s + (v?.[0] as number), 0) / cells.length);
  }
  return out;
}

function shared(...series: readonly Map<number, number>[]): number[] {
  const [first, ...rest] = series;
  if (first === undefined) return [];
  return [...first.keys()].filter((k) => rest.every((m) => m.has(k))).sort((a, b) => a - b);
}

function compare(reference: number[], comparator: number[], name: string): Comparison {
  const differences = reference.map((r, i) => r - (comparator[i] as number));
  const flip = differences.length <= SIGN_FLIP_MAX_SEEDS ? signFlipTest(differences) : null;
  return {
    comparator: name,
    estimate: pairedT(differences),
    permutation: flip === null ? null : { p_two_sided: flip.p, floor: flip.floor },
    p_reference_lower: pLower(differences),
  };
}

function analyzeMetric(
  runs: readonly RunResult[],
  metric: MetricKey,
  options: AnalysisOptions,
  cells: readonly string[],
): MetricAnalysis {
  const r = perSeed(runs, options.referenceArm, metric, cells, null);
  const c = perSeed(runs, options.compositeArm, metric, cells, null);
  const b = perSeed(runs, options.b5Arm, metric, cells, null);
  const seeds = shared(r, c, b);
  if (seeds.length < 2) return { metric, status: "insufficient-seeds", seeds };
  const rs = seeds.map((s) => r.get(s) as number);
  const cs = seeds.map((s) => c.get(s) as number);
  const bs = seeds.map((s) => b.get(s) as number);
  const differences = rs.map((x, i) => x - (cs[i] as number));
  const equivalence = tost(differences, options.margin, KILL_ALPHA);
  const pCompositeLower = pHigher(differences);
  const vsComposite = compare(rs, cs, options.compositeArm);
  const vsB5 = compare(rs, bs, options.b5Arm);
  return {
    metric,
    status: "ok",
    seeds,
    vs_composite: {
      ...vsComposite,
      tost: equivalence,
      p_composite_lower: pCompositeLower,
      composite_significantly_better: pCompositeLower < KILL_ALPHA,
      kill_component: equivalence.equivalent || pCompositeLower < KILL_ALPHA,
      large_effect: largeEffect(rs, cs, options.margin),
    },
    vs_b5: vsB5,
    superiority_p_iut: intersectionUnionP([vsComposite.p_reference_lower, vsB5.p_reference_lower]),
  };
}

/** Runs the analysis. Throws `usage` for a missing or non-positive margin. */
export function analyzeRuns(results: RunResults, options: AnalysisOptions): Analysis {
  requirePositiveMargin(options.margin, "margin");
  requirePositiveMargin(options.c1Margin, "c1_margin");
  const runs = results.runs;
  const cells = options.cells ?? defaultCells(runs, "C2");
  const c1Cells = options.c1Cells ?? defaultCells(runs, "C1");
  const metrics = PRIMARY_METRICS.map((m) => analyzeMetric(runs, m, options, cells));
  // Family F1: Holm over the superiority tests of the three primary metrics, at 0.025. A
  // metric without enough seeds cannot reject and enters with p = 1.
  const adjusted = holm(metrics.map((m) => m.superiority_p_iut ?? 1));
  const withHolm = metrics.map((m, i) =>
    m.status === "ok"
      ? {
          ...m,
          holm_adjusted_p: adjusted[i] as number,
          holm_rejected: (adjusted[i] as number) < SUPERIORITY_ALPHA,
        }
      : m,
  );
  const r = perSeed(runs, options.referenceArm, "duplicate_effect_rate", c1Cells, "expected-null");
  const registered = options.c1Arms.map((arm) => {
    const other = perSeed(runs, arm, "duplicate_effect_rate", c1Cells, "expected-null");
    const seeds = c1Cells.length === 0 ? [] : shared(r, other);
    if (seeds.length < 2) return { comparator: arm, status: "insufficient-seeds" as const, seeds };
    const differences = seeds.map((s) => (r.get(s) as number) - (other.get(s) as number));
    return {
      comparator: arm,
      status: "ok" as const,
      seeds,
      result: registeredNullC1(differences, options.c1Margin),
    };
  });
  const kinds = new Set([...cells, ...c1Cells].map((id) => parseCellId(id)?.destination_kind));
  const valid = runs.filter((run) => run.validity === "VALID").length;
  return {
    format: ANALYSIS_FORMAT,
    confirmatory: false,
    labels: [
      "non-confirmatory",
      ...(kinds.has("refdest") ? ["synthetic-destination", "S-REF"] : []),
    ],
    inputs: {
      margin: options.margin,
      c1_margin: options.c1Margin,
      reference_arm: options.referenceArm,
      composite_arm: options.compositeArm,
      b5_arm: options.b5Arm,
      c1_arms: options.c1Arms,
      cells,
      c1_cells: c1Cells,
      runs: runs.length,
      valid_runs: valid,
      invalid_runs: runs.length - valid,
    },
    metrics: withHolm,
    registered_null_c1: registered,
    not_built: [
      "worst-cell gate",
      "kill verdict",
      "per-cell comparison table",
      "freeze registrations",
    ],
  };
}
