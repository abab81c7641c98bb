/**
 * scripts/bench-engine — `npm run bench:engine`: runs the engine benchmark
 * (src/bench/engine) and writes bench-results/engine.json and bench-results/engine.md.
 * Options (`npm run bench:engine -- --help` lists them; a bad one is a usage error, exit 2,
 * before anything runs): --quick (small counts, for a smoke run), --out <dir> (default
 * bench-results), --pg <url> (default $IRREVON_BENCH_PG_URL, $DATABASE_URL, or the local
 * server), --recovery <n> (AMBIGUOUS effects in the recovery measurement and in its comparison
 * against a destination with 20 ms latency, single status queries vs batched; full run 200,
 * --quick 20), --no-postgres, --startup-only (only embedded open, demo and CLI start), --json
 * (the report document on stdout as well). Not part of `npm test`;
 * test/contract/bench-smoke.test.ts runs a tiny slice.
 */
import { accessSync, constants, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { ErrorCode } from "../src/core/errors.js";
import { errorEnvelope } from "../src/cli/output.js";
import { EXIT_CODES } from "../src/cli/exit-codes.js";
import { renderMarkdown } from "../src/bench/engine/report.js";
import { runHotPathBench } from "../src/bench/engine/hot-path.js";
import { FULL_BENCH, runEngineBench } from "../src/bench/engine/run-engine-bench.js";

interface Flags {
  readonly quick?: boolean;
  readonly out: string;
  readonly pg?: string;
  readonly postgres: boolean;
  readonly recovery?: number;
  readonly startupOnly?: boolean;
  readonly json?: boolean;
}

/** `--recovery`: a whole number of effects, 0 to 99 999. */
function effectCount(text: string): number {
  if (!/^\d{1,5}$/.test(text))
    throw new InvalidArgumentError(
      `must be a whole number of effects from 0 to 99999 (e.g. 200); got ${JSON.stringify(text)}`,
    );
  return Number(text);
}

/** `--pg`: a postgres:// or postgresql:// URL. */
function postgresUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError(
      "must be a URL such as postgres://postgres@127.0.0.1:5432/postgres",
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    throw new InvalidArgumentError(
      `must be a postgres:// or postgresql:// URL; got the scheme ${JSON.stringify(url.protocol)}`,
    );
  return text;
}

function parseFlags(argv: readonly string[]): Flags {
  const program = new Command("npm run bench:engine --")
    .description(
      "The engine benchmark: every figure of issue 11 against its goal, in one run, written to " +
        "<out>/engine.json and <out>/engine.md. A full run takes about 5 minutes on 2 CPUs; " +
        "progress lines go to stderr. Run it on a quiet machine: nothing else should share the CPUs.",
    )
    .option("--quick", "small counts, for a smoke run (a few minutes)")
    .option("--out <dir>", "directory for engine.json and engine.md", "bench-results")
    .addOption(
      new Option(
        "--pg <url>",
        "Postgres server for the Postgres rows (default: $IRREVON_BENCH_PG_URL, $DATABASE_URL, or postgres://postgres@127.0.0.1:5432/postgres)",
      )
        .argParser(postgresUrl)
        .conflicts("postgres"),
    )
    .option("--no-postgres", "embedded ledger (PGlite) only; no Postgres rows")
    .option(
      "--recovery <n>",
      "AMBIGUOUS effects in the recovery measurement and its 20 ms-latency comparison (full run 200, --quick 20)",
      effectCount,
    )
    .option("--startup-only", "only embedded open, demo and CLI start")
    .option("--json", "also print the report (engine.json) on stdout")
    .helpOption("-h, --help", "show this help")
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ outputError: () => undefined });
  program.parse([...argv], { from: "user" });
  return program.opts<Flags>();
}

/** A failure as the CLI reports one: a JSON error document with --json, else one stderr line. */
function fail(json: boolean, code: ErrorCode, message: string, exitCode: number): never {
  if (json) process.stdout.write(`${JSON.stringify(errorEnvelope(code, message, false, {}))}\n`);
  else process.stderr.write(`bench:engine: ${code}: ${message}\n`);
  process.exit(exitCode);
}

async function main(args: readonly string[]): Promise<void> {
  let flags: Flags;
  try {
    flags = parseFlags(args);
  } catch (e) {
    // --help ends with exit 0; every other commander error is a usage error (exit 2), before
    // anything runs or is written.
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) process.exit(0);
      const message = e.message.replace(/^error:\s*/i, "").replace(/\s*\n\s*/g, " ");
      fail(
        args.includes("--json"),
        ErrorCode.usage,
        `${message} (npm run bench:engine -- --help lists the options)`,
        EXIT_CODES.usage.code,
      );
    }
    throw e;
  }
  const quick = flags.quick === true;
  const startupOnly = flags.startupOnly === true;
  const out = flags.out;
  // The report's directory must take the files before minutes of measuring, not after.
  try {
    mkdirSync(out, { recursive: true });
    accessSync(out, constants.W_OK);
  } catch (e) {
    fail(
      flags.json === true,
      ErrorCode.usage,
      `--out ${JSON.stringify(out)} is not a writable directory (${e instanceof Error ? e.message : String(e)}); pass a directory you can write to`,
      EXIT_CODES.usage.code,
    );
  }
  const postgresUrl = !flags.postgres
    ? null
    : (flags.pg ??
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
  const report = await runEngineBench({
    ...size,
    ...(flags.recovery === undefined ? {} : { recoveryEffects: flags.recovery }),
    postgresUrl,
    ...(startupOnly ? { backends: [] } : {}),
    command: `npm run bench:engine${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`,
    log: (line) => process.stderr.write(`bench:engine: ${line}\n`),
  });
  // Issue 11: round trips and commits per clean effect, two calls vs fused (own section).
  const hot = await runHotPathBench(
    startupOnly ? null : postgresUrl,
    quick ? 10 : 200,
    !startupOnly,
  );
  const document = `${JSON.stringify({ ...report, hotPath: hot.rows }, null, 2)}\n`;
  writeFileSync(join(out, "engine.json"), document);
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
  if (flags.json === true) process.stdout.write(document);
}

const argv = process.argv.slice(2);
main(argv).catch((e: unknown) => {
  process.stderr.write(
    `bench:engine: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  if (argv.includes("--json"))
    fail(
      true,
      ErrorCode.internal,
      e instanceof Error ? e.message : String(e),
      EXIT_CODES.unexpected.code,
    );
  process.exit(EXIT_CODES.unexpected.code);
});
