/**
 * bench/report/render-html — one static HTML page for a report: no scripts, no external
 * assets, a Content-Security-Policy meta tag that allows only the page's one <style> element
 * by its SHA-256 hash (SVG uses presentation attributes, never style attributes). Two kinds of
 * inline SVG chart:
 * - per primary metric, the pooled rate of every arm in every cell with its 95% Wilson
 *   interval (a cell without a value is written as `N/A (<marks>)`, never drawn as zero);
 * - a forest plot of the paired differences R − comparator (mean, 95% CI) per metric, with the
 *   equivalence band (−δ, δ) shaded.
 * Imports: node:crypto, bench/{metrics,report}.
 */
import { createHash } from "node:crypto";
import { PRIMARY_METRICS, type MetricKey } from "../metrics/metric-cells.js";
import { renderPooled } from "../metrics/pool.js";
import { renderVerdict } from "../verdict/verdict.js";
import type { ReportDocument } from "./report.js";

const STYLE =
  "body{font:14px/1.4 system-ui,sans-serif;margin:24px;max-width:1100px;color:#1b1b1b}" +
  "h1,h2{font-weight:600}pre{background:#f4f4f4;padding:8px;overflow-x:auto;white-space:pre-wrap}" +
  "svg{display:block;max-width:100%;height:auto;margin:8px 0 24px}.note{color:#555}";

const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const n = (x: number): string => x.toFixed(1);
const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
  "#393b79",
];

function rateChart(r: ReportDocument, metric: MetricKey): string {
  const left = 300;
  const width = 760;
  const plot = width - left - 20;
  const rowH = 14;
  const rows: string[] = [];
  let y = 30;
  for (const cell of r.cells) {
    rows.push(`<text x="4" y="${y + 10}" font-size="12" font-weight="600">${esc(cell)}</text>`);
    y += rowH + 2;
    r.arms.forEach((arm, i) => {
      const p = r.table[metric][arm]?.[cell];
      const color = PALETTE[i % PALETTE.length] as string;
      rows.push(`<text x="16" y="${y + 10}" font-size="11">${esc(arm)}</text>`);
      if (p === undefined || p.pooled_rate === null) {
        rows.push(
          `<text x="${left}" y="${y + 10}" font-size="11" fill="#777">${esc(p === undefined ? "no run" : renderPooled(p))}</text>`,
        );
      } else {
        const x = left + p.pooled_rate * plot;
        if (p.wilson_95 !== null)
          rows.push(
            `<line class="ci" x1="${n(left + p.wilson_95[0] * plot)}" x2="${n(left + p.wilson_95[1] * plot)}" y1="${y + 6}" y2="${y + 6}" stroke="${color}" stroke-width="2"/>`,
          );
        rows.push(
          `<circle class="rate" cx="${n(x)}" cy="${y + 6}" r="4" fill="${color}"><title>${esc(`${arm} ${cell}: ${renderPooled(p)}`)}</title></circle>`,
        );
      }
      y += rowH;
    });
    y += 6;
  }
  const axis = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (t) =>
        `<line x1="${n(left + t * plot)}" x2="${n(left + t * plot)}" y1="22" y2="${y}" stroke="#ddd"/><text x="${n(left + t * plot)}" y="16" font-size="10" text-anchor="middle">${t}</text>`,
    )
    .join("");
  return `<svg class="chart rates" data-metric="${metric}" viewBox="0 0 ${width} ${y + 10}" width="${width}" height="${y + 10}" role="img" aria-label="${esc(metric)} per arm per cell with 95% Wilson intervals">${axis}${rows.join("")}</svg>`;
}

