/**
 * bench/engine/report — the engine benchmark's report: the JSON document
 * (bench-results/engine.json, format `irrevon-bench-engine/v1`), every figure judged against
 * its goal in the same run, and the Markdown rendering (bench-results/engine.md). A goal is
 * stated and judged, never tuned: `met` is whatever the numbers say, and every row that is
 * not met carries its explanation, built from figures of the same run.
 *
 * HOOK — adding a row. Write a judge `(run: MeasuredRun) => Target[]` (in its own module
 * if it is more than a few lines) and append it to {@link TARGET_JUDGES}. A figure that the
 * run does not measure yet goes into `MeasuredRun.extra` under a key of its own (set it in
 * run-engine-bench.ts, read it in the judge); a section of its own is one more entry in
 * {@link SECTION_RENDERERS}. Nothing else needs to change: the table, the JSON and the
 * script's summary pick the rows up. Imports: bench.
 */
import type { PhysicalLimitRun } from "./commit-floor.js";
import type { PerEffectResult } from "./per-effect.js";
import type { RecoveryRun } from "./recovery-bench.js";
import { judgeStartup, renderStartup, type StartupResult } from "./startup.js";
import type { LatencySummary } from "./stats.js";
import type { ThroughputRun } from "./throughput.js";

export interface HostInfo {
  readonly cpus: number;
  readonly node: string;
  readonly platform: string;
  readonly postgres: string | null;
  readonly pglite: string;
  readonly durability: Readonly<Record<string, string>> | null;
  /** 1-minute load average when the run started and ended (other work on the machine shows here). */
  readonly loadAverage: { readonly start: number; readonly end: number };
}

/** One figure judged against its goal. */
export interface Target {
  readonly name: string;
  /** The goal, as stated in the issue. */
  readonly target: string;
  readonly measured: string;
  /** null: reported without a goal. */
  readonly met: boolean | null;
  /** Why the goal was not met, from figures of the same run (always set when `met` is false). */
  readonly explanation?: string;
}

/** Everything one run measured: what the judges and the section renderers read. */
export interface MeasuredRun {
  readonly command: string;
  readonly host: HostInfo;
  readonly perEffect: readonly PerEffectResult[];
  readonly throughput: readonly ThroughputRun[];
  readonly physicalLimit: readonly PhysicalLimitRun[];
  /** Recovery of N AMBIGUOUS effects, per backend (empty when skipped). */
  readonly recovery: readonly RecoveryRun[];
  /** Embedded open, demo and CLI start (null when the run skipped them). */
  readonly startup: StartupResult | null;
  /** Figures added through the hook (see the file header), by key. */
  readonly extra: Readonly<Record<string, unknown>>;
}

export interface EngineBenchReport extends MeasuredRun {
  readonly format: "irrevon-bench-engine/v1";
  readonly generatedAt: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly targets: readonly Target[];
}

/** Judges some figures of a run against their goals. */
export type TargetJudge = (run: MeasuredRun) => Target[];

const fmt = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** The Python engine's published figures the speed goals are stated against (issue 11). */
export const PYTHON_BASELINE = {
  /** Clean guarded effect, ms per effect. */
  cleanEffectMs: 11.1,
  /** Recovery of 200 AMBIGUOUS effects, seconds (range of its runs; the goal uses the faster). */
  recovery200Seconds: { min: 1.15, max: 1.7 },
} as const;

/** "Measured on a loaded machine" context for every timed row that misses its goal. */
function loadNote(run: MeasuredRun): string {
  const { start, end } = run.host.loadAverage;
  const busy = Math.max(start, end) > run.host.cpus;
  return (
    `1-minute load average ${fmt(start, 1)}→${fmt(end, 1)} on ${run.host.cpus} CPUs` +
    (busy ? " (more runnable processes than cores: every timing is inflated)" : "")
  );
}

function roundTripsOf(p: PerEffectResult): number {
  return p.commitsPerEffect.roundTrips;
}

