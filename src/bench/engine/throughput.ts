/**
 * bench/engine/throughput — effects per second with 1, 2, 4, 8 … engine processes on one
 * Postgres database. Each process (bench/engine/throughput-worker) has its own zero-latency
 * destination and its own slots, so the processes contend only for the database; all are
 * started and warmed up first, then released by one `GO` line. Besides effects/s it reports the
 * CPU time an effect took in the engine processes and in the local server (bench/engine/
 * server-cpu), which is what bounds the throughput of a machine with few cores. Imports: bench.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { postmasterOfSession, serverCpuMsBetween, serverCpuSnapshot } from "./server-cpu.js";
import { summarize, type LatencySummary } from "./stats.js";

export interface ThroughputRun {
  readonly workers: number;
  readonly durationMs: number;
  readonly effects: number;
  readonly errors: number;
  readonly effectsPerSecond: number;
  readonly latency: LatencySummary;
  /** CPU time per effect of the engine processes (their own accounting over the loop). */
  readonly engineCpuMsPerEffect?: number;
  /** CPU time per effect of the local server's processes (/proc), null where unreadable. */
  readonly serverCpuMsPerEffect?: number | null;
  /** Server processes that ended during the loop (their time is missing from the figure). */
  readonly serverProcessesEnded?: number | null;
}

interface WorkerResult {
  readonly effects: number;
  readonly errors: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly latenciesMs: number[];
}

/** How long a worker may take to close its engine after `END` before it is killed. */
const EXIT_GRACE_MS = 10_000;

/** The worker next to this module: .ts under tsx, .js once built. */
const IS_TS = import.meta.url.endsWith(".ts");
const WORKER_ENTRY = fileURLToPath(
  new URL(`./throughput-worker${IS_TS ? ".ts" : ".js"}`, import.meta.url),
);

function startWorker(env: Record<string, string>): {
  ready: Promise<void>;
  result: Promise<WorkerResult>;
  /** Settles when the process has exited (after `end`), whatever its code. */
  exited: Promise<void>;
  go(): void;
  end(): void;
  kill(): void;
} {
  const child = spawn(process.execPath, [...(IS_TS ? ["--import", "tsx"] : []), WORKER_ENTRY], {
    env: { ...process.env, ...env, IRREVON_BENCH: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr.on("data", (c: Buffer) => stderr.push(c.toString("utf8")));
  const lines = createInterface({ input: child.stdout });
  let onReady: () => void = () => undefined;
  let onResult: (r: WorkerResult) => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const result = new Promise<WorkerResult>((resolve, reject) => {
    onResult = resolve;
    child.on("exit", (code) => {
      if (code !== 0)
        reject(new Error(`throughput worker exited ${String(code)}: ${stderr.join("")}`));
    });
  });
  lines.on("line", (line) => {
    if (line === "READY") onReady();
    else if (line.startsWith("RESULT ")) onResult(JSON.parse(line.slice(7)) as WorkerResult);
  });
  return {
    ready: Promise.race([ready, result.then(() => undefined)]),
    result,
    exited,
    go: () => child.stdin.write("GO\n"),
    end: () => child.stdin.end("END\n"),
    kill: () => child.kill("SIGKILL"),
  };
}

/** The server's postmaster, from a backend of ours; null when /proc cannot show it. */
async function postmasterPid(url: string): Promise<number | null> {
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
    return await postmasterOfSession(c);
  } catch {
    return null;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** One run with `workers` processes for `durationMs`. */
export async function measureThroughput(
  url: string,
  workers: number,
  durationMs: number,
  runTag: string,
): Promise<ThroughputRun> {
  const fleet = Array.from({ length: workers }, (_, i) =>
    startWorker({
      IRREVON_BENCH_DB_URL: url,
      IRREVON_BENCH_WORKER: String(i),
      IRREVON_BENCH_DURATION_MS: String(durationMs),
      IRREVON_BENCH_RUN: runTag,
    }),
  );
  try {
    await Promise.all(fleet.map((w) => w.ready));
    const postmaster = await postmasterPid(url);
    // Every worker's connections are open by now and stay open until its result.
    const serverBefore = postmaster === null ? null : serverCpuSnapshot(postmaster);
    for (const w of fleet) w.go();
    const results = await Promise.all(fleet.map((w) => w.result));
    // Read while every worker still holds its connections (see the worker), then let them go.
    const serverAfter = postmaster === null ? null : serverCpuSnapshot(postmaster);
    for (const w of fleet) w.end();
    // A worker whose close hangs must not hang the run: killed after a grace period.
    await Promise.all(
      fleet.map(async (w) => {
        const grace = setTimeout(() => w.kill(), EXIT_GRACE_MS);
        try {
          await w.exited;
        } finally {
          clearTimeout(grace);
        }
      }),
    );
    const server =
      serverBefore === null || serverAfter === null
        ? null
        : serverCpuMsBetween(serverBefore, serverAfter);
    const effects = results.reduce((s, r) => s + r.effects, 0);
    const perEffect = (ms: number): number => (effects === 0 ? Number.NaN : ms / effects);
    const wallMs = Math.max(...results.map((r) => r.wallMs));
    return {
      workers,
      durationMs: wallMs,
      effects,
      errors: results.reduce((s, r) => s + r.errors, 0),
      effectsPerSecond: effects / (wallMs / 1000),
      latency: summarize(results.flatMap((r) => r.latenciesMs)),
      engineCpuMsPerEffect: perEffect(results.reduce((s, r) => s + r.cpuMs, 0)),
      serverCpuMsPerEffect: server === null ? null : perEffect(server.cpuMs),
      serverProcessesEnded: server === null ? null : server.endedProcesses,
    };
  } catch (e) {
    for (const w of fleet) w.kill();
    throw e;
  }
}
