/**
 * bench/engine/startup — what a user waits for before the ledger does anything: opening a new
 * embedded ledger (file-backed and in memory, each in a fresh process), the flagship demo's
 * wall time and peak resident memory (the largest of its processes, from GNU time), and
 * `irrevon --help` in a fresh process. The demo, the CLI and the open probe run the built
 * package (dist/src/…, `npm run build`), as a user's process would: without the build the demo
 * and CLI figures are reported as not measured, and the probe runs from source under tsx
 * (its on-the-fly compilation then counts in the figure, and a note says so). Never part of a
 * test: times are only reported. Imports: db, bench.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { resolvePgliteImage } from "../../db/pglite-image.js";
import { summarize, type LatencySummary } from "./stats.js";

const IS_TS = import.meta.url.endsWith(".ts");
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = IS_TS ? join(HERE, "..", "..", "..") : join(HERE, "..", "..", "..", "..");
const CLI = join(ROOT, "dist", "src", "cli", "main.js");
const BUILT_PROBE = join(ROOT, "dist", "src", "bench", "engine", "open-probe.js");
/** The built probe (this module's sibling when it runs built); from source only without a build. */
const PROBE_FROM_SOURCE = !existsSync(BUILT_PROBE);
const PROBE = PROBE_FROM_SOURCE ? join(HERE, "open-probe.ts") : BUILT_PROBE;
const GNU_TIME = "/usr/bin/time";

export interface DemoRun {
  /** Where the demo's Irrevon leg kept its ledger. */
  readonly backend?: "embedded" | "postgres";
  readonly wallMs: number;
  /** Largest resident set of the demo or any of its child processes, in MB. */
  readonly peakRssMb: number;
  readonly contrastHolds: boolean;
}

export interface StartupResult {
  /** How the image the opens clone was found (shipped / cache / built). */
  readonly imageSource: string;
  readonly openFile: LatencySummary;
  readonly openMemory: LatencySummary;
  readonly demo: readonly DemoRun[];
  /** The demo with `--database-url` (empty when no Postgres server was given). */
  readonly demoPostgres?: readonly DemoRun[];
  readonly cliHelp: LatencySummary | null;
  /** A bare `node -e 0` in a fresh process: the floor under every fresh-process figure. */
  readonly nodeStart?: LatencySummary;
  readonly notes: readonly string[];
}

function probeOnce(args: readonly string[]): number {
  const run = spawnSync(
    process.execPath,
    [...(PROBE_FROM_SOURCE ? ["--import", "tsx"] : []), PROBE, ...args],
    {
      encoding: "utf8",
    },
  );
  const match = /OPEN_MS ([\d.]+)/.exec(run.stdout);
  if (run.status !== 0 || match?.[1] === undefined) {
    throw new Error(`open-probe ${args.join(" ")} failed: ${run.stderr.slice(-1000)}`);
  }
  return Number(match[1]);
}

