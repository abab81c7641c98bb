/**
 * scripts/bench-engine — `npm run bench:engine`: runs the engine benchmark
 * (src/bench/engine) and writes bench-results/engine.json and bench-results/engine.md.
 * Options: --quick (small counts, for a smoke run), --out <dir> (default bench-results),
 * --pg <url> (default $IRREVON_BENCH_PG_URL, $DATABASE_URL, or the local server),
 * --recovery <n> (AMBIGUOUS effects in the recovery measurement and in its comparison against a
 * destination with 20 ms latency, single status queries vs batched; full run 200, --quick 20),
 * --no-postgres, --startup-only (only embedded open, demo and CLI start). Not part of `npm test`; test/contract/bench-smoke.test.ts runs a tiny slice.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderMarkdown } from "../src/bench/engine/report.js";
import { runHotPathBench } from "../src/bench/engine/hot-path.js";
import { FULL_BENCH, runEngineBench } from "../src/bench/engine/run-engine-bench.js";

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const out = option(args, "--out") ?? "bench-results";
  const postgresUrl = args.includes("--no-postgres")
    ? null
    : (option(args, "--pg") ??
      process.env["IRREVON_BENCH_PG_URL"] ??
      process.env["DATABASE_URL"] ??
      "postgres://postgres@127.0.0.1:5432/postgres");
  const size = quick
    ? {
        effects: 30,
        warmup: 5,
        workers: [1, 2],
        throughputMs: 1_500,
        physicalConnections: [1, 2],
        physicalMs: 1_000,
        startupRuns: 2,
        demoRuns: 1,
        recoveryEffects: 20,
        recoveryLatencyMs: 20,
        busyScopeEffects: 100,
        busyScopeWindow: 20,
      }
    : FULL_BENCH;
  const recovery = option(args, "--recovery");
  if (recovery !== undefined && !/^\d{1,5}$/.test(recovery)) {
    throw new Error("--recovery must be a whole number of effects from 0 to 99999 (e.g. 200)");
  }
  const report = await runEngineBench({
    ...size,
    ...(recovery === undefined ? {} : { recoveryEffects: Number(recovery) }),
    postgresUrl,
    ...(args.includes("--startup-only") ? { backends: [] } : {}),
    command: `npm run bench:engine${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`,
    log: (line) => process.stderr.write(`bench:engine: ${line}\n`),
  });
  mkdirSync(out, { recursive: true });
  // Issue 11: round trips and commits per clean effect, two calls vs fused (own section).
  const hot = await runHotPathBench(
    args.includes("--startup-only") ? null : postgresUrl,
    quick ? 10 : 200,
    !args.includes("--startup-only"),
  );
  writeFileSync(
    join(out, "engine.json"),
    `${JSON.stringify({ ...report, hotPath: hot.rows }, null, 2)}\n`,
  );
  writeFileSync(join(out, "engine.md"), `${renderMarkdown(report)}\n${hot.markdown}`);
  process.stderr.write(
    `bench:engine: wrote ${join(out, "engine.json")} and ${join(out, "engine.md")}\n`,
  );
  for (const t of report.targets) {
    process.stderr.write(
      `  ${t.met === null ? "report " : t.met ? "met    " : "NOT MET"} ${t.name}: ${t.measured} (goal ${t.target})` +
        `${t.explanation === undefined ? "" : ` — ${t.explanation}`}\n`,
    );
  }
}

main().catch((e: unknown) => {
  process.stderr.write(
    `bench:engine: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
});
