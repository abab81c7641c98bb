/**
 * cli/ledger-options — the options every ledger-touching command shares (`--database-url`,
 * `--data-dir`, `--config`) and how they become a database location: the flag, then the
 * environment variable the config names (DATABASE_URL), then the embedded data directory.
 */
import type { Command } from "commander";
import type { DatabaseLocation } from "../db/open.js";
import { loadConfig, resolveLedgerLocation, type LoadedConfig } from "./config.js";

export interface LedgerFlags {
  readonly databaseUrl?: string;
  readonly dataDir?: string;
  readonly config?: string;
  readonly json?: boolean;
}

/** Adds the shared ledger options to a command. */
export function withLedgerOptions(command: Command): Command {
  return command
    .option("--database-url <url>", "Postgres server URL (default: $DATABASE_URL, else the embedded ledger)")
    .option("--data-dir <dir>", "embedded ledger data directory (default: .irrevon/ledger)")
    .option("--config <file>", "configuration file (default: $IRREVON_CONFIG or the nearest irrevon.toml)")
    .option("--json", "print one JSON document on stdout");
}

export interface ResolvedLedger {
  readonly loaded: LoadedConfig;
  readonly location: DatabaseLocation;
  /** For messages: never includes credentials. */
  readonly describe: string;
}

/**
 * A database URL safe to print: the userinfo password and every query parameter whose name
 * mentions a password or key (libpq's `password`, `sslpassword`, `sslkey`, …) are removed.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    for (const name of [...u.searchParams.keys()]) {
      if (/pass|secret|token|key/i.test(name)) u.searchParams.set(name, "REDACTED");
    }
    return u.toString();
  } catch {
    return "<unparseable url>";
  }
}

/** Resolves the ledger location from flags, environment and configuration. */
export function resolveLedger(flags: LedgerFlags): ResolvedLedger {
  return ledgerOf(loadConfig(flags.config), flags);
}

/** The ledger a loaded configuration and the flags name (init passes the file it will write). */
export function ledgerOf(loaded: LoadedConfig, flags: LedgerFlags): ResolvedLedger {
  const where = resolveLedgerLocation(loaded, { databaseUrl: flags.databaseUrl, dataDir: flags.dataDir });
  return where.kind === "postgres"
    ? { loaded, location: { databaseUrl: where.url }, describe: `postgres ${redactUrl(where.url)}` }
    : { loaded, location: { dataDir: where.dataDir }, describe: `embedded ${where.dataDir}` };
}
