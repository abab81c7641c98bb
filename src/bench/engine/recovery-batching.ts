/**
 * bench/engine/recovery-batching — what batch status lookups do for recovery against a
 * destination with real latency: the same backlog (N AMBIGUOUS effects, half committed, half
 * not) recovered twice on the same backend, each status call taking `latencyMs`, once with
 * single status queries and once with the destination's batch lookup declared
 * (`queryable.batch_max`). Reported, not judged: wall time and wire calls of each, and the
 * ratios. The figures live in `MeasuredRun.extra[RECOVERY_BATCHING_KEY]` (the report's hook);
 * this module holds the measurement, its row in the targets table and its section.
 * Imports: bench.
 */
import type { BenchDatabase } from "./bench-database.js";
import { measureRecovery, type RecoveryRun } from "./recovery-bench.js";
import type { MeasuredRun, Target } from "./report-types.js";

/** The key of these figures in `MeasuredRun.extra`. */
export const RECOVERY_BATCHING_KEY = "recoveryBatching";

/** One backend's comparison. */
export interface RecoveryBatchingRun {
  readonly backend: BenchDatabase["backend"];
  readonly effects: number;
  readonly latencyMs: number;
  readonly batchMax: number;
  readonly single: RecoveryRun;
  readonly batched: RecoveryRun;
}

const fmt = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** Recovers the same kind of backlog twice on `db`: single status queries, then batched. */
export async function measureRecoveryBatching(
  db: BenchDatabase,
  options: {
    readonly effects: number;
    readonly latencyMs: number;
    readonly batchMax: number;
    readonly tag: string;
  },
): Promise<RecoveryBatchingRun> {
  const common = { effects: options.effects, latencyMs: options.latencyMs };
  const single = await measureRecovery(db, { ...common, tag: `${options.tag}-ls` });
  const batched = await measureRecovery(db, {
    ...common,
    tag: `${options.tag}-lb`,
    batchMax: options.batchMax,
  });
  return {
    backend: db.backend,
    effects: options.effects,
    latencyMs: options.latencyMs,
    batchMax: options.batchMax,
    single,
    batched,
  };
}

/** The comparisons a run measured (none when it skipped them). */
export function recoveryBatchingOf(run: MeasuredRun): readonly RecoveryBatchingRun[] {
  const x = run.extra[RECOVERY_BATCHING_KEY];
  return Array.isArray(x) ? (x as RecoveryBatchingRun[]) : [];
}

/** One reported row per backend (no goal: it shows what batching does). */
export function judgeRecoveryBatching(run: MeasuredRun): Target[] {
  return recoveryBatchingOf(run).map((r) => ({
    name: `recovery of ${r.effects} AMBIGUOUS effects, destination latency ${r.latencyMs} ms: single queries vs batched (${r.backend})`,
    target: `reported (no goal): the same backlog with single status queries, then with batch lookups of up to ${r.batchMax} keys`,
    measured:
      `single ${fmt(r.single.wallMs)} ms, ${r.single.wireCalls ?? "n/a"} wire calls; ` +
      `batched ${fmt(r.batched.wallMs)} ms, ${r.batched.wireCalls ?? "n/a"} wire calls ` +
      `(${fmt(r.single.wallMs / r.batched.wallMs, 1)}× faster, ` +
      `${fmt((r.single.wireCalls ?? 0) / Math.max(1, r.batched.wireCalls ?? 0), 1)}× fewer calls)`,
    met: null,
  }));
}

/** The section of the Markdown report. */
export function renderRecoveryBatching(run: MeasuredRun): string[] {
  const rows = recoveryBatchingOf(run);
  if (rows.length === 0) return [];
  const first = rows[0] as RecoveryBatchingRun;
  return [
    `## Recovery against a destination with latency: single status queries vs batched`,
    "",
    `The same kind of backlog as above (${first.effects} AMBIGUOUS effects, half committed, half not; ` +
      `re-read gap 0), recovered with every status call taking ${first.latencyMs} ms at the ` +
      "destination (a DELAY on its reads): once with one status query per read, once with the " +
      `destination's batch lookup declared (\`queryable.batch_max\` ${first.batchMax}, ` +
      "`POST /effects/status`). Both settle every effect the same way; recovery keeps at most " +
      "`recoveryConcurrency` calls in flight per destination either way.",
    "",
    "| backend | effects | latency ms | mode | wall ms | wire calls | of which batch calls |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.flatMap((r) =>
      (
        [
          ["single queries", r.single],
          [`batched (≤ ${r.batchMax} keys)`, r.batched],
        ] as const
      ).map(
        ([mode, x]) =>
          `| ${r.backend} | ${r.effects} | ${r.latencyMs} | ${mode} | ${fmt(x.wallMs)} | ${x.wireCalls ?? "n/a"} | ${x.batchCalls ?? "n/a"} |`,
      ),
    ),
    "",
    ...(rows.some((r) => r.backend === "pglite")
      ? [
          "On the embedded ledger every statement runs after the one before, so there the " +
            "ledger's work, not the destination's latency, bounds the wall time of both modes; " +
            "batching still removes the wire calls.",
          "",
        ]
      : []),
  ];
}
