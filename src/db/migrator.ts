/**
 * db/migrator — applies the compiled migrations in lexical order, one transaction per file,
 * recording each file's SHA-256 in `irrevon_schema_migrations`. An applied file whose text
 * changed is a hard `migration_tampered` error (append a new file instead). Concurrent
 * migrators serialize on a transaction-scoped advisory lock whose key is derived from SHA-256
 * (stable across Postgres versions, unlike hashtext). Files run as irrevon_owner (so it owns
 * every object) unless they start with the run-as-login marker. `assertSchemaCurrent` lets an
 * engine refuse, at open, a ledger whose schema is behind the code (`schema_behind`).
 * Imports: core, db.
 */
import { createHash } from "node:crypto";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { PrivilegedDb, Queryable, ScriptQueryable } from "./db.js";
import { DbRole } from "./db.js";
import { RUN_AS_LOGIN_MARKER, type Migration } from "./migration.js";
import { MIGRATIONS } from "./migrations.generated.js";

/** Result of {@link migrate}: filenames in application order. */
export interface MigrateResult {
  readonly applied: string[];
  readonly alreadyApplied: string[];
}

/** Name of the journal table. */
export const JOURNAL_TABLE = "irrevon_schema_migrations";

/** Signed 64-bit advisory-lock key taken from the first 8 bytes of SHA-256(`name`). */
export function advisoryLockKey(name: string): string {
  return createHash("sha256").update(name, "utf8").digest().readBigInt64BE(0).toString();
}

/** The advisory lock every migrator of one database takes. */
export const MIGRATION_LOCK_KEY = advisoryLockKey("irrevon:migrations");

/** SHA-256 (hex) of a migration's UTF-8 text. */
export function migrationSha256(sql: string): string {
  return createHash("sha256").update(sql, "utf8").digest("hex");
}

async function lockAndEnsureJournal(tx: ScriptQueryable): Promise<void> {
  const { rows } = await tx.query<{ journal: boolean }>(
    "SELECT pg_advisory_xact_lock($1::bigint), to_regclass($2) IS NOT NULL AS journal",
    [MIGRATION_LOCK_KEY, JOURNAL_TABLE],
  );
  // An existing journal is left alone: re-running the DDL is a catalog write at every open.
  if (rows[0]?.journal === true) return;
  await tx.exec(
    `CREATE TABLE IF NOT EXISTS ${JOURNAL_TABLE} (
       filename text PRIMARY KEY,
       sha256 text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     );
     REVOKE ALL ON ${JOURNAL_TABLE} FROM PUBLIC;`,
  );
}

async function readJournal(tx: ScriptQueryable): Promise<Map<string, string>> {
  const { rows } = await tx.query<{ filename: string; sha256: string }>(
    `SELECT filename, sha256 FROM ${JOURNAL_TABLE}`,
  );
  return new Map(rows.map((r) => [r.filename, r.sha256]));
}

function checkList(migrations: readonly Migration[]): void {
  let previous = "";
  for (const m of migrations) {
    if (m.filename <= previous) {
      throw new IrrevonError(
        ErrorCode.migration_failed,
        `migrations are not in strict lexical order at ${m.filename}`,
        { details: { filename: m.filename } },
      );
    }
    previous = m.filename;
    if (migrationSha256(m.sql) !== m.sha256) {
      throw new IrrevonError(
        ErrorCode.migration_failed,
        `compiled migration ${m.filename} does not match its recorded hash; rebuild`,
        {
          details: { filename: m.filename },
        },
      );
    }
  }
}

function tampered(filename: string, journalSha: string, fileSha: string): IrrevonError {
  return new IrrevonError(
    ErrorCode.migration_tampered,
    `migration ${filename} was changed after it was applied (journal ${journalSha}, file ${fileSha}); add a new migration instead`,
    {
      details: { filename, journal_sha256: journalSha, file_sha256: fileSha },
    },
  );
}

/**
 * Applies every pending migration. `db` must be a privileged handle (superuser or database
 * owner). `migrations` defaults to the compiled set; tests pass a modified list.
 */
