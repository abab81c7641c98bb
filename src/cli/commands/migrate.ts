/**
 * cli/commands/migrate — `irrevon migrate`: applies pending migrations as the privileged
 * login (superuser or database owner) and prints what it applied. An applied migration whose
 * text changed is refused, naming the file (exit 4). `--migrations-dir` runs the SQL files
 * of a source checkout instead of the compiled set (a development aid).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { IrrevonError } from "../../core/errors.js";
import type { Migration } from "../../db/migration.js";
import { migrate, migrationSha256 } from "../../db/migrator.js";
import { MIGRATIONS } from "../../db/migrations.generated.js";
import { openPrivileged } from "../../db/open.js";
import { resolveLedger, withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { emitResult } from "../output.js";

interface MigrateFlags extends LedgerFlags {
  readonly migrationsDir?: string;
}

/** Reads `NNNN_slug.sql` files from a directory, sorted as the build sorts them. */
export function readMigrationsDir(dir: string): Migration[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".sql")).sort();
  } catch (cause) {
    throw new IrrevonError("usage", `--migrations-dir: cannot read ${dir}`, { details: { flag: "--migrations-dir" }, cause });
  }
  return names.map((filename) => {
    const sql = readFileSync(join(dir, filename), "utf8");
    return { filename, sql, sha256: migrationSha256(sql) };
  });
}

/** Registers the `migrate` command. */
export function register(program: Command): void {
  withLedgerOptions(
    program
      .command("migrate")
      .description("apply pending ledger migrations (journaled, hash-checked, one transaction per file)")
      .option("--migrations-dir <dir>", "apply the .sql files of this directory instead of the compiled set"),
  ).action(async (flags: MigrateFlags) => {
    const ledger = resolveLedger(flags);
    const migrations = flags.migrationsDir === undefined ? MIGRATIONS : readMigrationsDir(flags.migrationsDir);
    const db = await openPrivileged(ledger.location);
    try {
      const result = await migrate(db, migrations);
      emitResult(
        flags.json === true,
        { database: ledger.describe, applied: result.applied, already_applied: result.alreadyApplied.length },
        result.applied.length === 0
          ? `migrate: ${ledger.describe} is up to date (${result.alreadyApplied.length} migrations applied earlier)`
          : [`migrate: ${ledger.describe}`, ...result.applied.map((f) => `  applied ${f}`)].join("\n"),
      );
    } finally {
      await db.close();
    }
  });
}
