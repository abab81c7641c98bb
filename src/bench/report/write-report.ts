/**
 * bench/report/write-report — writes a report's three forms into a results directory
 * (`report.json`, `report.md`, `report.html`) and re-renders them from `run-results.json`.
 * Imports: node, bench/{analysis,fixtures,report}.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IrrevonError } from "../../core/errors.js";
import { parseRunResults } from "../analysis/run-results.js";
import { renderHtml } from "./render-html.js";
import { renderMarkdown } from "./render-markdown.js";
import { buildReport, type ReportDocument, type ReportInputs } from "./report.js";

/** Writes report.json, report.md and report.html; returns their paths. */
export function writeReportFiles(dir: string, report: ReportDocument): string[] {
  const files: [string, string][] = [
    // JSON.stringify, not JCS: a zero-variance t statistic is ±Infinity, which JSON writes as null.
    ["report.json", `${JSON.stringify(report, null, 2)}\n`],
    ["report.md", renderMarkdown(report)],
    ["report.html", renderHtml(report)],
  ];
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  return files.map(([name]) => join(dir, name));
}

/** The previous report of a directory (for its inputs and run facts), if any. */
export function previousReport(dir: string): ReportDocument | null {
  const path = join(dir, "report.json");
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as ReportDocument) : null;
}

/** Re-renders a results directory's report from its run-results.json. */
export function rerenderReport(dir: string, inputs: ReportInputs): ReportDocument {
  const path = join(dir, "run-results.json");
  if (!existsSync(path)) {
    throw new IrrevonError(
      "usage",
      `${dir} is not a results directory: run-results.json is missing (run \`irrevon bench run --out ${dir}\` first)`,
      { details: { field: "dir" } },
    );
  }
  const results = parseRunResults(JSON.parse(readFileSync(path, "utf8")));
  const prior = previousReport(dir)?.run;
  const run = {
    wall_time_s: prior?.wall_time_s ?? null,
    slots: prior?.slots ?? null,
    environment_digest: prior?.environment_digest ?? null,
    manifest_root_hash: prior?.manifest_root_hash ?? null,
    manifest_id: prior?.manifest_id ?? null,
  };
  const report = buildReport(results, inputs, run);
  writeReportFiles(dir, report);
  return report;
}