function forestPlot(r: ReportDocument): string {
  const rows: { label: string; mean: number; lo: number; hi: number }[] = [];
  for (const a of r.analyses) {
    for (const m of a.analysis.metrics) {
      for (const c of [m.vs_composite, m.vs_b5]) {
        if (c === undefined) continue;
        rows.push({
          label: `${a.reference_arm} − ${c.comparator}: ${m.metric}`,
          mean: c.estimate.mean,
          lo: c.estimate.ci[0],
          hi: c.estimate.ci[1],
        });
      }
    }
  }
  const finite = rows.flatMap((x) => [x.lo, x.hi, x.mean]).filter(Number.isFinite);
  const span = Math.max(r.inputs.margin * 2, 0.05, ...finite.map(Math.abs)) * 1.1;
  const left = 380;
  const width = 780;
  const plot = width - left - 20;
  const sx = (v: number): number =>
    left + ((Math.max(-span, Math.min(span, v)) + span) / (2 * span)) * plot;
  const rowH = 18;
  const height = 40 + Math.max(1, rows.length) * rowH;
  const band = `<rect class="delta-band" x="${n(sx(-r.inputs.margin))}" y="24" width="${n(sx(r.inputs.margin) - sx(-r.inputs.margin))}" height="${height - 30}" fill="#2ca02c" fill-opacity="0.15"><title>equivalence band ±δ = ±${r.inputs.margin}</title></rect>`;
  const zero = `<line x1="${n(sx(0))}" x2="${n(sx(0))}" y1="24" y2="${height - 6}" stroke="#444" stroke-dasharray="3 3"/>`;
  const ticks = [-span, -span / 2, 0, span / 2, span]
    .map(
      (t) =>
        `<text x="${n(sx(t))}" y="16" font-size="10" text-anchor="middle">${t.toFixed(3)}</text>`,
    )
    .join("");
  const body =
    rows.length === 0
      ? `<text x="10" y="40" font-size="12">no paired comparison (a reference arm, the composite and B5 need ≥ 2 shared seeds)</text>`
      : rows
          .map((x, i) => {
            const y = 34 + i * rowH;
            return `<text x="4" y="${y + 4}" font-size="11">${esc(x.label)}</text><line class="ci" x1="${n(sx(x.lo))}" x2="${n(sx(x.hi))}" y1="${y}" y2="${y}" stroke="#1f77b4" stroke-width="2"/><rect class="estimate" x="${n(sx(x.mean) - 4)}" y="${y - 4}" width="8" height="8" fill="#1f77b4"><title>${esc(`${x.label}: mean ${x.mean.toFixed(4)} [${x.lo.toFixed(4)}, ${x.hi.toFixed(4)}]`)}</title></rect>`;
          })
          .join("");
  return `<svg class="chart forest" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="forest plot of paired differences with the equivalence band">${band}${zero}${ticks}${body}</svg>`;
}

/** The CSP of the page: nothing but the one hashed style element. */
export function reportCsp(): string {
  const hash = createHash("sha256").update(STYLE, "utf8").digest("base64");
  return `default-src 'none'; style-src 'sha256-${hash}'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'`;
}

/** The HTML page of a report. */
export function renderHtml(r: ReportDocument): string {
  const verdicts =
    r.analyses.map((a) => `<pre>${esc(renderVerdict(a.verdict))}</pre>`).join("") ||
    "<p>No reference arm in the runs: no verdict.</p>";
  const wall =
    r.run.wall_time_s === null ? "not recorded (re-rendered)" : `${r.run.wall_time_s.toFixed(1)} s`;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${reportCsp()}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<title>IrrevonBench report</title>",
    `<style>${STYLE}</style></head><body>`,
    "<h1>IrrevonBench report</h1>",
    `<p>Labels: <strong>${esc(r.labels.join(", "))}</strong>. Bench wall time: <strong>${esc(wall)}</strong> for ${r.run.slots ?? "?"} slots. Runs: ${r.accounting.runs} (${r.accounting.valid} VALID, ${r.accounting.invalid} INVALID, kept and excluded from rates). Fixture split: <strong>${esc(r.run.manifest_id ?? "?")}</strong> (every chart below is from this split).</p>`,
    "<h2>Verdicts</h2>",
    verdicts,
    "<h2>Paired differences (R − comparator, 95% CI; shaded: ±δ)</h2>",
    forestPlot(r),
    ...PRIMARY_METRICS.flatMap((m) => [
      `<h2>${esc(m)} per arm per cell (95% Wilson)</h2>`,
      rateChart(r, m),
    ]),
    `<p class="note">Synthetic reference destination, split ${esc(r.run.manifest_id ?? "?")}: a dry run of the rules, not evidence about any real destination. Rates are fault-conditional.</p>`,
    "</body></html>",
    "",
  ].join("\n");
}
