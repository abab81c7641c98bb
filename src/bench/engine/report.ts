/**
 * bench/engine/report — the engine benchmark's report: the JSON document
 * (bench-results/engine.json, format `irrevon-bench-engine/v1`), every figure judged against
 * its goal in the same run, and the Markdown rendering (bench-results/engine.md). A goal is
 * stated and judged, never tuned: `met` is whatever the numbers say, and every row that is
 * not met carries its explanation, built from figures of the same run.
 *
 * HOOK — adding a row. Write a judge `(run: MeasuredRun) => Target[]` (next to the others in
 * bench/engine/judges, or in a module of its own) and append it to {@link TARGET_JUDGES}. A
 * figure the run does not measure yet goes into `MeasuredRun.extra` under a key of its own
 * (set it in run-engine-bench.ts, read it in the judge); a section is one more entry in
 * {@link SECTION_RENDERERS}. Nothing else needs to change: the table, the JSON and the
 * script's summary pick the rows up. Imports: bench.
 */
import {
  JUDGED_PATH,
  judgeCleanEffect,
  judgeRecovery,
  judgeStartupTargets,
  judgeWorkers,
} from "./judges.js";
import type { CommitsPerEffect } from "./per-effect.js";
import { judgeBusyScope, renderBusyScope } from "./busy-scope.js";
import { judgeRecoveryBatching, renderRecoveryBatching } from "./recovery-batching.js";
import type { ServerDeltas } from "./server-stats.js";
import type { MeasuredRun, Target, TargetJudge } from "./report-types.js";
import { renderStartup } from "./startup.js";
import type { LatencySummary } from "./stats.js";

export type { HostInfo, MeasuredRun, Target, TargetJudge } from "./report-types.js";

export interface EngineBenchReport extends MeasuredRun {
  readonly format: "irrevon-bench-engine/v1";
  readonly generatedAt: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly targets: readonly Target[];
}

