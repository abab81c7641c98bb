/**
 * bench/engine/throughput-worker — one engine process of the throughput run. Opens the engine
 * on the Postgres database in IRREVON_BENCH_DB_URL with its own zero-latency destination,
 * warms up, prints `READY`, waits for `GO` on stdin, then registers and dispatches its own
 * effects now (`registerAndDispatch`, the path the per-effect goals are judged on; each effect
 * in its own slot) for IRREVON_BENCH_DURATION_MS and prints
 * `RESULT {"effects","errors","wallMs","cpuMs","latenciesMs"}` (cpuMs: this process's CPU time
 * over the measured loop), then keeps its connections open until a second line (`END`) or the
 * end of stdin, and closes. IRREVON_BENCH=1 is set by the parent, so a
 * crash hook left armed refuses to start. Run with `node --import tsx`. Imports: bench.
 */
import { createInterface } from "node:readline";
import { crashPointsFromEnv } from "../../engine/crash-points.js";
import {
  benchContract,
  guardedEffect,
  openBenchEngine,
  zeroLatencyAdapter,
} from "./bench-effects.js";
import { elapsedMs } from "./stats.js";

function required(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === "") throw new Error(`${name} is required`);
  return v;
}

async function main(): Promise<void> {
  crashPointsFromEnv(); // refuses to run with hooks armed under IRREVON_BENCH=1
  const url = required("IRREVON_BENCH_DB_URL");
  const worker = required("IRREVON_BENCH_WORKER");
  const durationMs = Number(required("IRREVON_BENCH_DURATION_MS"));
  const tag = `${required("IRREVON_BENCH_RUN")}-w${worker}`;
  const engine = await openBenchEngine(
    { url },
    zeroLatencyAdapter(Number(worker) + 1),
    `bench-${tag}`,
  );
  for (let i = 0; i < 20; i++)
    await guardedEffect(engine, benchContract(`${tag}-warm`, i), "fused");
  process.stdout.write("READY\n");
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once("line", () => resolve()));
  const latencies: number[] = [];
  let errors = 0;
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; elapsedMs(started) < durationMs; i++) {
    const t = process.hrtime.bigint();
    try {
      await guardedEffect(engine, benchContract(tag, i), "fused");
      latencies.push(elapsedMs(t));
    } catch {
      errors += 1;
    }
  }
  const wallMs = elapsedMs(started);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  process.stdout.write(
    `RESULT ${JSON.stringify({ effects: latencies.length, errors, wallMs, cpuMs, latenciesMs: latencies })}\n`,
  );
  // The connections stay open (their server processes alive) until the parent has read the
  // server's CPU time: a server process that exits takes its CPU time out of /proc.
  await new Promise<void>((resolve) => {
    lines.once("line", () => resolve());
    lines.once("close", () => resolve());
  });
  await engine.close();
  lines.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`throughput-worker: ${String(e)}\n`);
    process.exit(1);
  },
);
