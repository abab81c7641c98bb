/**
 * cli/commands/serve — `irrevon serve [--port N]`: the read-only workbench on 127.0.0.1 (there
 * is no host option). Connects as `irrevon_read`, checks before binding that the session
 * really is read-only and the ledger is migrated (else exit 3), prints the URL on stdout (or
 * one JSON document with `--json`) and a banner on stderr, logs one `serve.request` line per
 * request on stderr (pino; `--quiet` silences them), and stops cleanly on Ctrl-C / SIGTERM
 * (exit 0). An embedded ledger is opened by this process; while another process (a worker, a
 * running demo) holds its directory, use that process's own `--serve` instead.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { pino } from "pino";
import { ErrorCode, IrrevonError } from "../../core/errors.js";
import { DbRole } from "../../db/db.js";
import { openDatabase, type DatabaseLocation } from "../../db/open.js";
import { runHealthChecks } from "../../workbench/queries/health.js";
import { silentLogger } from "../../workbench/request-log.js";
import { DEFAULT_WORKBENCH_PORT, startWorkbench } from "../../workbench/server.js";
import { resolveLedger, withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { CLI_SCHEMA_VERSION, writeHuman, writeJson } from "../output.js";
import { DEMO_LEDGER_DIR } from "./inspect.js";

interface ServeFlags extends LedgerFlags {
  readonly port: string;
  readonly demo?: boolean;
  readonly quiet?: boolean;
}

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    throw new IrrevonError(
      ErrorCode.usage,
      "--port must be an integer from 0 to 65535 (0 = any free port)",
      { details: { flag: "--port" } },
    );
  }
  return Number(text);
}

function waitForStop(): Promise<string> {
  return new Promise((done) => {
    const stop = (signal: string): void => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      done(signal);
    };
    const onInt = (): void => stop("SIGINT");
    const onTerm = (): void => stop("SIGTERM");
    process.once("SIGINT", onInt);
    process.once("SIGTERM", onTerm);
  });
}

/** Registers the `serve` command. */
export function register(program: Command): void {
  withLedgerOptions(
    program
      .command("serve")
      .description(
        "serve the read-only workbench on 127.0.0.1 (GET/HEAD only, stable-id values as digests)",
      )
      .option("--port <n>", "port to listen on (0 = any free port)", String(DEFAULT_WORKBENCH_PORT))
      .option("--demo", "mark every page as demo data (automatic for the demo ledger)")
      .option("-q, --quiet", "do not log each request on stderr"),
  ).action(async (flags: ServeFlags) => {
    const port = parsePort(flags.port);
    const ledger = resolveLedger(flags);
    const dataDir = ledger.location.dataDir;
    if (
      ledger.location.databaseUrl === undefined &&
      dataDir !== undefined &&
      !existsSync(dataDir)
    ) {
      throw new IrrevonError(
        ErrorCode.not_found,
        `no embedded ledger at ${dataDir} (run a command that writes one first, or pass --database-url)`,
        {
          details: { data_dir: dataDir },
        },
      );
    }
    const isDemo =
      flags.demo === true || (dataDir !== undefined && resolve(dataDir) === resolve(DEMO_LEDGER_DIR));
    await serveUntilStopped({
      location: ledger.location,
      describe: ledger.describe,
      port,
      isDemo,
      quiet: flags.quiet === true,
      json: flags.json === true,
    });
  });
}

/** What {@link serveUntilStopped} serves and how. */
export interface ServeOptions {
  readonly location: DatabaseLocation;
  readonly describe: string;
  readonly port: number;
  readonly isDemo: boolean;
  readonly quiet: boolean;
  readonly json: boolean;
  /** Replaces the default announcement (URL on stdout, banner on stderr). */
  readonly announce?: (url: string) => void;
}

/**
 * Opens the ledger as irrevon_read, checks it is ready, serves the workbench on 127.0.0.1
 * and returns after Ctrl-C / SIGTERM. Used by `serve` and by `demo --serve`.
 */
export async function serveUntilStopped(options: ServeOptions): Promise<void> {
  const db = await openDatabase({ ...options.location, role: DbRole.read });
  try {
    const checks = await db.transaction((tx) => runHealthChecks(tx), { readOnly: true });
    const failed = checks.filter((c) => c.status !== "ok").map((c) => c.name);
    if (failed.length > 0) {
      throw new IrrevonError(
        ErrorCode.not_found,
        `the ledger is not ready for a read-only workbench (failed: ${failed.join(", ")}); run irrevon migrate`,
        { details: { failed_checks: failed } },
      );
    }
    const logger = options.quiet ? silentLogger : pino({ name: "irrevon-serve" }, pino.destination(2));
    const running = await startWorkbench({ db, port: options.port, isDemo: options.isDemo, logger });
    if (options.announce !== undefined) {
      options.announce(running.url);
    } else if (options.json) {
      writeJson({
        schema_version: CLI_SCHEMA_VERSION,
        url: running.url,
        port: running.port,
        read_role: DbRole.read,
        ledger: options.describe,
        demo: options.isDemo,
      });
    } else {
      process.stdout.write(`${running.url}\n`);
      writeHuman(
        `irrevon workbench at ${running.url} · ${options.describe} · read-only · loopback-only · Ctrl-C to stop`,
      );
    }
    await waitForStop();
    await running.close();
  } finally {
    await db.close();
  }
}