/** Clean guarded effect: commits, round trips, cost vs the in-run floor and vs Python. */
export function judgeCleanEffect(run: MeasuredRun): Target[] {
  const out: Target[] = [];
  for (const r of run.perEffect) {
    const c = r.commitsPerEffect;
    const shape =
      `${fmt(c.transactions, 2)} explicit transactions, ${fmt(c.statementsInTransactions, 2)} statements inside them, ` +
      `${fmt(c.standaloneStatements, 2)} standalone statements per effect`;
    out.push({
      name: `durable commits per clean effect (${r.backend})`,
      target: "≤ 2",
      measured: `${fmt(c.durableLedger, 2)} ledger + ${fmt(c.leaseOnly, 2)} lease upkeep`,
      met: c.durable <= 2,
      ...(c.durable <= 2
        ? {}
        : {
            explanation: `the engine wrote in ${fmt(c.durable, 2)} separate transactions per effect (distinct xmin of the rows it left; ${shape})`,
          }),
    });
    const rt = roundTripsOf(r);
    out.push({
      name: `round trips per clean effect (${r.backend})`,
      target: "≤ 4",
      measured: `${fmt(rt, 2)} (driver count: statements + BEGIN/COMMIT)`,
      met: rt <= 4,
      ...(rt <= 4 ? {} : { explanation: `${shape}; every statement is a round trip` }),
    });
    const twoCommits = 2 * r.floor.durableInsert.medianMs;
    const ratio = r.guarded.medianMs / twoCommits;
    out.push({
      name: `guarded-effect cost vs two durable commits (${r.backend})`,
      target: "median ≤ 3 × (2 × single-row insert commit)",
      measured: `${fmt(r.guarded.medianMs)} ms vs 3 × ${fmt(twoCommits)} ms (ratio ${fmt(ratio, 2)}×)`,
      met: r.guarded.medianMs <= 3 * twoCommits,
      ...(r.guarded.medianMs <= 3 * twoCommits
        ? {}
        : {
            explanation: `${fmt(rt, 1)} round trips and ${fmt(c.durable, 1)} durable commits per effect against a floor of 2 commits; ${loadNote(run)}`,
          }),
    });
    const goalMs = PYTHON_BASELINE.cleanEffectMs / 5;
    const speedup = PYTHON_BASELINE.cleanEffectMs / r.guarded.medianMs;
    out.push({
      name: `clean guarded effect vs the Python engine (${r.backend})`,
      target: `≥ 5× Python (${PYTHON_BASELINE.cleanEffectMs} ms/effect): median ≤ ${fmt(goalMs, 2)} ms`,
      measured: `${fmt(r.guarded.medianMs)} ms (${fmt(speedup, 2)}× Python)`,
      met: r.guarded.medianMs <= goalMs,
      ...(r.guarded.medianMs <= goalMs
        ? {}
        : {
            explanation: `${fmt(rt, 1)} round trips per effect at a median single-row commit of ${fmt(r.floor.durableInsert.medianMs)} ms in this run; ${loadNote(run)}`,
          }),
    });
    if (r.commitsPerEffect.server !== null) {
      const s = r.commitsPerEffect.server;
      out.push({
        name: `server-counted commits and WAL per clean effect (${r.backend})`,
        target: "reported (no goal)",
        measured:
          `xact_commit ${fmt(s.xactCommit, 2)}, rollbacks ${fmt(s.xactRollback, 2)}, WAL records ${s.walRecords === null ? "n/a" : fmt(s.walRecords, 1)}, ` +
          `full-page images ${s.walFpi === null ? "n/a" : fmt(s.walFpi, 2)}, WAL bytes ${s.walBytes === null ? "n/a" : fmt(s.walBytes, 0)} (pg_stat_wal is cluster-wide)`,
        met: null,
      });
    }
  }
  return out;
}

