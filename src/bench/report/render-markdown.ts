/**
 * bench/report/render-markdown — the Markdown form of a report: labels, wall time, run
 * accounting, each verdict with its inputs, the per-cell tables of the primary metrics, and
 * the limits of the claim. Imports: bench/{metrics,verdict,report}.
 */
import { PRIMARY_METRICS } from "../metrics/metric-cells.js";
import { renderPooled } from "../metrics/pool.js";
import { renderVerdict } from "../verdict/verdict.js";
import type { ReportDocument } from "./report.js";

/** Markdown text of a report. */
export function renderMarkdown(r: ReportDocument): string {
  const out: string[] = [
    "# IrrevonBench report",
    "",
    `Labels: ${r.labels.join(", ")}. Confirmatory: no.`,
    "",
    `- bench wall time: ${r.run.wall_time_s === null ? "not recorded (re-rendered)" : `${r.run.wall_time_s.toFixed(1)} s`} for ${r.run.slots ?? "?"} slots`,
    `- runs: ${r.accounting.runs} (${r.accounting.valid} VALID, ${r.accounting.invalid} INVALID${r.accounting.invalid > 0 ? `: ${r.accounting.invalid_run_ids.join(", ")}` : ""}); INVALID runs are kept and excluded from rates`,
    `- fixture split: ${r.run.manifest_id ?? "?"} (every table below is from this split); root hash: ${r.run.manifest_root_hash ?? "?"}; environment digest: ${r.run.environment_digest ?? "?"}`,
    "",
    "## Verdicts",
    "",
  ];
  for (const a of r.analyses) out.push("```", renderVerdict(a.verdict), "```", "");
  if (r.analyses.length === 0) out.push("No reference arm in the runs: no verdict.", "");
  for (const metric of PRIMARY_METRICS) {
    out.push(
      `## ${metric}`,
      "",
      `| arm | ${r.cells.join(" | ")} |`,
      `| --- |${r.cells.map(() => " --- |").join("")}`,
    );
    for (const arm of r.arms) {
      out.push(
        `| ${arm} | ${r.cells
          .map((c) => {
            const p = r.table[metric][arm]?.[c];
            return p === undefined ? "" : renderPooled(p);
          })
          .join(" | ")} |`,
      );
    }
    out.push("");
  }
  out.push(
    "## Limits",
    "",
    `Synthetic reference destination, split ${r.run.manifest_id ?? "?"} (2 seeds, 4 trials per workload): a dry run of the rules, not evidence about any real destination. Fault-conditional rates: they say what happens when a fault is injected, not how often faults occur.`,
    "",
  );
  return out.join("\n");
}
