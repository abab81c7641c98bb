/**
 * bench/analysis/render-analysis — the human form of an analysis: the inputs it was run
 * with, one block per primary metric, the registered C1 null, and what is not built yet.
 * Imports: bench/analysis/analyze.
 */
import type { Analysis, Comparison, MetricAnalysis } from "./analyze.js";

const f = (x: number, digits = 4): string =>
  Number.isFinite(x) ? x.toFixed(digits) : x > 0 ? "+inf" : x < 0 ? "-inf" : "nan";
const p = (x: number): string => (x === 0 ? "0" : x < 0.0001 ? x.toExponential(2) : x.toFixed(4));

function comparison(c: Comparison): string {
  const e = c.estimate;
  const perm =
    c.permutation === null
      ? ""
      : `, sign-flip p ${p(c.permutation.p_two_sided)} (floor ${p(c.permutation.floor)})`;
  return `R − ${c.comparator}: mean ${f(e.mean)} [95% CI ${f(e.ci[0])}, ${f(e.ci[1])}], t ${f(e.t, 3)}, df ${e.df}, p(R lower) ${p(c.p_reference_lower)}${perm}`;
}

function metricBlock(m: MetricAnalysis): string[] {
  if (m.status !== "ok" || m.vs_composite === undefined || m.vs_b5 === undefined) {
    return [
      `${m.metric}: insufficient seeds (${m.seeds.length} shared by all three arms; 2 needed)`,
    ];
  }
  const c = m.vs_composite;
  const large = c.large_effect;
  return [
    `${m.metric} (${m.seeds.length} seeds)`,
    `  ${comparison(c)}`,
    `  ${comparison(m.vs_b5)}`,
    `  TOST ±${c.tost.margin}: ${c.tost.equivalent ? "equivalent" : "not equivalent"} (p ${p(c.tost.pLower)}, ${p(c.tost.pUpper)}; 90% CI ${f(c.tost.ci[0])}, ${f(c.tost.ci[1])})`,
    `  composite significantly better: ${c.composite_significantly_better ? "yes" : "no"} (p ${p(c.p_composite_lower)}); kill component ${c.kill_component ? "holds" : "does not hold"}`,
    `  superiority (IUT over both): p ${p(m.superiority_p_iut ?? 1)}, Holm ${p(m.holm_adjusted_p ?? 1)} → ${m.holm_rejected === true ? "rejected at 0.025" : "not rejected"}`,
    `  large effect: ${large.large ? "yes" : "no"} (relative reduction ${large.relativeRiskReduction === null ? "n/a" : f(large.relativeRiskReduction, 3)}, CI lower of the reduction ${f(large.absoluteReductionCiLower)} vs δ ${large.margin})`,
  ];
}

/** Multi-line text for people. */
export function renderAnalysis(a: Analysis): string {
  const i = a.inputs;
  const lines = [
    `IrrevonBench analysis — ${a.labels.join(", ")}`,
    `arms: R=${i.reference_arm}, composite=${i.composite_arm}, B5=${i.b5_arm}; δ=${i.margin}, δ_C1=${i.c1_margin}`,
    `runs: ${i.runs} (${i.valid_runs} VALID, ${i.invalid_runs} INVALID, excluded)`,
    `cells averaged per seed: ${i.cells.length === 0 ? "none" : i.cells.join(", ")}`,
    "",
    ...a.metrics.flatMap(metricBlock),
    "",
    `C1 registered null (δ_C1 ${i.c1_margin}; cells: ${i.c1_cells.length === 0 ? "none" : i.c1_cells.join(", ")})`,
    ...a.registered_null_c1.map((n) =>
      n.result === undefined
        ? `  R vs ${n.comparator}: insufficient seeds (${n.seeds.length})`
        : `  R vs ${n.comparator}: ${n.result.nullSupported ? "supported (no advantage)" : "not supported"}; TOST ${n.result.tost.equivalent ? "equivalent" : "not equivalent"}, non-inferiority p ${p(n.result.pNonInferior)}`,
    ),
    "",
    `not built yet: ${a.not_built.join(", ")}`,
  ];
  return lines.join("\n");
}