const fmt = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** Every judge, in table order. Append a judge here to add rows (see the file header). */
export const TARGET_JUDGES: readonly TargetJudge[] = [
  judgeCleanEffect,
  judgeBusyScope,
  judgeWorkers,
  judgeRecovery,
  judgeRecoveryBatching,
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

function countedRows(c: CommitsPerEffect, t: CommitsPerEffect): string[] {
  const row = (label: string, f: (x: CommitsPerEffect) => string): string =>
    `| ${label} | ${f(c)} | ${f(t)} |`;
  const server = (x: CommitsPerEffect, f: (s: ServerDeltas) => number | null, d: number) => {
    const v = x.server === null ? null : f(x.server);
    return v === null ? "n/a" : fmt(v, d);
  };
  return [
    `| per clean effect (counted) | ${JUDGED_PATH} (fused) | register + dispatch (two calls) |`,
    "| --- | --- | --- |",
    row("durable commits (xid-bearing), total", (x) => fmt(x.durable, 2)),
    row("— of which ledger writes", (x) => fmt(x.durableLedger, 2)),
    row("— of which lease upkeep only", (x) => fmt(x.leaseOnly, 2)),
    row("explicit transactions (incl. read-only)", (x) => fmt(x.transactions, 2)),
    row("statements inside transactions", (x) => fmt(x.statementsInTransactions, 2)),
    row("standalone statements", (x) => fmt(x.standaloneStatements, 2)),
    row("round trips (driver: statements + BEGIN/COMMIT)", (x) => fmt(x.roundTrips, 2)),
    row("pg_stat_database xact_commit delta", (x) => server(x, (s) => s.xactCommit, 2)),
    row("pg_stat_database xact_rollback delta", (x) => server(x, (s) => s.xactRollback, 2)),
    row("pg_stat_wal wal_records delta (cluster-wide)", (x) => server(x, (s) => s.walRecords, 1)),
    row("pg_stat_wal wal_fpi delta (cluster-wide)", (x) => server(x, (s) => s.walFpi, 2)),
    row("pg_stat_wal wal_bytes delta (cluster-wide)", (x) => server(x, (s) => s.walBytes, 0)),
  ];
}

function renderPerEffect(r: EngineBenchReport): string[] {
  const lines = [
    "## Per effect (register + claim + record) vs calling the destination directly",
    "",
    `Zero-latency destination (in-process reference destination, C2). Times in milliseconds. The per-effect goals are judged on register-and-dispatch-now (\`${JUDGED_PATH}\`: registration and claim in one transaction, then the receipt); register then dispatch (two calls) is measured the same way in a loop of its own, after it, and reported beside it.`,
    "",
  ];
  for (const p of r.perEffect) {
    const twoCommits = 2 * p.floor.durableInsert.medianMs;
    const twoEmpty = 2 * p.floor.emptyTransaction.medianMs;
    lines.push(
      `### ${p.backend}`,
      "",
      "| measurement | n | median | p99 | mean |",
      "| --- | --- | --- | --- | --- |",
      latencyRow("direct destination call", p.direct),
      latencyRow(`guarded effect, ${JUDGED_PATH} (fused)`, p.guarded),
      latencyRow("guarded effect, register + dispatch (two calls)", p.twoCall.guarded),
      latencyRow("empty transaction (BEGIN/COMMIT)", p.floor.emptyTransaction),
      latencyRow("single-row insert commit (durable)", p.floor.durableInsert),
      "",
      `Ratios (medians), fused: guarded / direct = ${fmt(p.guarded.medianMs / p.direct.medianMs, 1)}×; ` +
        `guarded / two durable commits = ${fmt(p.guarded.medianMs / twoCommits, 2)}×; ` +
        `guarded / two empty transactions = ${fmt(p.guarded.medianMs / twoEmpty, 2)}×. ` +
        `Two calls: guarded / two durable commits = ${fmt(p.twoCall.guarded.medianMs / twoCommits, 2)}×.`,
      "",
      ...countedRows(p.commitsPerEffect, p.twoCall.commitsPerEffect),
      "",
    );
  }
  return lines;
}

function renderThroughput(r: EngineBenchReport): string[] {
  const lines = [
    "## Throughput on Postgres (engine processes, each with its own slots)",
    "",
    "| workers | effects | effects/s | median ms | p99 ms | errors | engine CPU ms/effect | server CPU ms/effect |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...r.throughput.map(
      (t) =>
        `| ${t.workers} | ${t.effects} | ${fmt(t.effectsPerSecond, 1)} | ${fmt(t.latency.medianMs)} | ${fmt(t.latency.p99Ms)} | ${t.errors} | ` +
        `${t.engineCpuMsPerEffect === undefined ? "n/a" : fmt(t.engineCpuMsPerEffect)} | ${t.serverCpuMsPerEffect === undefined || t.serverCpuMsPerEffect === null ? "n/a" : fmt(t.serverCpuMsPerEffect)} |`,
    ),
    "",
    "CPU per effect: the engine processes' own CPU time over the loop (their in-process " +
      "destination included), and the server's: its postmaster and children, user + system time " +
      "from /proc, process by process, other sessions on the server included (n/a when the " +
      "server is not a local process; a server " +
      "process that ended during the loop is left out, so the figure errs low: " +
      `${r.throughput.map((t) => t.serverProcessesEnded ?? "n/a").join(" / ")} ended in these runs), ` +
      "divided by the effects made. On a machine with few cores their sum bounds effects/s: " +
      "cores × 1000 ÷ (engine + server CPU ms per effect).",
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
    "| backend | effects | ledger effects | lanes (at the ledger at once) | page | wall ms | ms/effect | round trips/effect | transactions/effect | status queries | engine CPU ms/effect | server CPU ms/effect |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...r.recovery.map(
      (x) =>
        `| ${x.backend} | ${x.effects} | ${x.ledgerEffects ?? "n/a"} | ${x.concurrency} (${x.backend === "pglite" ? 1 : Math.min(x.concurrency, x.ledgerConcurrency)}) | ${x.pageSize} | ${fmt(x.wallMs, 0)} | ${fmt(x.wallMs / x.effects, 2)} | ${fmt(x.roundTripsPerEffect, 1)} | ${fmt(x.transactionsPerEffect, 2)} | ${x.statusQueries} | ${fmt(x.engineCpuMsPerEffect, 2)} | ${x.serverCpuMsPerEffect === null ? "n/a" : fmt(x.serverCpuMsPerEffect, 2)} |`,
    ),
    "",
    "CPU per effect over the recovery call: the bench process's own (the engine and its in-process " +
      "destination, and on PGlite the embedded database too), and the local Postgres server's " +
      "processes (/proc, as in the throughput table). On 2 cores their sum bounds the wall time " +
      "from below: effects × (engine + server) ÷ 2.",
    "",
    "The ledger is the run's own: on Postgres recovery runs after the throughput phase filled it, " +
      "so the server's autovacuum of that phase may still run during it (its CPU is counted). " +
      "Finding the open executions reads the derived index of open work (decision 0013), not " +
      "every execution's frontier. On Postgres the lanes' ledger work takes turns at " +
      "`recoveryLedgerConcurrency` (default: the host's CPU count; docs/engine.md, \"At scale: " +
      'pages and lanes"); the embedded ledger runs one statement at a time anyway.',
    "",
  ];
}

function renderStartupSection(r: EngineBenchReport): string[] {
  return r.startup === null ? [] : renderStartup(r.startup);
}

/** Sections after the targets table, in order. Append one to add a section (see the header). */
export const SECTION_RENDERERS: readonly ((r: EngineBenchReport) => string[])[] = [
  renderPerEffect,
  renderBusyScope,
  renderThroughput,
  renderRecovery,
  renderRecoveryBatching,
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
