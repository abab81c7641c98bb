/**
 * bench/runner/run-matrix — runs every (unit × arm) slot of a fixture split into a results
 * directory and collects the results:
 *
 *   <out>/environment.json            environment record of this invocation (digest w/o clock)
 *   <out>/runs/<run_id>/…             run-manifest, journal.jsonl, history, history-verdict, result
 *   <out>/run-results.json            every attempt's metrics (irrevonbench/run-results/v1)
 *
 * Re-running into the same directory resumes: finished slots are skipped, an interrupted
 * attempt is finalized INVALID and replaced, so no trial is ever counted twice. A directory
 * whose runs were made by other code is refused (`fresh` starts over instead).
 * Test hook: IRREVON_BENCH_KILL_AFTER_SLOT=N makes the process SIGKILL itself in slot N+1
 * right after its first journal line (write-ahead manifest on disk, no result).
 * Imports: node, bench/{fixtures,analysis,runner}.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { IrrevonError } from "../../core/errors.js";
import { parseRunResults, RUN_RESULTS_FORMAT, type RunResults } from "../analysis/run-results.js";
import { artifactText } from "../fixtures/artifact-bytes.js";
import {
  FORMATS,
  type FaultSchedule,
  type VariantSet,
  type Workload,
} from "../fixtures/documents.js";
import { loadSplit } from "../fixtures/split-dir.js";
import { checkedText } from "./documents.js";
import { captureEnvironment, type EnvironmentRecord } from "./environment.js";
import {
  runSlot,
  type BenchBackend,
  type ResultDocument,
  type SlotOutcome,
  type UnitPlan,
} from "./run-slot.js";

export const KILL_AFTER_SLOT_ENV = "IRREVON_BENCH_KILL_AFTER_SLOT";

export interface MatrixOptions {
  readonly fixturesDir: string;
  readonly outDir: string;
  readonly arms: readonly string[];
  /** Cell ids to run (default: all). */
  readonly cells?: readonly string[];
  readonly replicates?: readonly number[];
  readonly backend: BenchBackend;
  readonly postgresUrl: string | null;
  /** Repository root, for the environment record. */
  readonly root: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Start over: remove the directory's earlier runs, results and report first. */
  readonly fresh?: boolean;
  readonly onProgress?: (p: {
    done: number;
    total: number;
    elapsedS: number;
    slot: string;
    status: string;
  }) => void;
}

export interface MatrixSummary {
  readonly slots: number;
  readonly ran: number;
  readonly skipped_duplicate: number;
  readonly unresolved_slots: readonly string[];
  readonly runs_valid: number;
  readonly runs_invalid: number;
  readonly wall_time_s: number;
  readonly environment_digest: string;
  readonly manifest_root_hash: string;
  /** The fixture split's manifest id (`mf_dev.v1`, `mf_ext.v1`): which split the runs are from. */
  readonly manifest_id: string;
}

/** The split's units (workload + schedule + variants), sorted by cell and replicate. */
export function loadUnits(fixturesDir: string): {
  plans: UnitPlan[];
  rootHash: string;
  manifestId: string;
} {
  const split = loadSplit(fixturesDir);
  if (split.manifest === undefined || split.problems.length > 0) {
    throw new IrrevonError(
      "usage",
      `fixture split ${fixturesDir} does not load: ${split.problems.slice(0, 3).join("; ")}`,
      {
        details: { field: "--fixtures", problems: split.problems },
      },
    );
  }
  const docs = [...split.documents.values()] as { format: string }[];
  const schedules = new Map(
    (docs.filter((d) => d.format === FORMATS.faultSchedule) as FaultSchedule[]).map((s) => [
      s.workload_id,
      s,
    ]),
  );
  const variantSets = docs.filter((d) => d.format === FORMATS.variants) as VariantSet[];
  const workloads = (docs.filter((d) => d.format === FORMATS.workload) as Workload[]).sort(
    (a, b) =>
      a.cell_id === b.cell_id
        ? a.replicate_index - b.replicate_index
        : a.cell_id < b.cell_id
          ? -1
          : 1,
  );
  const manifest = split.manifest;
  const plans = workloads.map((workload) => ({
    workload,
    schedule: schedules.get(workload.workload_id) as FaultSchedule,
    variants:
      variantSets.find((v) =>
        v.variants.some((x) => x.base_workload_id === workload.workload_id),
      ) ?? null,
    manifestRootHash: manifest.root_hash,
    masterSeed: manifest.master_seed ?? "",
  }));
  return { plans, rootHash: manifest.root_hash, manifestId: manifest.manifest_id };
}

/** Reads every attempt's result in a results directory, sorted by run id. */
export function collectResults(outDir: string): ResultDocument[] {
  const runs = join(outDir, "runs");
  if (!existsSync(runs)) return [];
  return readdirSync(runs)
    .sort()
    .map((id) => join(runs, id, "result.json"))
    .filter((p) => existsSync(p))
    .map((p) => JSON.parse(readFileSync(p, "utf8")) as ResultDocument);
}

/** The run-results document (input of the analysis) of a results directory. */
export function runResultsOf(results: readonly ResultDocument[]): RunResults {
  return parseRunResults({
    format: RUN_RESULTS_FORMAT,
    runs: results.map((r) => ({
      run_id: r.run_id,
      arm: r.arm,
      cell_id: r.cell_id,
      replicate_index: r.replicate_index,
      validity: r.validity.status,
      metrics: r.metrics,
    })),
  });
}

