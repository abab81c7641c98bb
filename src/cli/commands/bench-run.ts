/**
 * cli/commands/bench-run — `irrevon bench run | smoke | report`:
 *
 * - `run` runs the fixture matrix (every unit × every arm; resumable into --out), then writes
 *   the report (JSON, Markdown, HTML) with the kill verdict and the bench's wall time. The
 *   margins δ, δ_C1 and the worst-cell gate are REQUIRED (exit 2 naming the missing flag);
 *   R@postgres needs --postgres-url or IRREVON_TEST_PG_URL (exit 2 otherwise); B7 and
 *   --confirmatory are refused (exit 4). Progress goes to stderr: a rewritten line on a TTY, else a
 *   plain line at most every 10 s.
 * - `smoke` runs C2 response-lost and semantic re-synthesis, replicate 0, on the ladder arms
 *   (no statistics), and exits 3 if any run is INVALID.
 * - `report <dir>` re-renders a results directory's report from its run-results.json.
 * Imports: bench, cli/{exit-codes,output}.
 */
import type { Command } from "commander";
import { armSpec } from "../../bench/arms/registry.js";
import { confirmatoryRefusals, repositoryRoot } from "../../bench/integrity/integrity.js";
import { renderPooled } from "../../bench/metrics/pool.js";
import { buildReport, type ReportInputs } from "../../bench/report/report.js";
import {
  previousReport,
  rerenderReport,
  writeReportFiles,
} from "../../bench/report/write-report.js";
import { ARM_IDS } from "../../bench/arms/arm.js";
import { isArmId, REAL_BACKEND } from "../../bench/runner/real-backend.js";
import { collectResults, runMatrix, runResultsOf } from "../../bench/runner/run-matrix.js";
import { renderVerdict } from "../../bench/verdict/verdict.js";
import { IrrevonError } from "../../core/errors.js";
import { EXIT_CODES } from "../exit-codes.js";
import { emitResult, requestExit } from "../output.js";
import { checkOutputDir } from "../output-paths.js";

/** Every runnable arm (B7 is refused by design), in ladder order. */
export const DEFAULT_ARMS: readonly string[] = ARM_IDS.filter((id) => id !== "B7");
export const SMOKE_ARMS = ["B0", "B1", "B3", "B5", "B6", "B5+B3+B6"];
const SMOKE_CELLS = [
  "C2/refdest/response-lost/IRREVERSIBLE",
  "C2/refdest/semantic-resynthesis/IRREVERSIBLE",
];

export interface StatFlags {
  readonly margin?: string;
  readonly c1Margin?: string;
  readonly worstCellGate?: string;
}
interface RunFlags extends StatFlags {
  readonly fixtures: string;
  readonly out: string;
  readonly arms: string;
  readonly cells?: string;
  readonly replicates?: string;
  readonly postgresUrl?: string;
  readonly confirmatory?: boolean;
  readonly fresh?: boolean;
  readonly json?: boolean;
}

/** A comma-separated flag value as a list (blanks dropped), or undefined when absent. */
/** One `--replicates` entry: a replicate index (a whole number), or a usage error naming it. */
function replicateIndex(text: string): number {
  if (!/^\d{1,6}$/.test(text))
    throw new IrrevonError(
      "usage",
      `--replicates takes whole-number replicate indexes separated by commas (e.g. 0,1); got ${JSON.stringify(text)}`,
      { details: { flag: "--replicates", value: text } },
    );
  return Number(text);
}

export const list = (text: string | undefined): string[] | undefined =>
  text
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** A rate in (0, 1) from a required flag; a missing one is a usage error naming it. */
export function requiredRate(text: string | undefined, flag: string): number {
  if (text === undefined) {
    throw new IrrevonError(
      "usage",
      `missing required option ${flag}: margins and the gate have no defaults; choose them before looking at data (e.g. ${flag} 0.01 for one percentage point)`,
      { details: { field: flag } },
    );
  }
  const value = /^(0|[1-9][0-9]*)?(\.[0-9]+)?([eE]-?[0-9]+)?$/.test(text)
    ? Number(text)
    : Number.NaN;
  if (!(value > 0 && value < 1)) {
    throw new IrrevonError(
      "usage",
      `${flag} must be a rate in (0, 1), e.g. 0.01 for one percentage point; got ${JSON.stringify(text)}`,
      { details: { field: flag, value: text } },
    );
  }
  return value;
}

function statInputs(flags: StatFlags, fallback: ReportInputs | null): ReportInputs {
  const margin = flags.margin ?? (fallback === null ? undefined : String(fallback.margin));
  const c1 = flags.c1Margin ?? (fallback === null ? undefined : String(fallback.c1Margin));
  const gate = flags.worstCellGate ?? (fallback === null ? undefined : String(fallback.gate));
  return {
    margin: requiredRate(margin, "--margin"),
    c1Margin: requiredRate(c1, "--c1-margin"),
    gate: requiredRate(gate, "--worst-cell-gate"),
    referenceArms: ["R@pglite", "R@postgres"],
    compositeArm: "B5+B3+B6",
    b5Arm: "B5",
    c1Arms: ["B4", "B5"],
  };
}

