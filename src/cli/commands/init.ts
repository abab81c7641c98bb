/**
 * cli/commands/init — `irrevon init`: writes `irrevon.toml` (never over an existing one
 * without `--force`), creates the embedded ledger directory and migrates the ledger
 * (embedded by default; a server with `--database-url`).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { IrrevonError } from "../../core/errors.js";
import { migrate } from "../../db/migrator.js";
import { openPrivileged } from "../../db/open.js";
import { DEFAULT_CONFIG_TOML } from "../config.js";
import { resolveLedger, withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { emitResult } from "../output.js";

interface InitFlags extends LedgerFlags {
  readonly force?: boolean;
  readonly dir?: string;
  readonly migrate?: boolean;
}

/** Registers the `init` command. */
export function register(program: Command): void {
  withLedgerOptions(
    program
      .command("init")
      .description("write irrevon.toml and create and migrate the ledger")
      .option("--dir <dir>", "project directory (default: the current directory)")
      .option("--force", "overwrite an existing irrevon.toml")
      .option("--no-migrate", "write the configuration only"),
  ).action(async (flags: InitFlags) => {
    const dir = resolve(flags.dir ?? process.cwd());
    const configPath = join(dir, "irrevon.toml");
    if (existsSync(configPath) && flags.force !== true) {
      throw new IrrevonError("usage", `${configPath} exists; pass --force to overwrite it`, { details: { path: configPath, flag: "--force" } });
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(configPath, DEFAULT_CONFIG_TOML);
    const ledger = resolveLedger({ ...flags, config: configPath });
    let applied: string[] = [];
    if (flags.migrate !== false) {
      if (ledger.location.dataDir !== undefined) mkdirSync(ledger.location.dataDir, { recursive: true });
      // A new embedded ledger is a clone of the migrated image: its migrations were applied
      // when it was created, so they are reported as applied by this init.
      const { dataDir } = ledger.location;
      const isNewEmbedded = dataDir !== undefined && !existsSync(join(dataDir, "PG_VERSION"));
      const db = await openPrivileged(ledger.location);
      try {
        const result = await migrate(db);
        applied = isNewEmbedded ? [...result.alreadyApplied, ...result.applied] : result.applied;
      } finally {
        await db.close();
      }
    }
    emitResult(
      flags.json === true,
      { config: configPath, database: ledger.describe, migrated: flags.migrate !== false, applied },
      [`init: wrote ${configPath}`, flags.migrate !== false ? `init: ledger ready (${ledger.describe}, ${applied.length} migrations applied)` : "init: ledger not migrated (--no-migrate)"].join("\n"),
    );
  });
}