/** What the runs of a directory were made with, as far as a resume must match it. */
function codeOf(e: EnvironmentRecord): Record<string, unknown> {
  return {
    "git.commit": e.git.commit,
    lockfile_sha256: e.lockfile_sha256,
    node: e.node,
    irrevon: e.packages["irrevon"] ?? null,
  };
}

/**
 * A resume adds to runs made by the same code: a directory holding runs of another commit,
 * lockfile, Node or package version is refused (usage, exit 2) instead of being mixed into one
 * report. (An uncommitted edit keeps the commit: the record's `git.dirty` says so.)
 */
function refuseOtherCode(outDir: string, now: EnvironmentRecord): void {
  const path = join(outDir, "environment.json");
  const runs = join(outDir, "runs");
  if (!existsSync(path) || !existsSync(runs) || readdirSync(runs).length === 0) return;
  const before = JSON.parse(readFileSync(path, "utf8")) as EnvironmentRecord;
  const a = codeOf(before);
  const b = codeOf(now);
  const differs = Object.keys(b).filter((k) => a[k] !== b[k]);
  if (differs.length === 0) return;
  throw new IrrevonError(
    "usage",
    `${outDir} holds runs made by other code (${differs.join(", ")}); resuming would mix them into one report: pass --fresh to start over, or another --out`,
    {
      details: {
        field: "--out",
        differs: Object.fromEntries(differs.map((k) => [k, { runs: a[k], now: b[k] }])),
      },
    },
  );
}

/** Removes what a run writes into `outDir` (runs, results, environment, report). */
function clearResults(outDir: string): void {
  for (const name of [
    "runs",
    "run-results.json",
    "environment.json",
    "report.json",
    "report.md",
    "report.html",
  ])
    rmSync(join(outDir, name), { recursive: true, force: true });
}

function write(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

/** Runs the matrix; resumable. */
export async function runMatrix(options: MatrixOptions): Promise<MatrixSummary> {
  const started = performance.now();
  const env = options.env ?? process.env;
  const killAfter =
    env[KILL_AFTER_SLOT_ENV] === undefined ? undefined : Number(env[KILL_AFTER_SLOT_ENV]);
  const { plans, rootHash, manifestId } = loadUnits(options.fixturesDir);
  const selected = plans.filter(
    (p) =>
      (options.cells === undefined || options.cells.includes(p.workload.cell_id)) &&
      (options.replicates === undefined || options.replicates.includes(p.workload.replicate_index)),
  );
  // Every value asked for must select something: a typo is an error, never silently dropped.
  const cellIds = new Set(plans.map((p) => p.workload.cell_id));
  const replicateIds = new Set(plans.map((p) => p.workload.replicate_index));
  const unknownCell = options.cells?.find((c) => !cellIds.has(c));
  if (unknownCell !== undefined)
    throw new IrrevonError(
      "usage",
      `--cells: no fixture unit has cell ${JSON.stringify(unknownCell)}; known cells: ${[...cellIds].sort().join(", ")}`,
      { details: { field: "--cells", value: unknownCell } },
    );
  const unknownReplicate = options.replicates?.find((r) => !replicateIds.has(r));
  if (unknownReplicate !== undefined)
    throw new IrrevonError(
      "usage",
      `--replicates: no fixture unit has replicate ${unknownReplicate}; known replicates: ${[...replicateIds].sort((a, b) => a - b).join(", ")}`,
      { details: { field: "--replicates", value: unknownReplicate } },
    );
  if (selected.length === 0)
    throw new IrrevonError("usage", "no fixture unit matches --cells/--replicates", {
      details: { field: "--cells" },
    });
  const environment: EnvironmentRecord = captureEnvironment(options.root, killAfter !== undefined);
  if (options.fresh === true) clearResults(options.outDir);
  else refuseOtherCode(options.outDir, environment);
  mkdirSync(join(options.outDir, "runs"), { recursive: true });
  write(join(options.outDir, "environment.json"), checkedText(environment));
  const total = selected.length * options.arms.length;
  let done = 0;
  let ranHere = 0;
  const outcomes: SlotOutcome[] = [];
  try {
    await runSlots();
  } finally {
    await options.backend.finish?.();
  }
  async function runSlots(): Promise<void> {
    for (const plan of selected) {
      for (const arm of options.arms) {
        const outcome = await runSlot(plan, arm, {
          outDir: options.outDir,
          environment,
          backend: options.backend,
          postgresUrl: options.postgresUrl,
          onPoint: () => {
            if (killAfter !== undefined && ranHere === killAfter)
              process.kill(process.pid, "SIGKILL");
          },
        });
        if (outcome.status !== "skipped-duplicate") ranHere += 1;
        outcomes.push(outcome);
        done += 1;
        options.onProgress?.({
          done,
          total,
          elapsedS: (performance.now() - started) / 1000,
          slot: outcome.base_run_id,
          status: outcome.status,
        });
      }
    }
  }
  const results = collectResults(options.outDir);
  write(join(options.outDir, "run-results.json"), artifactText(runResultsOf(results)));
  return {
    slots: total,
    ran: outcomes.filter((o) => o.status === "ran").length,
    skipped_duplicate: outcomes.filter((o) => o.status === "skipped-duplicate").length,
    unresolved_slots: outcomes
      .filter((o) => o.status === "unresolved-slot")
      .map((o) => o.base_run_id),
    runs_valid: results.filter((r) => r.validity.status === "VALID").length,
    runs_invalid: results.filter((r) => r.validity.status === "INVALID").length,
    wall_time_s: Math.round(performance.now() - started) / 1000,
    environment_digest: environment.environment_digest,
    manifest_root_hash: rootHash,
    manifest_id: manifestId,
  };
}
