/**
 * The migrator on both backends: a fresh database gets every file once, in order, journaled
 * with its SHA-256; a re-run applies nothing; an applied file that changed is a hard
 * `migration_tampered` error naming the file, before anything else applies; a failing file
 * rolls back whole; objects belong to irrevon_owner; the locked functions are SECURITY
 * DEFINER with a pinned search_path and closed to PUBLIC.
 */
import { afterEach, expect, it } from "vitest";
import { JOURNAL_TABLE, migrate, migrationSha256 } from "../../src/db/migrator.js";
import type { Migration } from "../../src/db/migration.js";
import { MIGRATIONS } from "../../src/db/migrations.generated.js";
import {
  DERIVED_TABLES,
  FACT_TABLES,
  LEDGER_VIEWS,
  LOCKED_FUNCTIONS,
  SEED_TABLES,
} from "../../src/db/ledger-tables.js";
import {
  describeEachBackend,
  openEmptyDatabase,
  openTestLedger,
  type EmptyDatabase,
  type TestLedger,
} from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";

function edited(list: readonly Migration[], filename: string, sql: string): Migration[] {
  return list.map((m) =>
    m.filename === filename ? { filename, sql, sha256: migrationSha256(sql) } : m,
  );
}

function extra(filename: string, sql: string): Migration {
  return { filename, sql, sha256: migrationSha256(sql) };
}

describeEachBackend("migrations", (backend) => {
  let empty: EmptyDatabase | undefined;
  let ledger: TestLedger | undefined;
  afterEach(async () => {
    await empty?.close();
    await ledger?.close();
    empty = undefined;
    ledger = undefined;
  });

  it("applies every file once, in order, journaling its hash; a re-run applies nothing", async () => {
    empty = await openEmptyDatabase(backend);
    const first = await migrate(empty.db);
    expect(first.applied).toEqual(MIGRATIONS.map((m) => m.filename));
    expect(first.alreadyApplied).toEqual([]);
    const { rows } = await empty.db.query<{ filename: string; sha256: string }>(
      `SELECT filename, sha256 FROM ${JOURNAL_TABLE} ORDER BY filename`,
    );
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ filename: m.filename, sha256: m.sha256 })));
    const second = await migrate(empty.db);
    expect(second).toEqual({ applied: [], alreadyApplied: MIGRATIONS.map((m) => m.filename) });
  });

  it("an edited applied migration fails the next run with migration_tampered naming the file; nothing new applies", async () => {
    ledger = await openTestLedger(backend);
    const victim = MIGRATIONS[2];
    if (victim === undefined) throw new Error("need at least 3 migrations");
    const list = [
      ...edited(MIGRATIONS, victim.filename, `${victim.sql}\n-- a quiet edit\n`),
      extra("9999_later.sql", "CREATE TABLE later_table (x int);"),
    ];
    const err = await expectDbError(migrate(ledger.superuser, list), "migration_tampered");
    expect(err.details).toEqual({
      filename: victim.filename,
      journal_sha256: victim.sha256,
      file_sha256: migrationSha256(`${victim.sql}\n-- a quiet edit\n`),
    });
    const later = await ledger.superuser.query(
      "SELECT 1 FROM pg_class WHERE relname = 'later_table'",
    );
    expect(later.rowCount).toBe(0);
  });

  it("appends new files; a failing file rolls back whole and is not journaled", async () => {
    ledger = await openTestLedger(backend);
    const good = extra("9998_good.sql", "CREATE TABLE good_table (x int);");
    const bad = extra(
      "9999_bad.sql",
      "CREATE TABLE half_table (x int);\nSELECT no_such_function();",
    );
    const err = await expectDbError(
      migrate(ledger.superuser, [...MIGRATIONS, good, bad]),
      "migration_failed",
    );
    expect(err.details["filename"]).toBe("9999_bad.sql");
    const { rows } = await ledger.superuser.query<{ relname: string; owner: string }>(
      "SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.relname IN ('good_table', 'half_table')",
    );
    expect(rows).toEqual([{ relname: "good_table", owner: "irrevon_owner" }]);
    const journal = await ledger.superuser.query<{ filename: string }>(
      `SELECT filename FROM ${JOURNAL_TABLE} WHERE filename LIKE '999%' ORDER BY filename`,
    );
    expect(journal.rows).toEqual([{ filename: "9998_good.sql" }]);
  });

  it("irrevon_owner owns every table, view and function; functions are SECURITY DEFINER with a pinned search_path", async () => {
    ledger = await openTestLedger(backend);
    for (const name of [...FACT_TABLES, ...SEED_TABLES, ...DERIVED_TABLES, ...LEDGER_VIEWS]) {
      const { rows } = await ledger.superuser.query<{ owner: string }>(
        "SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relname = $1 AND relnamespace = 'public'::regnamespace",
        [name],
      );
      expect({ name, owner: rows[0]?.owner }).toEqual({ name, owner: "irrevon_owner" });
    }
    for (const fn of LOCKED_FUNCTIONS) {
      const { rows } = await ledger.superuser.query<{
        owner: string;
        secdef: boolean;
        config: string[] | null;
      }>(
        "SELECT pg_get_userbyid(proowner) AS owner, prosecdef AS secdef, proconfig AS config FROM pg_proc WHERE oid = $1::regprocedure",
        [fn],
      );
      expect({ fn, ...rows[0] }).toEqual({
        fn,
        owner: "irrevon_owner",
        secdef: true,
        config: ["search_path=public, pg_temp"],
      });
    }
  });

  it("the compiled list matches the SQL files' naming and hashes", () => {
    const names = MIGRATIONS.map((m) => m.filename);
    expect([...names].sort()).toEqual(names);
    for (const m of MIGRATIONS) {
      expect(m.filename).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/);
      expect(migrationSha256(m.sql)).toBe(m.sha256);
    }
  });
});

describeEachBackend("migrations, two migrators at once", (backend) => {
  let empty: EmptyDatabase | undefined;
  afterEach(async () => {
    await empty?.close();
    empty = undefined;
  });

  it("serialize on the advisory lock: both succeed and each file is applied exactly once", async () => {
    empty = await openEmptyDatabase(backend);
    // PGlite has one session, so "concurrent" there means interleaved calls on one handle;
    // on Postgres the two migrators use separate connections.
    const other = backend === "postgres" ? await empty.openAnother() : empty.db;
    const [a, b] = await Promise.all([migrate(empty.db), migrate(other)]);
    const all = MIGRATIONS.map((m) => m.filename);
    expect([...a.applied, ...b.applied].sort()).toEqual(all);
    expect([...a.applied, ...a.alreadyApplied].sort()).toEqual(all);
    expect([...b.applied, ...b.alreadyApplied].sort()).toEqual(all);
    const { rows } = await empty.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${JOURNAL_TABLE}`,
    );
    expect(rows[0]?.n).toBe(all.length);
  });
});