/** When the last plain progress line went out (stderr not a terminal). */
let lastPlainProgressMs = 0;

/**
 * Progress on stderr: one rewritten line on a terminal; elsewhere (CI, a pipe, a log file) a
 * plain line at most every 10 s, and the last one, so a long run is never silent.
 */
function progress(p: { done: number; total: number; elapsedS: number; slot: string }): void {
  const eta = p.done === 0 ? 0 : (p.elapsedS / p.done) * (p.total - p.done);
  const line = `${p.done}/${p.total} slots · ${p.elapsedS.toFixed(0)} s · ETA ${eta.toFixed(0)} s · ${p.slot}`;
  if (process.stderr.isTTY === true) {
    process.stderr.write(`\r\x1b[K${line}`);
    if (p.done === p.total) process.stderr.write("\n");
    return;
  }
  const now = Date.now();
  if (p.done !== p.total && now - lastPlainProgressMs < 10_000) return;
  lastPlainProgressMs = now;
  process.stderr.write(`bench: ${line}\n`);
}

function checkArms(arms: readonly string[], postgresUrl: string | null, json: boolean): boolean {
  for (const arm of arms) {
    if (!isArmId(arm))
      throw new IrrevonError(
        "usage",
        `unknown arm ${JSON.stringify(arm)} in --arms; known: ${DEFAULT_ARMS.join(", ")}, B7`,
        { details: { field: "--arms", value: arm } },
      );
    const refused = armSpec(arm).refused;
    if (refused !== null) {
      requestExit(EXIT_CODES.integrity.code);
      emitResult(
        json,
        { refused: `arm ${arm} is not operationalized: ${refused}`, field: "--arms", arm },
        `refused: arm ${arm} is not operationalized: ${refused}`,
      );
      return false;
    }
  }
  if (arms.includes("R@postgres") && postgresUrl === null) {
    throw new IrrevonError(
      "usage",
      "arm R@postgres needs a Postgres server: pass --postgres-url postgres://… or set IRREVON_TEST_PG_URL (or drop R@postgres from --arms)",
      { details: { field: "--postgres-url" } },
    );
  }
  return true;
}

async function run(flags: RunFlags): Promise<void> {
  const inputs = statInputs(flags, null);
  const arms = list(flags.arms) ?? DEFAULT_ARMS;
  const postgresUrl = flags.postgresUrl ?? process.env["IRREVON_TEST_PG_URL"] ?? null;
  if (flags.confirmatory === true) {
    requestExit(EXIT_CODES.integrity.code);
    const refused = confirmatoryRefusals(repositoryRoot(process.cwd()), "unfrozen-dev");
    emitResult(
      flags.json === true,
      { refused },
      `refused: confirmatory mode\n  ${refused.join("\n  ")}`,
    );
    return;
  }
  if (!checkArms(arms, postgresUrl, flags.json === true)) return;
  const cells = list(flags.cells);
  const replicates = list(flags.replicates)?.map((r) => replicateIndex(r));
  checkOutputDir(flags.out, "--out");
  const summary = await runMatrix({
    fixturesDir: flags.fixtures,
    outDir: flags.out,
    arms,
    backend: REAL_BACKEND,
    postgresUrl,
    root: repositoryRoot(process.cwd()),
    fresh: flags.fresh === true,
    ...(cells === undefined ? {} : { cells }),
    ...(replicates === undefined ? {} : { replicates }),
    onProgress: progress,
  });
  const report = buildReport(runResultsOf(collectResults(flags.out)), inputs, {
    wall_time_s: summary.wall_time_s,
    slots: summary.slots,
    environment_digest: summary.environment_digest,
    manifest_root_hash: summary.manifest_root_hash,
    manifest_id: summary.manifest_id,
  });
  const files = writeReportFiles(flags.out, report);
  const verdicts = report.analyses.map((a) => renderVerdict(a.verdict)).join("\n");
  emitResult(
    flags.json === true,
    { summary, verdicts: report.analyses.map((a) => a.verdict), files },
    [
      `${summary.slots} slots in ${summary.wall_time_s.toFixed(1)} s: ${summary.ran} ran, ${summary.skipped_duplicate} already done, ${summary.runs_valid} VALID / ${summary.runs_invalid} INVALID runs, ${summary.unresolved_slots.length} unresolved slot(s)`,
      verdicts || "no reference arm: no verdict",
      `report: ${files.join(", ")}`,
    ].join("\n"),
  );
}

