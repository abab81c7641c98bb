/**
 * bench/engine/report — the engine benchmark's report: the JSON document
 * (bench-results/engine.json, format `irrevon-bench-engine/v1`), the targets judged against
 * the measurement, and the Markdown rendering (bench-results/engine.md). A target is stated
 * and judged, never tuned: `met` is whatever the numbers say. Imports: bench.
 */
import type { PhysicalLimitRun } from "./commit-floor.js";
import type { PerEffectResult } from "./per-effect.js";
import { renderStartup, type StartupResult } from "./startup.js";
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

export interface Target {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

export interface EngineBenchReport {
  readonly format: "irrevon-bench-engine/v1";
  readonly generatedAt: string;
  readonly command: string;
  readonly host: HostInfo;
  readonly config: Readonly<Record<string, unknown>>;
  readonly perEffect: readonly PerEffectResult[];
  readonly throughput: readonly ThroughputRun[];
  readonly physicalLimit: readonly PhysicalLimitRun[];
  /** Embedded open, demo and CLI start (null when the run skipped them). */
  readonly startup: StartupResult | null;
  readonly targets: readonly Target[];
}

const fmt = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** The three targets of issue 7, judged against the measurement. */
export function judgeTargets(
  perEffect: readonly PerEffectResult[],
  throughput: readonly ThroughputRun[],
  cpus: number,
): Target[] {
  const out: Target[] = [];
  for (const r of perEffect) {
    out.push({
      name: `durable commits per clean effect (${r.backend})`,
      target: "≤ 2",
      measured: `${fmt(r.commitsPerEffect.durableLedger, 2)} ledger + ${fmt(r.commitsPerEffect.leaseOnly, 2)} lease upkeep`,
      met: r.commitsPerEffect.durable <= 2,
    });
    const twoCommits = 2 * r.floor.durableInsert.medianMs;
    out.push({
      name: `guarded-effect cost vs two durable commits (${r.backend})`,
      target: "median ≤ 3 × (2 × single-row insert commit)",
      measured: `${fmt(r.guarded.medianMs)} ms vs 3 × ${fmt(twoCommits)} ms (ratio ${fmt(r.guarded.medianMs / twoCommits, 2)}×)`,
      met: r.guarded.medianMs <= 3 * twoCommits,
    });
  }
  const upTo = throughput.filter((t) => t.workers <= cpus).sort((a, b) => a.workers - b.workers);
  if (upTo.length >= 2) {
    const rising = upTo.every(
      (t, i) => i === 0 || t.effectsPerSecond > (upTo[i - 1]?.effectsPerSecond ?? 0),
    );
    out.push({
      name: "throughput rises with workers up to the core count (postgres)",
      target: `effects/s strictly rising for 1..${cpus} workers`,
      measured: upTo.map((t) => `${t.workers}w ${fmt(t.effectsPerSecond, 0)}/s`).join(", "),
      met: rising,
    });
  }
  return out;
}

function latencyRow(label: string, l: LatencySummary): string {
  return `| ${label} | ${l.n} | ${fmt(l.medianMs)} | ${fmt(l.p99Ms)} | ${fmt(l.meanMs)} |`;
}

/** The Markdown report. */
export function renderMarkdown(r: EngineBenchReport): string {
  const lines: string[] = [
    "# Engine benchmark",
    "",
    `Generated ${r.generatedAt} by \`${r.command}\` on ${r.host.cpus} CPUs, Node ${r.host.node}, ` +
      `${r.host.postgres ?? "no Postgres"}, PGlite ${r.host.pglite}; ` +
      `1-minute load average ${fmt(r.host.loadAverage.start, 2)} at the start, ${fmt(r.host.loadAverage.end, 2)} at the end.`,
    r.host.durability === null
      ? ""
      : `Postgres durability: ${Object.entries(r.host.durability)
          .map(([k, v]) => `${k}=${v}`)
          .join(", ")}.`,
    "",
    "## Targets",
    "",
    "| target | stated | measured | met |",
    "| --- | --- | --- | --- |",
    ...r.targets.map(
      (t) => `| ${t.name} | ${t.target} | ${t.measured} | ${t.met ? "yes" : "**no**"} |`,
    ),
    "",
    "## Per effect (register + claim + record) vs calling the destination directly",
    "",
    "Zero-latency destination (in-process reference destination, C2). Times in milliseconds.",
    "",
  ];
  for (const p of r.perEffect) {
    const c = p.commitsPerEffect;
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
      `| pg_stat_database xact_commit delta | ${c.xactCommit === null ? "n/a" : fmt(c.xactCommit, 2)} |`,
      "",
    );
  }
  lines.push(
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
  );
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
  if (r.startup !== null) lines.push(...renderStartup(r.startup));
  return lines.filter((l, i, all) => !(l === "" && all[i - 1] === "")).join("\n");
}