/** Many workers: rising to the core count, and the best against the in-run commit limit. */
export function judgeWorkers(run: MeasuredRun): Target[] {
  const out: Target[] = [];
  const cpus = run.host.cpus;
  const upTo = run.throughput
    .filter((t) => t.workers <= cpus)
    .sort((a, b) => a.workers - b.workers);
  if (upTo.length >= 2) {
    const rising = upTo.every(
      (t, i) => i === 0 || t.effectsPerSecond > (upTo[i - 1]?.effectsPerSecond ?? 0),
    );
    out.push({
      name: "throughput rises with workers up to the core count (postgres)",
      target: `effects/s strictly rising for 1..${cpus} workers`,
      measured: upTo.map((t) => `${t.workers}w ${fmt(t.effectsPerSecond, 0)}/s`).join(", "),
      met: rising,
      ...(rising
        ? {}
        : {
            explanation: `the worker processes compete for ${cpus} cores with the server; ${loadNote(run)}`,
          }),
    });
  }
  const pg = run.perEffect.find((p) => p.backend === "postgres");
  const limit = [...run.physicalLimit].sort((a, b) => b.commitsPerSecond - a.commitsPerSecond)[0];
  const best = [...run.throughput].sort((a, b) => b.effectsPerSecond - a.effectsPerSecond)[0];
  if (pg !== undefined && limit !== undefined && best !== undefined) {
    const ceiling = limit.commitsPerSecond / pg.commitsPerEffect.durable;
    const share = best.effectsPerSecond / ceiling;
    out.push({
      name: "best worker count vs the in-run commit limit (postgres)",
      target: "≥ 50 % of (commit limit ÷ commits per effect)",
      measured:
        `${fmt(best.effectsPerSecond, 1)} effects/s at ${best.workers} workers vs ${fmt(limit.commitsPerSecond, 0)} commits/s ` +
        `(${limit.connections} connections) ÷ ${fmt(pg.commitsPerEffect.durable, 2)} = ${fmt(ceiling, 0)}/s: ${fmt(100 * share, 0)} %`,
      met: share >= 0.5,
      ...(share >= 0.5
        ? {}
        : {
            explanation: `an effect costs ${fmt(roundTripsOf(pg), 1)} round trips and the engine's own CPU per effect, where the limit is one round trip per commit; ${loadNote(run)}`,
          }),
    });
  }
  return out;
}

/** Recovery of N AMBIGUOUS effects vs the Python engine. */
export function judgeRecovery(run: MeasuredRun): Target[] {
  return run.recovery.map((r) => {
    const python = PYTHON_BASELINE.recovery200Seconds;
    // Scaled to the run's N (the Python figure is for 200).
    const goalMs = ((python.min * 1000) / 5) * (r.effects / 200);
    const met = r.wallMs <= goalMs;
    return {
      name: `recovery of ${r.effects} AMBIGUOUS effects (${r.backend})`,
      target: `≥ 5× Python (${python.min}–${python.max} s for 200): ≤ ${fmt(goalMs, 0)} ms`,
      measured:
        `${fmt(r.wallMs, 0)} ms (${fmt((python.min * 1000 * (r.effects / 200)) / r.wallMs, 2)}× Python's faster run); ` +
        `concurrency ${r.concurrency}, page ${r.pageSize}, ${fmt(r.roundTripsPerEffect, 1)} round trips and ` +
        `${fmt(r.statusQueries / r.effects, 2)} status queries per effect`,
      met,
      ...(met
        ? {}
        : {
            explanation:
              `each adjudication reads its record, execution, attempts, receipts and probes one statement at a time ` +
              `(${fmt(r.roundTripsPerEffect, 1)} round trips per effect)` +
              (r.backend === "pglite"
                ? "; the embedded database runs one statement at a time, so lanes only take turns"
                : "") +
              `; ${loadNote(run)}`,
          }),
    };
  });
}

/** Startup goals (bench/engine/startup), with the explanations of this run. */
export function judgeStartupTargets(run: MeasuredRun): Target[] {
  if (run.startup === null) return [];
  return judgeStartup(run.startup).map((t) =>
    t.met || t.explanation !== undefined ? t : { ...t, explanation: loadNote(run) },
  );
}

/** Every judge, in table order. Append a judge here to add rows (see the file header). */
export const TARGET_JUDGES: readonly TargetJudge[] = [
  judgeCleanEffect,
  judgeWorkers,
  judgeRecovery,
  judgeStartupTargets,
];

