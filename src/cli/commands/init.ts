/**
 * cli/commands/init — `irrevon init`: writes `irrevon.toml` (never over an existing one
 * without `--force`), creates the embedded ledger directory and migrates the ledger
 * (embedded by default; a server with `--database-url`).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { IrrevonError } from "../../core/errors.js";
import { migrate } from "../../db/migrator.js";
import { openPrivileged } from "../../db/open.js";
import { DEFAULT_CONFIG_TOML, parseConfig } from "../config.js";
import { ledgerOf, withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { checkOutputDir } from "../output-paths.js";
import { emitResult } from "../output.js";

interface InitFlags extends LedgerFlags {
  readonly force?: boolean;
  readonly dir?: string;
  readonly migrate?: boolean;
}

/**
 * The configuration init writes: the default, with `data_dir` pointing at `--data-dir` when one
 * is given (relative to the project folder, as the file's paths are read).
 */
function configText(dir: string, dataDir: string | undefined): string {
  if (dataDir === undefined) return DEFAULT_CONFIG_TOML;
  const path = relative(dir, resolve(dataDir)).split(sep).join("/") || ".";
  return DEFAULT_CONFIG_TOML.replace('data_dir = ".irrevon/ledger"', `data_dir = ${JSON.stringify(path)}`);
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
    // Everything is checked before anything is written: the folder, an existing file, the
    // ledger location (a bad URL is refused here, not after irrevon.toml exists).
    const dir = resolve(flags.dir ?? process.cwd());
    checkOutputDir(dir, "--dir");
    const configPath = join(dir, "irrevon.toml");
    if (existsSync(configPath) && flags.force !== true) {
      throw new IrrevonError("usage", `${configPath} exists; pass --force to overwrite it`, { details: { path: configPath, flag: "--force" } });
    }
    const text = configText(dir, flags.dataDir);
    const ledger = ledgerOf({ config: parseConfig(text, configPath), path: configPath }, flags);
    const { location } = ledger;
    // The ledger first: a server that cannot be reached leaves no irrevon.toml behind.
    let applied: string[] = [];
    if (flags.migrate !== false) {
      const { dataDir } = location;
      if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
      // A new embedded ledger is a clone of the migrated image: its migrations were applied
      // when it was created, so they are reported as applied by this init.
      const isNewEmbedded = dataDir !== undefined && !existsSync(join(dataDir, "PG_VERSION"));
      const db = await openPrivileged(location);
      try {
        const result = await migrate(db);
        applied = isNewEmbedded ? [...result.alreadyApplied, ...result.applied] : result.applied;
      } finally {
        await db.close();
      }
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(configPath, text);
    emitResult(
      flags.json === true,
      { config: configPath, database: ledger.describe, migrated: flags.migrate !== false, applied },
      [`init: wrote ${configPath}`, flags.migrate !== false ? `init: ledger ready (${ledger.describe}, ${applied.length} migrations applied)` : "init: ledger not migrated (--no-migrate)"].join("\n"),
    );
  });
}
