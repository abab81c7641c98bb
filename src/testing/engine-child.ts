/**
 * testing/engine-child — an engine in its own process, driven line by line over stdin, for
 * process tests (SIGKILL at named crash points) and the flagship demo. Run with
 * `npx tsx src/testing/engine-child.ts`. Environment:
 *   IRREVON_DATABASE_URL (a Postgres server) or IRREVON_DATA_DIR (embedded; one owner)
 *   IRREVON_MIGRATE=1            apply pending migrations first (server only)
 *   IRREVON_REFDEST_URL          the reference destination's origin (required)
 *   IRREVON_REFDEST_TIER         C1 | C2 | C3 (default C2)
 *   IRREVON_REFDEST_LAG_S        declared read lag of the refdest profile (default 0)
 *   IRREVON_REREAD_GAP_S         absence re-read gap in seconds (default 0)
 *   IRREVON_WORKER_ID            this worker's id (default: generated)
 *   IRREVON_LEASE_TTL_MS, IRREVON_DISPATCH_DEADLINE_MS, IRREVON_PROBE_DEADLINE_MS, IRREVON_BACKOFF_BASE_S
 *   IRREVON_TEST_HOOKS, IRREVON_CRASH_AT, IRREVON_SYNC_AT, IRREVON_SYNC_DIR (crash points)
 *   IRREVON_STANDBY=1            load the code and the database driver, print `STANDBY`, and
 *                                open nothing until a `START` line arrives (a warm spare that
 *                                takes over only once the process it replaces is gone)
 * Protocol: boots, runs recovery, prints `RECOVERY DONE <json>` then `READY`; then reads
 * `REGISTER <json>`, `DISPATCH <effect_id>`, `RECONCILE <effect_id>`, `INSPECT <effect_id>`,
 * `STATUS <effect_id>`, `RECOVER`, `EXIT` and answers each with one `RESULT <json>` line
 * (errors as `{"error":{code,message,retryable,details}}`). Imports: anything (testing layer).
 */
import { createInterface } from "node:readline";
import type { IntentContractInput } from "../core/contract-input.js";
import { refdestDeclaration } from "../adapters/declarations/refdest.js";
import { RefdestAdapter } from "../adapters/refdest-adapter.js";
import { ErrorCode, IrrevonError, isIrrevonError } from "../core/errors.js";
import { openIrrevon, type Irrevon } from "../engine/irrevon.js";
import { stderrEvents } from "../engine/events.js";

function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
}

function envNumber(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0)
    throw new IrrevonError(ErrorCode.config_invalid, `${name} must be a non-negative number`, {
      details: { variable: name },
    });
  return n;
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function envelope(e: unknown): { error: Record<string, unknown> } {
  if (isIrrevonError(e)) return { error: { ...e.toEnvelope() } };
  return {
    error: {
      code: ErrorCode.internal,
      message: e instanceof Error ? e.message : String(e),
      retryable: false,
      details: {},
    },
  };
}

