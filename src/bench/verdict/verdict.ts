/**
 * bench/verdict/verdict — the kill rule and the verdicts (reference-bench §7.1; prereg), on top
 * of the paired analysis (bench/analysis/analyze):
 *
 * - kill component per primary metric: TOST(R − composite, δ, 0.05) equivalent OR the
 *   composite significantly better (one-sided p < 0.05);
 * - worst-cell gate per metric: in any analysis cell, mean composite rate − mean R rate over
 *   VALID runs with an unmarked value ≥ gate (rate units) fires it;
 * - overall: all three metrics computable, every component holds, no gate fired ⇒
 *   `kill-fires`; components hold but a gate fired ⇒ `inconclusive-with-localized-signal`;
 *   otherwise `kill-does-not-fire`;
 * - per metric: Holm-rejected superiority ⇒ `superiority`; else `equivalence-kill` when the
 *   overall verdict is kill-fires, `inconclusive-with-localized-signal` when that is the
 *   overall verdict, else `inconclusive` (`insufficient-seeds` when the metric could not be
 *   computed).
 * It also says, honestly, when the data cannot separate R from the composite: identical
 * per-seed rates on a metric mean the run measured no difference in either direction.
 * Margins and the gate are required; nothing here has a default. Always non-confirmatory.
 * Imports: bench/analysis, bench/metrics, bench/stats.
 */
import type { Analysis, MetricAnalysis } from "../analysis/analyze.js";
import type { RunResult } from "../analysis/run-results.js";
import type { MetricKey } from "../metrics/metric-cells.js";
import { requirePositiveMargin } from "../stats/paired.js";

export const VERDICT_FORMAT = "irrevonbench/verdict/v1";
export type OverallVerdict =
  "kill-fires" | "inconclusive-with-localized-signal" | "kill-does-not-fire";
export type MetricVerdict =
  | "superiority"
  | "equivalence-kill"
  | "inconclusive-with-localized-signal"
  | "inconclusive"
  | "insufficient-seeds";

export interface MetricVerdictRow {
  readonly metric: MetricKey;
  readonly verdict: MetricVerdict;
  readonly kill_component: boolean | null;
  readonly worst_cell: {
    readonly gate: number;
    readonly fired: boolean;
    readonly per_cell_composite_minus_r: Readonly<Record<string, number | null>>;
  };
  /** True when R and the composite had identical rates on every shared seed. */
  readonly indistinguishable: boolean;
  readonly large_effect: boolean | null;
}

export interface Verdict {
  readonly format: typeof VERDICT_FORMAT;
  readonly confirmatory: false;
  readonly labels: readonly string[];
  readonly inputs: Analysis["inputs"] & { readonly worst_cell_gate: number };
  readonly overall: OverallVerdict;
  readonly metrics: readonly MetricVerdictRow[];
  readonly registered_null_c1: readonly {
    readonly comparator: string;
    readonly status: string;
    readonly supported: boolean | null;
  }[];
  /** Plain sentences a reader must see next to the verdict. */
  readonly statements: readonly string[];
}

function cellMean(
  runs: readonly RunResult[],
  arm: string,
  cell: string,
  metric: MetricKey,
): number | null {
  const values = runs
    .filter((r) => r.arm === arm && r.cell_id === cell && r.validity === "VALID")
    .map((r) => r.metrics[metric])
    .filter((c) => c.value !== null && c.mark === null)
    .map((c) => c.value as number);
  return values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
}

function indistinguishable(m: MetricAnalysis): boolean {
  const e = m.vs_composite?.estimate;
  return e !== undefined && e.mean === 0 && e.sd === 0;
}