async function smoke(flags: {
  out: string;
  fixtures: string;
  arms: string;
  json?: boolean;
}): Promise<void> {
  const arms = list(flags.arms) ?? SMOKE_ARMS;
  if (!checkArms(arms, process.env["IRREVON_TEST_PG_URL"] ?? null, flags.json === true)) return;
  checkOutputDir(flags.out, "--out");
  const summary = await runMatrix({
    fixturesDir: flags.fixtures,
    outDir: flags.out,
    arms,
    cells: SMOKE_CELLS,
    replicates: [0],
    backend: REAL_BACKEND,
    postgresUrl: process.env["IRREVON_TEST_PG_URL"] ?? null,
    root: repositoryRoot(process.cwd()),
    onProgress: progress,
  });
  const results = collectResults(flags.out).filter((r) => r.validity.status === "VALID");
  if (summary.runs_invalid > 0) requestExit(EXIT_CODES.declared_outcome.code);
  const rows = results.map(
    (r) =>
      `${r.run_id}: duplicate ${renderPooled({ pooled_rate: r.metrics.duplicate_effect_rate.value, numerator: null, denominator: null, wilson_95: null, marks: r.metrics.duplicate_effect_rate.mark === null ? [] : [r.metrics.duplicate_effect_rate.mark], runs_with_value: 1, runs_without_value: 0 })}`,
  );
  emitResult(
    flags.json === true,
    { summary },
    [
      `smoke: ${summary.runs_valid} VALID, ${summary.runs_invalid} INVALID in ${summary.wall_time_s.toFixed(1)} s`,
      ...rows,
    ].join("\n"),
  );
}

function report(dir: string, flags: StatFlags & { json?: boolean }): void {
  const prior = previousReport(dir)?.inputs ?? null;
  const r = rerenderReport(dir, statInputs(flags, prior));
  emitResult(
    flags.json === true,
    { report: r },
    [
      `re-rendered ${dir}/report.{json,md,html} from ${r.accounting.runs} runs`,
      ...r.analyses.map((a) => renderVerdict(a.verdict)),
    ].join("\n"),
  );
}

const JSON_HELP = "print a JSON document on stdout instead of the human form on stderr";

/**
 * Adds the three statistical options: REQUIRED (no defaults) for a run; for `report`, each
 * defaults to the value the results directory recorded.
 */
export function statOptions(cmd: Command, fromResults = false): Command {
  const need = fromResults ? "" : "REQUIRED ";
  const fallback = fromResults ? " (default: the value the results directory recorded)" : "";
  return cmd
    .option(
      "--margin <rate>",
      `${need}equivalence margin δ in rate units (0.01 = 1 percentage point)${fallback}`,
    )
    .option(
      "--c1-margin <rate>",
      `${need}margin δ_C1 of the registered C1 null, in rate units${fallback}`,
    )
    .option(
      "--worst-cell-gate <rate>",
      `${need}worst-cell gate in rate units (0.10 = 10 percentage points)${fallback}`,
    );
}

/** Registers `bench run`, `bench smoke` and `bench report`. */
export function registerRunCommands(bench: Command, defaultFixtures: string): void {
  statOptions(
    bench
      .command("run")
      .description(
        "run the fixture matrix (all arms; resumable), then write the report with the kill verdict",
      ),
  )
    .option("--fixtures <dir>", "fixture split", defaultFixtures)
    .option("--out <dir>", "results directory (re-running resumes it)", "bench-results/dev")
    .option("--fresh", "start over: remove the directory's earlier runs and report first")
    .option("--arms <ids>", "comma-separated arms", DEFAULT_ARMS.join(","))
    .option("--cells <ids>", "comma-separated cell ids (default: all)")
    .option("--replicates <list>", "comma-separated replicate indexes (default: all)")
    .option(
      "--postgres-url <url>",
      "Postgres server for R@postgres (default: $IRREVON_TEST_PG_URL)",
    )
    .option("--confirmatory", "refused: confirmatory runs need verified freeze registrations")
    .option("--json", JSON_HELP)
    .action((flags: RunFlags) => run(flags));
  bench
    .command("smoke")
    .description(
      "C2 response-lost and re-synthesis, replicate 0, ladder arms; exit 3 on any INVALID run",
    )
    .option("--fixtures <dir>", "fixture split", defaultFixtures)
    .option("--out <dir>", "results directory", ".bench-smoke-runs")
    .option("--arms <ids>", "comma-separated arms", SMOKE_ARMS.join(","))
    .option("--json", JSON_HELP)
    .action((flags: { out: string; fixtures: string; arms: string; json?: boolean }) =>
      smoke(flags),
    );
  statOptions(
    bench
      .command("report")
      .description(
        "re-render report.{json,md,html} of a results directory from its run-results.json",
      ),
    true,
  )
    .argument("<dir>", "results directory written by `bench run`")
    .option("--json", JSON_HELP)
    .action((dir: string, flags: StatFlags & { json?: boolean }) => report(dir, flags));
}