async function boot(): Promise<Irrevon> {
  const refdestUrl = env("IRREVON_REFDEST_URL");
  if (refdestUrl === undefined)
    throw new IrrevonError(ErrorCode.config_invalid, "IRREVON_REFDEST_URL is required", {
      details: { variable: "IRREVON_REFDEST_URL" },
    });
  const tierRaw = env("IRREVON_REFDEST_TIER") ?? "C2";
  if (tierRaw !== "C1" && tierRaw !== "C2" && tierRaw !== "C3") {
    throw new IrrevonError(ErrorCode.config_invalid, "IRREVON_REFDEST_TIER must be C1, C2 or C3", {
      details: { variable: "IRREVON_REFDEST_TIER" },
    });
  }
  const lagSeconds = envNumber("IRREVON_REFDEST_LAG_S", 0);
  const adapter = new RefdestAdapter({
    baseUrl: refdestUrl,
    declaration: refdestDeclaration(tierRaw, lagSeconds > 0 ? { lagSeconds } : {}),
  });
  const url = env("IRREVON_DATABASE_URL");
  const dataDir = env("IRREVON_DATA_DIR");
  if (url === undefined && dataDir === undefined) {
    throw new IrrevonError(
      ErrorCode.config_invalid,
      "IRREVON_DATABASE_URL or IRREVON_DATA_DIR is required",
      { details: { variable: "IRREVON_DATABASE_URL" } },
    );
  }
  const workerId = env("IRREVON_WORKER_ID");
  return openIrrevon({
    database:
      url !== undefined
        ? { url, migrate: env("IRREVON_MIGRATE") === "1" }
        : { dataDir: dataDir ?? "" },
    adapters: [adapter],
    config: {
      rereadGapSeconds: envNumber("IRREVON_REREAD_GAP_S", 0),
      dispatchDeadlineMs: envNumber("IRREVON_DISPATCH_DEADLINE_MS", 5_000),
      probeDeadlineMs: envNumber("IRREVON_PROBE_DEADLINE_MS", 5_000),
      leaseTtlMs: envNumber("IRREVON_LEASE_TTL_MS", 30_000),
      // Process tests shorten the INDETERMINATE backoff so a slow probe under load is
      // retried within the test's patience instead of 30 s later.
      ...(env("IRREVON_BACKOFF_BASE_S") === undefined
        ? {}
        : { backoffBaseSeconds: envNumber("IRREVON_BACKOFF_BASE_S", 30) }),
    },
    ...(workerId === undefined ? {} : { workerId }),
    ...(env("IRREVON_LOG") === "1" ? { events: stderrEvents } : {}),
  });
}

async function handle(irrevon: Irrevon, verb: string, arg: string): Promise<unknown> {
  switch (verb) {
    case "REGISTER":
      return irrevon.register(JSON.parse(arg) as IntentContractInput); // untrusted JSON: run-time validation decides
    case "DISPATCH":
      return irrevon.dispatch(arg);
    case "RECONCILE":
      return irrevon.reconcile(arg);
    case "INSPECT":
      return irrevon.inspect(arg);
    case "STATUS":
      return irrevon.status(arg);
    case "RECOVER": {
      const { outcomes: _outcomes, ...report } = await irrevon.recover();
      return report;
    }
    default:
      throw new IrrevonError(ErrorCode.usage, `unknown command ${verb}`, { details: { verb } });
  }
}

/**
 * Standby: load the database package the ledger needs now (the driver modules import PGlite
 * only when they open), then wait for `START`; nothing is opened before it.
 */
async function standBy(lines: AsyncIterator<string>): Promise<boolean> {
  await (env("IRREVON_DATABASE_URL") !== undefined
    ? import("../db/pg-driver.js")
    : Promise.all([import("@electric-sql/pglite"), import("../db/pglite-image.js")]));
  print("STANDBY");
  for (;;) {
    const next = await lines.next();
    if (next.done === true) return false;
    const line = next.value.trim();
    if (line === "START") return true;
    if (line === "EXIT") return false;
  }
}

async function main(): Promise<number> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })[
    Symbol.asyncIterator
  ]();
  if (env("IRREVON_STANDBY") === "1" && !(await standBy(lines))) return 0;
  let irrevon: Irrevon;
  try {
    irrevon = await boot();
    const { outcomes: _outcomes, ...report } = await irrevon.recover();
    print(`RECOVERY DONE ${JSON.stringify(report)}`);
  } catch (e) {
    print(`REFUSED ${JSON.stringify(envelope(e))}`);
    return 3;
  }
  print("READY");
  for (let next = await lines.next(); next.done !== true; next = await lines.next()) {
    const line = next.value.trim();
    if (line === "") continue;
    const space = line.indexOf(" ");
    const verb = space < 0 ? line : line.slice(0, space);
    const arg = space < 0 ? "" : line.slice(space + 1).trim();
    if (verb === "EXIT") break;
    try {
      print(`RESULT ${JSON.stringify(await handle(irrevon, verb, arg))}`);
    } catch (e) {
      print(`RESULT ${JSON.stringify(envelope(e))}`);
    }
  }
  await irrevon.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`engine-child: ${String(e)}\n`);
    process.exit(1);
  },
);
