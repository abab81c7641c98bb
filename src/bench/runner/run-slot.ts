/**
 * bench/runner/run-slot — one slot (one unit × one arm) with at most three attempts
 * (reference-bench §4, prereg slots):
 *
 * - a slot directory with a VALID `result.json` ⇒ `skipped-duplicate` (never run twice);
 * - a `run-manifest.json` without `result.json` (the runner died mid-attempt) is finalized
 *   INVALID `harness-corruption`, kept and counted; the next attempt replaces it
 *   (`replaces_run_id`), same seed;
 * - after three INVALID attempts the slot is `unresolved-slot` (reported, never dropped).
 *
 * One attempt: seed check, a fresh reference destination with the cell's profile, reset
 * verification (empty truth), the write-ahead run manifest, every trial in order through
 * bench/faults/drive-unit `driveTrials` (the same code the strength locks run; each report is
 * appended to `journal.jsonl` as its trial ends), then the read-back, the metrics, the history,
 * the cross-check of all eight metrics, and `result.json` last. Every document is schema-validated before it is
 * written. An arm's own failure is VALID and scored (`arm-crashed`); only seed mismatch, a
 * non-empty destination, metric/history divergence or an interrupted attempt make a run INVALID.
 * Imports: node, bench/{arms (types),faults,fixtures,metrics,oracles,runner}.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../core/canonical.js";
import type { ArmDriver } from "../arms/arm.js";
import { driveTrials, openUnitDestination, type UnitDocuments } from "../faults/drive-unit.js";
import { cellSlug } from "../fault-model.js";
import { artifactDigest } from "../fixtures/artifact-bytes.js";
import type { Workload } from "../fixtures/documents.js";
import { deriveUnitSeed } from "../fixtures/seeds.js";
import { emptyCell, METRIC_KEYS, type MetricTable } from "../metrics/metric-cells.js";
import { crossCheckMetrics, type CrossCheckDiscrepancy } from "../oracles/cross-check.js";
import { buildHistory, checkHistoryDocument } from "../oracles/history.js";
import { readBack } from "../oracles/readback.js";
import { checkedText, RUNNER_FORMATS, type InvalidClass } from "./documents.js";
import type { EnvironmentRecord } from "./environment.js";
import { scoredTrials, scoreRun } from "./score-run.js";

export const MAX_ATTEMPTS = 3;
export const HARNESS_VERSION = "irrevon-bench-runner/2";
const EPOCH = "1970-01-01T00:00:00.000Z";

/**
 * What the runner needs besides fixtures: the arms. Destination, faults and episodes are not
 * pluggable: the runner drives trials exactly as the strength locks do (bench/faults).
 */
export interface BenchBackend {
  createArm(id: string): ArmDriver<string>;
  /** Releases what the arms keep across units (shared ledgers, databases); once per run. */
  finish?(): Promise<void>;
}

export interface UnitPlan extends UnitDocuments {
  readonly manifestRootHash: string;
  readonly masterSeed: string;
}

export interface SlotContext {
  readonly outDir: string;
  readonly environment: EnvironmentRecord;
  readonly backend: BenchBackend;
  readonly postgresUrl: string | null;
  /** Called at named points of an attempt (the process test kills the runner there). */
  readonly onPoint?: (point: "after-first-journal-line") => void;
}

/** The result document (`irrevonbench/result/v2`). */
export interface ResultDocument {
  readonly format: typeof RUNNER_FORMATS.result;
  readonly run_id: string;
  readonly attempt: number;
  readonly replaces_run_id: string | null;
  readonly arm: string;
  readonly cell_id: string;
  readonly replicate_index: number;
  readonly workload_id: string;
  readonly confirmatory: false;
  readonly labels: readonly string[];
  readonly completed_at: string;
  readonly validity: {
    readonly status: "VALID" | "INVALID";
    readonly invalid_class: InvalidClass | null;
    readonly evidence: readonly string[];
  };
  readonly trials: readonly {
    trial_index: number;
    arm_outcome: string;
    dispatch_attempted: boolean;
    oracle_claim: string | null;
  }[];
  readonly oracle_readback: Readonly<Record<string, unknown>>;
  readonly metrics: MetricTable;
  readonly evidence: {
    readonly artifact_digests: { readonly run_manifest: string; readonly journal: string | null };
  };
  readonly residual_effects_after_cleanup: 0;
  readonly wall_time_s: number;
  readonly history: Readonly<Record<string, unknown>> | null;
}

export interface SlotOutcome {
  readonly status: "ran" | "skipped-duplicate" | "unresolved-slot";
  readonly base_run_id: string;
  /** Every attempt's result, oldest first (INVALID ones included). */
  readonly results: readonly ResultDocument[];
}

/** `<cell slug>.r<replicate>.<arm slug>`; attempts 2 and 3 append `.attempt<k>`. */
export function slotRunId(workload: Workload, armId: string, attempt = 1): string {
  const arm = armId.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  const base = `${cellSlug(workload.cell)}.r${workload.replicate_index}.${arm}`;
  return attempt === 1 ? base : `${base}.attempt${attempt}`;
}