/** Runs every judge over `run`. */
export function judgeAll(run: MeasuredRun): Target[] {
  return TARGET_JUDGES.flatMap((judge) => judge(run));
}

function latencyRow(label: string, l: LatencySummary): string {
  return `| ${label} | ${l.n} | ${fmt(l.medianMs)} | ${fmt(l.p99Ms)} | ${fmt(l.meanMs)} |`;
}

const cell = (s: string): string => s.replace(/\|/g, "\\|");

function metCell(t: Target): string {
  if (t.met === null) return "—";
  return t.met ? "yes" : "**no**";
}

function renderPerEffect(r: EngineBenchReport): string[] {
  const lines = [
    "## Per effect (register + claim + record) vs calling the destination directly",
    "",
    "Zero-latency destination (in-process reference destination, C2). Times in milliseconds.",
    "",
  ];
  for (const p of r.perEffect) {
    const c = p.commitsPerEffect;
    const s = p.commitsPerEffect.server;
    lines.push(
      `### ${p.backend}`,
      "",
      "| measurement | n | median | p99 | mean |",
      "| --- | --- | --- | --- | --- |",
      latencyRow("direct destination call", p.direct),
      latencyRow("guarded effect (register + dispatch)", p.guarded),
      latencyRow("empty transaction (BEGIN/COMMIT)", p.floor.emptyTransaction),
      latencyRow("single-row insert commit (durable)", p.floor.durableInsert),
      "",
      `Ratios (medians): guarded / direct = ${fmt(p.guarded.medianMs / p.direct.medianMs, 1)}×; ` +
        `guarded / two durable commits = ${fmt(p.guarded.medianMs / (2 * p.floor.durableInsert.medianMs), 2)}×; ` +
        `guarded / two empty transactions = ${fmt(p.guarded.medianMs / (2 * p.floor.emptyTransaction.medianMs), 2)}×.`,
      "",
      "| per clean effect (counted) | value |",
      "| --- | --- |",
      `| durable commits (xid-bearing), total | ${fmt(c.durable, 2)} |`,
      `| — of which ledger writes | ${fmt(c.durableLedger, 2)} |`,
      `| — of which lease upkeep only | ${fmt(c.leaseOnly, 2)} |`,
      `| explicit transactions (incl. read-only) | ${fmt(c.transactions, 2)} |`,
      `| statements inside transactions | ${fmt(c.statementsInTransactions, 2)} |`,
      `| standalone statements | ${fmt(c.standaloneStatements, 2)} |`,
      `| round trips (driver: statements + BEGIN/COMMIT) | ${fmt(roundTripsOf(p), 2)} |`,
      `| pg_stat_database xact_commit delta | ${s === null ? "n/a" : fmt(s.xactCommit, 2)} |`,
      `| pg_stat_database xact_rollback delta | ${s === null ? "n/a" : fmt(s.xactRollback, 2)} |`,
      `| pg_stat_wal wal_records delta (cluster-wide) | ${s?.walRecords == null ? "n/a" : fmt(s.walRecords, 1)} |`,
      `| pg_stat_wal wal_fpi delta (cluster-wide) | ${s?.walFpi == null ? "n/a" : fmt(s.walFpi, 2)} |`,
      `| pg_stat_wal wal_bytes delta (cluster-wide) | ${s?.walBytes == null ? "n/a" : fmt(s.walBytes, 0)} |`,
      "",
    );
  }
  return lines;
}