/** The verdict over an analysis and the runs it came from. `gate` is in rate units. */
export function killVerdict(analysis: Analysis, runs: readonly RunResult[], gate: number): Verdict {
  requirePositiveMargin(gate, "worst_cell_gate");
  const { reference_arm: r, composite_arm: c, cells } = analysis.inputs;
  const gates = analysis.metrics.map((m) => {
    const per: Record<string, number | null> = {};
    for (const cell of cells) {
      const cm = cellMean(runs, c, cell, m.metric);
      const rm = cellMean(runs, r, cell, m.metric);
      per[cell] = cm === null || rm === null ? null : cm - rm;
    }
    return {
      gate,
      fired: Object.values(per).some((d) => d !== null && d >= gate),
      per_cell_composite_minus_r: per,
    };
  });
  const computable = analysis.metrics.every((m) => m.status === "ok");
  const components = analysis.metrics.every((m) => m.vs_composite?.kill_component === true);
  const anyGate = gates.some((g) => g.fired);
  const overall: OverallVerdict =
    computable && components
      ? anyGate
        ? "inconclusive-with-localized-signal"
        : "kill-fires"
      : "kill-does-not-fire";
  const rows = analysis.metrics.map((m, i): MetricVerdictRow => {
    const verdict: MetricVerdict =
      m.status !== "ok"
        ? "insufficient-seeds"
        : m.holm_rejected === true
          ? "superiority"
          : overall === "kill-fires"
            ? "equivalence-kill"
            : overall === "inconclusive-with-localized-signal"
              ? overall
              : "inconclusive";
    return {
      metric: m.metric,
      verdict,
      kill_component: m.vs_composite?.kill_component ?? null,
      worst_cell: gates[i] as MetricVerdictRow["worst_cell"],
      indistinguishable: indistinguishable(m),
      large_effect: m.vs_composite?.large_effect.large ?? null,
    };
  });
  const statements: string[] = [
    "non-confirmatory: fixtures on the synthetic reference destination (S-REF); it never feeds a confirmatory claim.",
  ];
  const same = rows.filter((x) => x.indistinguishable).map((x) => x.metric);
  if (same.length > 0)
    statements.push(
      `the data cannot separate ${r} from ${c} on ${same.join(", ")}: identical rates on every seed, so no difference in either direction was measured there.`,
    );
  const seeds = Math.max(0, ...analysis.metrics.map((m) => m.seeds.length));
  if (seeds < 5)
    statements.push(
      `${seeds} seed(s): below the 5 the preregistration binds for a decision; the verdict is a dry run of the rule, not a result.`,
    );
  if (overall === "kill-does-not-fire")
    statements.push(
      "kill-does-not-fire is not survival: it only says the kill condition was not met.",
    );
  return {
    format: VERDICT_FORMAT,
    confirmatory: false,
    labels: analysis.labels,
    inputs: { ...analysis.inputs, worst_cell_gate: gate },
    overall,
    metrics: rows,
    registered_null_c1: analysis.registered_null_c1.map((x) => ({
      comparator: x.comparator,
      status: x.status,
      supported: x.result?.nullSupported ?? null,
    })),
    statements,
  };
}

/** The verdict's human form, with its inputs. */
export function renderVerdict(v: Verdict): string {
  const i = v.inputs;
  const lines = [
    `VERDICT (${v.labels.join(", ")}): ${v.overall}`,
    `inputs: reference ${i.reference_arm}, composite ${i.composite_arm}, B5 ${i.b5_arm}, δ ${i.margin}, δ_C1 ${i.c1_margin}, worst-cell gate ${i.worst_cell_gate}, cells ${i.cells.join(" ") || "(none)"}, runs ${i.runs} (${i.valid_runs} VALID, ${i.invalid_runs} INVALID)`,
    ...v.metrics.map((m) => {
      const fired = Object.entries(m.worst_cell.per_cell_composite_minus_r)
        .filter(([, d]) => d !== null && d >= m.worst_cell.gate)
        .map(([c]) => c);
      return `  ${m.metric}: ${m.verdict} (kill component ${String(m.kill_component)}, large effect ${String(m.large_effect)}, gate ${m.worst_cell.fired ? `fired in ${fired.join(" ")}` : "not fired"})`;
    }),
    ...v.registered_null_c1.map(
      (x) =>
        `  H0-C1 vs ${x.comparator}: ${x.status === "ok" ? (x.supported === true ? "supported" : "not supported") : x.status}`,
    ),
    ...v.statements.map((s) => `  note: ${s}`),
  ];
  return lines.join("\n");
}