function writeAtomic(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
const fileDigest = (path: string): string | null =>
  existsSync(path) ? sha256Hex(readFileSync(path)) : null;
const allNA = (): MetricTable =>
  Object.fromEntries(METRIC_KEYS.map((k) => [k, emptyCell("N/A")])) as unknown as MetricTable;
function labels(workload: Workload): string[] {
  return workload.cell.destination_kind === "refdest"
    ? ["non-confirmatory", "synthetic-destination", "S-REF"]
    : ["non-confirmatory"];
}

function invalidResult(
  dir: string,
  runId: string,
  attempt: number,
  replaces: string | null,
  armId: string,
  workload: Workload,
  invalidClass: InvalidClass,
  evidence: string[],
  completedAt: string,
  wallTime: number,
): ResultDocument {
  return {
    format: RUNNER_FORMATS.result,
    run_id: runId,
    attempt,
    replaces_run_id: replaces,
    arm: armId,
    cell_id: workload.cell_id,
    replicate_index: workload.replicate_index,
    workload_id: workload.workload_id,
    confirmatory: false,
    labels: labels(workload),
    completed_at: completedAt,
    validity: { status: "INVALID", invalid_class: invalidClass, evidence },
    trials: [],
    oracle_readback: { performed: false },
    metrics: allNA(),
    evidence: {
      artifact_digests: {
        run_manifest: fileDigest(join(dir, "run-manifest.json")) ?? "0".repeat(64),
        journal: fileDigest(join(dir, "journal.jsonl")),
      },
    },
    residual_effects_after_cleanup: 0,
    wall_time_s: wallTime,
    history: null,
  };
}

function readResult(dir: string): ResultDocument | null {
  const path = join(dir, "result.json");
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as ResultDocument) : null;
}

/** Runs (or resumes) one slot. */
export async function runSlot(
  plan: UnitPlan,
  armId: string,
  ctx: SlotContext,
): Promise<SlotOutcome> {
  const base = slotRunId(plan.workload, armId);
  const results: ResultDocument[] = [];
  let replaces: string | null = null;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const runId = slotRunId(plan.workload, armId, attempt);
    const dir = join(ctx.outDir, "runs", runId);
    let result = readResult(dir);
    if (result?.validity.status === "VALID")
      return { status: "skipped-duplicate", base_run_id: base, results: [...results, result] };
    if (result === null && existsSync(join(dir, "run-manifest.json"))) {
      const manifest = JSON.parse(readFileSync(join(dir, "run-manifest.json"), "utf8")) as {
        replaces_run_id: string | null;
      };
      result = invalidResult(
        dir,
        runId,
        attempt,
        manifest.replaces_run_id,
        armId,
        plan.workload,
        "harness-corruption",
        ["interrupted attempt: run-manifest.json without result.json found at resume"],
        EPOCH,
        0,
      );
      writeAtomic(join(dir, "result.json"), checkedText(result));
    }
    if (result === null) {
      result = await runAttempt(plan, armId, ctx, runId, attempt, replaces, dir);
      if (result.validity.status === "VALID")
        return { status: "ran", base_run_id: base, results: [...results, result] };
    }
    results.push(result);
    replaces = runId;
  }
  return { status: "unresolved-slot", base_run_id: base, results };
}