function renderThroughput(r: EngineBenchReport): string[] {
  const lines = [
    "## Throughput on Postgres (engine processes, each with its own slots)",
    "",
    "| workers | effects | effects/s | median ms | p99 ms | errors |",
    "| --- | --- | --- | --- | --- | --- |",
    ...r.throughput.map(
      (t) =>
        `| ${t.workers} | ${t.effects} | ${fmt(t.effectsPerSecond, 1)} | ${fmt(t.latency.medianMs)} | ${fmt(t.latency.p99Ms)} | ${t.errors} |`,
    ),
    "",
    "## Physical limit: single-row insert commits per second, same server, same settings",
    "",
    "| connections | commits | commits/s |",
    "| --- | --- | --- |",
    ...r.physicalLimit.map(
      (p) => `| ${p.connections} | ${p.commits} | ${fmt(p.commitsPerSecond, 1)} |`,
    ),
    "",
  ];
  const pg = r.perEffect.find((p) => p.backend === "postgres");
  const best = [...r.physicalLimit].sort((a, b) => b.commitsPerSecond - a.commitsPerSecond)[0];
  const top = [...r.throughput].sort((a, b) => b.effectsPerSecond - a.effectsPerSecond)[0];
  if (pg !== undefined && best !== undefined && top !== undefined) {
    lines.push(
      `At its best (${top.workers} workers) the engine made ${fmt(top.effectsPerSecond, 1)} effects/s × ` +
        `${fmt(pg.commitsPerEffect.durable, 2)} durable commits = ${fmt(top.effectsPerSecond * pg.commitsPerEffect.durable, 0)} commits/s, ` +
        `against ${fmt(best.commitsPerSecond, 0)} single-row commits/s at ${best.connections} connections ` +
        `(${fmt((100 * top.effectsPerSecond * pg.commitsPerEffect.durable) / best.commitsPerSecond, 0)}% of the physical limit).`,
      "",
    );
  }
  return lines;
}

function renderRecovery(r: EngineBenchReport): string[] {
  if (r.recovery.length === 0) return [];
  return [
    "## Recovery of a backlog of AMBIGUOUS effects",
    "",
    "One engine leaves the backlog (every create's response dropped: half after the destination " +
      "committed, half before); a fresh engine's `recover()` is timed. Every effect must end settled " +
      "(present ⇒ COMMITTED after one status query, absent ⇒ LOST after two, re-read gap 0).",
    "",
    "| backend | effects | concurrency | page | wall ms | ms/effect | round trips/effect | transactions/effect | status queries |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...r.recovery.map(
      (x) =>
        `| ${x.backend} | ${x.effects} | ${x.concurrency} | ${x.pageSize} | ${fmt(x.wallMs, 0)} | ${fmt(x.wallMs / x.effects, 2)} | ${fmt(x.roundTripsPerEffect, 1)} | ${fmt(x.transactionsPerEffect, 2)} | ${x.statusQueries} |`,
    ),
    "",
  ];
}

function renderStartupSection(r: EngineBenchReport): string[] {
  return r.startup === null ? [] : renderStartup(r.startup);
}

/** Sections after the targets table, in order. Append one to add a section (see the header). */
export const SECTION_RENDERERS: readonly ((r: EngineBenchReport) => string[])[] = [
  renderPerEffect,
  renderThroughput,
  renderRecovery,
  renderStartupSection,
];

/** The Markdown report. */
export function renderMarkdown(r: EngineBenchReport): string {
  const lines: string[] = [
    "# Engine benchmark",
    "",
    `Generated ${r.generatedAt} on ${r.host.cpus} CPUs, Node ${r.host.node}, ` +
      `${r.host.postgres ?? "no Postgres"}, PGlite ${r.host.pglite}; ` +
      `1-minute load average ${fmt(r.host.loadAverage.start, 2)} at the start, ${fmt(r.host.loadAverage.end, 2)} at the end.`,
    "",
    "Command:",
    "",
    "```sh",
    r.command,
    "```",
    "",
    r.host.durability === null
      ? ""
      : `Postgres durability: ${Object.entries(r.host.durability)
          .map(([k, v]) => `${k}=${v}`)
          .join(", ")}.`,
    "",
    "## Targets",
    "",
    "Every figure of this run against its goal; a row that is not met says why, from figures of the same run.",
    "",
    "| figure | goal | measured | met | why not met |",
    "| --- | --- | --- | --- | --- |",
    ...r.targets.map(
      (t) =>
        `| ${cell(t.name)} | ${cell(t.target)} | ${cell(t.measured)} | ${metCell(t)} | ${cell(t.explanation ?? "")} |`,
    ),
    "",
  ];
  for (const section of SECTION_RENDERERS) lines.push(...section(r));
  return lines.filter((l, i, all) => !(l === "" && all[i - 1] === "")).join("\n");
}