function demoOnce(postgresUrl: string | null = null, seed = "42"): DemoRun {
  const dir = mkdtempSync(join(tmpdir(), "irrevon-bench-demo-"));
  try {
    const run = spawnSync(
      GNU_TIME,
      [
        "-f",
        "GNU_TIME %e %M",
        process.execPath,
        CLI,
        "demo",
        "--json",
        "--no-artifact",
        "--dir",
        join(dir, "demo"),
        ...(postgresUrl === null ? [] : ["--database-url", postgresUrl, "--seed", seed]),
      ],
      { encoding: "utf8", cwd: dir },
    );
    const match = /GNU_TIME ([\d.]+) (\d+)/.exec(run.stderr);
    if (match?.[1] === undefined || match[2] === undefined) {
      throw new Error(`demo run failed: ${run.stderr.slice(-1000)}`);
    }
    const summary = JSON.parse(run.stdout) as { contrast_holds?: unknown };
    return {
      backend: postgresUrl === null ? "embedded" : "postgres",
      wallMs: Number(match[1]) * 1000,
      peakRssMb: Number(match[2]) / 1024,
      contrastHolds: summary.contrast_holds === true,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function dropDemoDatabase(url: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await c.end().catch(() => undefined);
  }
}

function nodeStartOnce(): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ["-e", "0"], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`node -e 0 exited ${String(run.status)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function cliHelpOnce(): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`irrevon --help exited ${String(run.status)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs every startup measurement `runs` times (the demo `demoRuns` times). */
export async function measureStartup(options: {
  readonly runs: number;
  readonly demoRuns: number;
  /** Also run the demo on this Postgres server (`--database-url`). */
  readonly postgresUrl?: string | null;
  readonly log?: (line: string) => void;
}): Promise<StartupResult> {
  const log = options.log ?? (() => undefined);
  const notes: string[] = [];
  const image = await resolvePgliteImage();
  const parent = mkdtempSync(join(tmpdir(), "irrevon-bench-open-"));
  const file: number[] = [];
  const memory: number[] = [];
  if (PROBE_FROM_SOURCE)
    notes.push(
      `${BUILT_PROBE} is missing (run npm run build): the opens ran from source under tsx, its compilation included`,
    );
  try {
    log(`embedded open: ${options.runs} × new data directory, ${options.runs} × in memory`);
    for (let i = 0; i < options.runs; i++) {
      file.push(probeOnce(["file", join(parent, `ledger-${i}`)]));
      memory.push(probeOnce(["memory"]));
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
  const demo: DemoRun[] = [];
  const demoPostgres: DemoRun[] = [];
  let cliHelp: LatencySummary | null = null;
  if (!existsSync(CLI)) {
    notes.push(`${CLI} is missing (run npm run build): demo and CLI start not measured`);
  } else {
    if (existsSync(GNU_TIME)) {
      log(`demo: ${options.demoRuns} run(s) under ${GNU_TIME}`);
      for (let i = 0; i < options.demoRuns; i++) demo.push(demoOnce());
      if (options.postgresUrl != null) {
        log(`demo on Postgres: ${options.demoRuns} run(s) under ${GNU_TIME}`);
        // A seed of its own, so the demo's database (irrevon_demo_s<seed>) is this run's.
        const seed = String(100_000 + Math.floor(Math.random() * 899_999));
        try {
          for (let i = 0; i < options.demoRuns; i++)
            demoPostgres.push(demoOnce(options.postgresUrl, seed));
        } finally {
          await dropDemoDatabase(options.postgresUrl, `irrevon_demo_s${seed}`);
        }
      }
    } else {
      notes.push(`${GNU_TIME} is missing: demo wall time and peak RSS not measured`);
    }
    log(`irrevon --help: ${options.runs} fresh processes`);
    const samples: number[] = [];
    for (let i = 0; i < options.runs; i++) samples.push(cliHelpOnce());
    cliHelp = summarize(samples);
  }
  return {
    imageSource: image.source,
    openFile: summarize(file),
    openMemory: summarize(memory),
    demo,
    demoPostgres,
    cliHelp,
    nodeStart: summarize(Array.from({ length: Math.max(1, options.runs) }, nodeStartOnce)),
    notes,
  };
}

/** A judged goal; the same shape as report.ts's Target (not imported: report imports this file). */
export interface StartupTarget {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
  readonly explanation?: string;
}

const fmt = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

function median(xs: readonly number[]): number {
  return summarize(xs).medianMs;
}

/** The startup goals of issue 11, judged against the medians. */
export function judgeStartup(s: StartupResult): StartupTarget[] {
  const out: StartupTarget[] = [
    {
      name: "open a new embedded ledger (file, fresh process)",
      target: "median ≤ 1500 ms",
      measured: `${fmt(s.openFile.medianMs)} ms (min ${fmt(s.openFile.minMs)}, max ${fmt(s.openFile.maxMs)}, n ${s.openFile.n})`,
      met: s.openFile.medianMs <= 1500,
    },
    {
      name: "open a new in-memory ledger (fresh process)",
      target: "median ≤ 1000 ms",
      measured: `${fmt(s.openMemory.medianMs)} ms (min ${fmt(s.openMemory.minMs)}, max ${fmt(s.openMemory.maxMs)}, n ${s.openMemory.n})`,
      met: s.openMemory.medianMs <= 1000,
    },
  ];
  if (s.demo.length > 0) {
    const wall = median(s.demo.map((d) => d.wallMs));
    const rss = Math.max(...s.demo.map((d) => d.peakRssMb));
    const holds = s.demo.every((d) => d.contrastHolds);
    out.push(
      {
        name: "demo wall time (embedded)",
        target: "median < 5000 ms, contrast holds",
        measured: `${fmt(wall)} ms over ${s.demo.length} run(s); contrast holds in ${s.demo.filter((d) => d.contrastHolds).length}`,
        met: wall < 5000 && holds,
      },
      {
        name: "demo peak RSS (largest process, embedded)",
        target: "< 300 MB",
        measured: `${fmt(rss)} MB (worst of ${s.demo.length} run(s))`,
        met: rss < 300,
        ...(rss < 300
          ? {}
          : {
              explanation: `the largest demo process (GNU time reports the biggest of the parent and its engine children, each embedded one holding a PGlite instance) peaked at ${fmt(rss)} MB; memory is not inflated by machine load`,
            }),
      },
    );
  }
  const pgDemo = s.demoPostgres ?? [];
  if (pgDemo.length > 0) {
    const wall = median(pgDemo.map((d) => d.wallMs));
    const rss = Math.max(...pgDemo.map((d) => d.peakRssMb));
    const holds = pgDemo.every((d) => d.contrastHolds);
    out.push({
      name: "demo wall time and peak RSS (Postgres)",
      target: "median < 1500 ms, < 300 MB, contrast holds",
      measured: `${fmt(wall)} ms, ${fmt(rss)} MB over ${pgDemo.length} run(s); contrast holds in ${pgDemo.filter((d) => d.contrastHolds).length}`,
      met: wall < 1500 && rss < 300 && holds,
    });
  }
  if (s.cliHelp !== null) {
    const floor = s.nodeStart?.medianMs;
    const met = s.cliHelp.medianMs <= 250;
    out.push({
      name: "irrevon --help, fresh process",
      target: "median ≤ 250 ms",
      measured:
        `${fmt(s.cliHelp.medianMs)} ms (min ${fmt(s.cliHelp.minMs)}, n ${s.cliHelp.n})` +
        (floor === undefined ? "" : `; bare \`node -e 0\` ${fmt(floor)} ms in the same run`),
      met,
      ...(met || floor === undefined
        ? {}
        : {
            explanation: `starting Node alone took ${fmt(floor)} ms here (${fmt((100 * floor) / s.cliHelp.medianMs)} % of the figure); the CLI's own share was ${fmt(s.cliHelp.medianMs - floor)} ms`,
          }),
    });
  }
  return out;
}

/** The Markdown section for the report. */
export function renderStartup(s: StartupResult): string[] {
  return [
    "## Startup: embedded open, demo, CLI",
    "",
    `Each open is a fresh process cloning the migrated PGlite image (found: ${s.imageSource}); ` +
      "the demo and `--help` run the built package. Times include process start.",
    "",
    "| measurement | n | median ms | min ms | max ms |",
    "| --- | --- | --- | --- | --- |",
    `| open new embedded ledger (file) | ${s.openFile.n} | ${fmt(s.openFile.medianMs)} | ${fmt(s.openFile.minMs)} | ${fmt(s.openFile.maxMs)} |`,
    `| open new in-memory ledger | ${s.openMemory.n} | ${fmt(s.openMemory.medianMs)} | ${fmt(s.openMemory.minMs)} | ${fmt(s.openMemory.maxMs)} |`,
    ...(s.cliHelp === null
      ? []
      : [
          `| irrevon --help | ${s.cliHelp.n} | ${fmt(s.cliHelp.medianMs)} | ${fmt(s.cliHelp.minMs)} | ${fmt(s.cliHelp.maxMs)} |`,
        ]),
    ...(s.nodeStart === undefined
      ? []
      : [
          `| bare node -e 0 (floor) | ${s.nodeStart.n} | ${fmt(s.nodeStart.medianMs)} | ${fmt(s.nodeStart.minMs)} | ${fmt(s.nodeStart.maxMs)} |`,
        ]),
    ...s.demo.map(
      (d, i) =>
        `| demo run ${i + 1} (embedded): wall ms / peak RSS MB / contrast | 1 | ${fmt(d.wallMs)} | ${fmt(d.peakRssMb)} MB | ${String(d.contrastHolds)} |`,
    ),
    ...(s.demoPostgres ?? []).map(
      (d, i) =>
        `| demo run ${i + 1} (Postgres): wall ms / peak RSS MB / contrast | 1 | ${fmt(d.wallMs)} | ${fmt(d.peakRssMb)} MB | ${String(d.contrastHolds)} |`,
    ),
    "",
    ...s.notes.map((n) => `Note: ${n}.`),
    "",
  ];
}