export async function migrate(
  db: PrivilegedDb,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrateResult> {
  checkList(migrations);
  // Verify the whole journal first, so a tampered file stops the run before anything applies.
  const pending = await db.scriptTransaction(async (tx) => {
    await lockAndEnsureJournal(tx);
    const journal = await readJournal(tx);
    for (const m of migrations) {
      const recorded = journal.get(m.filename);
      if (recorded !== undefined && recorded !== m.sha256)
        throw tampered(m.filename, recorded, m.sha256);
    }
    return migrations.filter((m) => !journal.has(m.filename)).length;
  });
  // Journal rows are never removed, so nothing pending under the lock stays nothing pending:
  // an up-to-date ledger (every open of a clone) costs this one transaction.
  if (pending === 0) return { applied: [], alreadyApplied: migrations.map((m) => m.filename) };

  const applied: string[] = [];
  const alreadyApplied: string[] = [];
  for (const m of migrations) {
    const didApply = await db.scriptTransaction(async (tx) => {
      await lockAndEnsureJournal(tx);
      const { rows } = await tx.query<{ sha256: string }>(
        `SELECT sha256 FROM ${JOURNAL_TABLE} WHERE filename = $1`,
        [m.filename],
      );
      const recorded = rows[0]?.sha256;
      if (recorded !== undefined) {
        if (recorded !== m.sha256) throw tampered(m.filename, recorded, m.sha256);
        return false;
      }
      if (!m.sql.startsWith(RUN_AS_LOGIN_MARKER)) await tx.query(`SET LOCAL ROLE ${DbRole.owner}`);
      try {
        await tx.exec(m.sql);
      } catch (e) {
        const cause = e instanceof IrrevonError ? e : undefined;
        throw new IrrevonError(
          ErrorCode.migration_failed,
          `migration ${m.filename} failed: ${e instanceof Error ? e.message : String(e)}`,
          {
            details: {
              filename: m.filename,
              ...(cause === undefined ? {} : { cause_code: cause.code, ...cause.details }),
            },
            cause: e,
          },
        );
      }
      if (!m.sql.startsWith(RUN_AS_LOGIN_MARKER)) await tx.query("RESET ROLE");
      await tx.query(`INSERT INTO ${JOURNAL_TABLE} (filename, sha256) VALUES ($1, $2)`, [
        m.filename,
        m.sha256,
      ]);
      return true;
    });
    (didApply ? applied : alreadyApplied).push(m.filename);
  }
  return { applied, alreadyApplied };
}

/**
 * Throws `schema_behind` (not retryable: run `irrevon migrate`) unless every migration in
 * `migrations` (default: the compiled set) is journaled in the database `db` reaches. Reads the
 * journal as `db`'s role; a journal or role that is missing (never migrated) or a journal the
 * role may not read (migrated before 0049 granted it) also means the schema is behind.
 */
export async function assertSchemaCurrent(
  db: Queryable,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> {
  let applied: Set<string> | null;
  try {
    const { rows } = await db.query<{ filename: string }>(`SELECT filename FROM ${JOURNAL_TABLE}`);
    applied = new Set(rows.map((r) => r.filename));
  } catch (e) {
    // 42P01: no journal table. 42704 / 22023: the role itself does not exist yet (never
    // migrated), as a server connection (42704) or PGlite's SET LOCAL ROLE (22023) reports it.
    const sqlstate = e instanceof IrrevonError ? e.details["sqlstate"] : undefined;
    const unreadable =
      e instanceof IrrevonError &&
      (e.code === ErrorCode.privilege_denied ||
        sqlstate === "42P01" ||
        sqlstate === "42704" ||
        sqlstate === "22023");
    if (!unreadable) throw e;
    applied = null;
  }
  const missing =
    applied === null
      ? null
      : migrations.filter((m) => !applied.has(m.filename)).map((m) => m.filename);
  if (missing !== null && missing.length === 0) return;
  const newest = migrations[migrations.length - 1]?.filename ?? null;
  throw new IrrevonError(
    ErrorCode.schema_behind,
    `the ledger's schema is behind this version of Irrevon (it needs ${newest ?? "its migrations"}); ` +
      "run `irrevon migrate` with the migrating login, then open again",
    { retryable: false, details: { missing, journal_readable: applied !== null, newest } },
  );
}

/**
 * Hash of the compiled migration set (names and contents), 16 hex digits: names a migrated
 * copy (the embedded image, a template database) so a changed set never reuses an old one.
 */
export function migrationsHash(
  migrations: readonly { filename: string; sha256: string }[] = MIGRATIONS,
): string {
  return createHash("sha256")
    .update(migrations.map((m) => `${m.filename}:${m.sha256}`).join("\n"))
    .digest("hex")
    .slice(0, 16);
}