async function runAttempt(
  plan: UnitPlan,
  armId: string,
  ctx: SlotContext,
  runId: string,
  attempt: number,
  replaces: string | null,
  dir: string,
): Promise<ResultDocument> {
  const started = performance.now();
  const wall = (): number => Math.round(performance.now() - started) / 1000;
  /** Writes and returns this attempt's INVALID result. */
  const invalid = (c: InvalidClass, why: string): ResultDocument => {
    const r = invalidResult(
      dir,
      runId,
      attempt,
      replaces,
      armId,
      workload,
      c,
      [why],
      new Date().toISOString(),
      wall(),
    );
    writeAtomic(join(dir, "result.json"), checkedText(r));
    return r;
  };
  mkdirSync(join(dir, "arm-work"), { recursive: true });
  const { workload, schedule, variants } = plan;
  const seed = BigInt(workload.seed);
  const seedOk =
    deriveUnitSeed(plan.masterSeed, workload.cell_id, workload.replicate_index) === seed;
  const arm = ctx.backend.createArm(armId);
  const destination = await openUnitDestination(workload);
  try {
    const { control } = destination;
    const before = await control.truth();
    const resetVerified = before.effects.length === 0;
    const manifest = {
      format: RUNNER_FORMATS.runManifest,
      run_id: runId,
      attempt,
      created_at: new Date().toISOString(),
      harness_version: HARNESS_VERSION,
      confirmatory: false,
      plan: {
        manifest_root_hash: plan.manifestRootHash,
        workload_id: workload.workload_id,
        schedule_id: schedule.schedule_id,
        variant_set_id: variants?.variant_set_id ?? null,
        cell_id: workload.cell_id,
        replicate_index: workload.replicate_index,
        seed: workload.seed,
        trial_count: workload.trials.length,
      },
      arm: {
        id: arm.spec.id,
        version: arm.spec.version,
        config_digest: artifactDigest(arm.spec.config),
        real_world: arm.spec.realWorld,
        known_deviations: arm.spec.knownDeviations,
      },
      environment_digest: ctx.environment.environment_digest,
      reset_verification: {
        verified: resetVerified,
        readback_digest: readBack(before.effects, workload.trials, variants).readback_digest,
      },
      replaces_run_id: replaces,
    };
    writeAtomic(join(dir, "run-manifest.json"), checkedText(manifest));
    if (!seedOk)
      return invalid(
        "seed-mismatch",
        `workload seed ${workload.seed} is not derive(master, ${workload.cell_id}, ${workload.replicate_index})`,
      );
    if (!resetVerified)
      return invalid(
        "reset-verification-failed",
        `destination held ${before.effects.length} effect(s) before the run`,
      );

    const journal = join(dir, "journal.jsonl");
    const { reports, trialRefs } = await driveTrials({
      ...plan,
      driver: arm,
      destination,
      workDir: join(dir, "arm-work"),
      postgresUrl: ctx.postgresUrl,
      onTrial: (report, fault) => {
        appendFileSync(
          journal,
          checkedText({
            format: RUNNER_FORMATS.journalLine,
            run_id: runId,
            trial_index: report.trial_index,
            fault,
            report,
          }),
        );
        if (report.trial_index === workload.trials[0]?.trial_index)
          ctx.onPoint?.("after-first-journal-line");
      },
    });
    const truth = await control.truth();
    const readback = readBack(truth.effects, workload.trials, variants, trialRefs);
    const trials = scoredTrials(workload, reports);
    const metrics = scoreRun(workload, arm.spec.flags, trials, readback);
    const history = buildHistory({
      workload,
      injections: schedule.injections,
      armId,
      flags: arm.spec.flags,
      reports,
      readback,
    });
    const verdict = checkHistoryDocument(history);
    const discrepancies: CrossCheckDiscrepancy[] = crossCheckMetrics(metrics, history);
    writeAtomic(join(dir, "history.json"), checkedText(history));
    writeAtomic(
      join(dir, "history-verdict.json"),
      checkedText({
        format: RUNNER_FORMATS.historyVerdict,
        run_id: runId,
        history_digest: history.history_digest,
        violations: verdict.violations,
        diagnostics: verdict.diagnostics,
        cross_check_discrepancies: discrepancies,
      }),
    );
    const divergent = discrepancies.length > 0;
    const result: ResultDocument = {
      ...invalidResult(
        dir,
        runId,
        attempt,
        replaces,
        armId,
        workload,
        "harness-corruption",
        ["x"],
        new Date().toISOString(),
        wall(),
      ),
      validity: divergent
        ? {
            status: "INVALID",
            invalid_class: "harness-corruption",
            evidence: discrepancies.map(
              (d) =>
                `cross-check: ${d.metric}.${d.field} metrics=${String(d.metric_value)} history=${String(d.history_value)}`,
            ),
          }
        : { status: "VALID", invalid_class: null, evidence: [] },
      trials: trials.map((t) => ({
        trial_index: t.trial_index,
        arm_outcome: t.arm_outcome,
        dispatch_attempted:
          reports.find((r) => r.trial_index === t.trial_index)?.dispatch_attempted ?? false,
        oracle_claim: t.oracle_claim,
      })),
      oracle_readback: {
        performed: true,
        readback_digest: readback.readback_digest,
        destination_effect_count: readback.total_effects,
        per_intent_effect_counts: readback.per_intent_effect_counts,
        orphan_effect_count: readback.orphan_effect_count,
        ambiguous_attributions: readback.ambiguous_attributions,
      },
      metrics: divergent ? allNA() : metrics,
      history: {
        history_digest: history.history_digest,
        violations_total: verdict.violations.reduce((s, v) => s + v.count, 0),
        violations_by_invariant: verdict.byInvariant,
        diagnostics_total: verdict.diagnostics.length,
        cross_check: divergent ? "DIVERGENT" : "CONSISTENT",
      },
    };
    writeAtomic(join(dir, "result.json"), checkedText(result));
    return result;
  } catch (cause) {
    // A harness failure (destination, file system, a document that failed its schema): the
    // attempt is INVALID harness-corruption and the slot moves to its next attempt.
    const inner =
      cause instanceof Error && cause.cause instanceof Error ? ` (${cause.cause.message})` : "";
    const message = (cause instanceof Error ? cause.message : String(cause)) + inner;
    if (!existsSync(join(dir, "run-manifest.json"))) throw cause;
    return invalid("harness-corruption", `harness error: ${message}`);
  } finally {
    await destination.close();
  }
}
