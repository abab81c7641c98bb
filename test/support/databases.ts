/**
 * test/support/databases — a fresh, migrated ledger database per test, on both backends.
 *
 * PGlite: each test gets an in-memory clone of the migrated image the product itself uses
 * (src/db/pglite-image: shipped in dist/ by `npm run build`, else built once into the user
 * cache, verified by its content hash), so tests never pay initdb.
 * Postgres (IRREVON_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres): a
 * template database per migrations hash is built under an advisory lock, and each test gets
 * `CREATE DATABASE irrevon_t_<random> TEMPLATE …`, dropped again by close().
 *
 * Postgres is always part of BACKENDS. If the server is unreachable the Postgres suites are
 * skipped with a printed reason — unless IRREVON_REQUIRE_POSTGRES=1 (CI), where they run and fail.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe } from "vitest";
import type { Db, PrivilegedDb } from "../../src/db/db.js";
import { DbRole } from "../../src/db/db.js";
import { advisoryLockKey, migrate } from "../../src/db/migrator.js";
import { openPostgresPrivileged } from "../../src/db/pg-driver.js";
import { openEmbeddedPrivileged } from "../../src/db/open.js";
import { openPglite } from "../../src/db/pglite-driver.js";
import { migrationsHash } from "../../src/db/migrator.js";

export type Backend = "pglite" | "postgres";
export const BACKENDS: readonly Backend[] = ["pglite", "postgres"];

export interface TestLedger {
  backend: Backend;
  /** Acting as irrevon_app. */
  app: Db;
  /** Acting as irrevon_owner. */
  owner: Db;
  /** Acting as irrevon_read (read-only transactions). */
  read: Db;
  /** The migrating login (superuser), no role switch. */
  superuser: PrivilegedDb;
  /** Postgres only: URL of this test's own database. */
  url?: string;
  close(): Promise<void>;
}

/** Server the Postgres suites use. */
export const TEST_PG_URL =
  process.env["IRREVON_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REQUIRE_POSTGRES = process.env["IRREVON_REQUIRE_POSTGRES"] === "1";

/** Hash of the migration set: the template cache key. */
export const MIGRATIONS_HASH = migrationsHash();

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const postgresUnreachable: string | undefined = await probePostgres();
if (postgresUnreachable !== undefined) {
  const what = REQUIRE_POSTGRES ? "FAILING (IRREVON_REQUIRE_POSTGRES=1)" : "skipping";
  console.warn(
    `[test/support/databases] Postgres at ${TEST_PG_URL} unreachable (${postgresUnreachable}); ${what} the Postgres suites.`,
  );
}

/** Whether the Postgres suites are skipped in this run (never when IRREVON_REQUIRE_POSTGRES=1). */
export const SKIP_POSTGRES = postgresUnreachable !== undefined && !REQUIRE_POSTGRES;

/** Runs `fn` once per backend inside `describe("<name> [<backend>]")`. */
export function describeEachBackend(name: string, fn: (backend: Backend) => void): void {
  for (const backend of BACKENDS) {
    describe.skipIf(backend === "postgres" && SKIP_POSTGRES)(`${name} [${backend}]`, () =>
      fn(backend),
    );
  }
}

// ---------------------------------------------------------------- PGlite

async function openPgliteLedger(): Promise<TestLedger> {
  // A clone of the same verified, migrated image the product uses (db/pglite-image).
  const root = await openEmbeddedPrivileged();
  return {
    backend: "pglite",
    app: root.as(DbRole.app),
    owner: root.as(DbRole.owner),
    read: root.as(DbRole.read),
    superuser: root,
    close: () => root.close(),
  };
}

// ---------------------------------------------------------------- Postgres

const TEMPLATE_LOCK_KEY = advisoryLockKey("irrevon:test-template");
let postgresTemplate: Promise<string> | undefined;

async function buildPostgresTemplate(): Promise<string> {
  const name = `irrevon_tpl_${MIGRATIONS_HASH}`;
  const building = `irrevon_tplb_${MIGRATIONS_HASH}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock($1::bigint)", [TEMPLATE_LOCK_KEY]);
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) {
      // Build under a temporary name and rename when complete: a crash mid-build never
      // leaves a half-migrated template under the real name.
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building}`);
      const root = await openPostgresPrivileged({
        url: withDatabase(TEST_PG_URL, building),
        poolMax: 1,
      });
      try {
        await migrate(root);
      } finally {
        await root.close();
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      // Templates of older migration sets are garbage; one still in use simply stays.
      const stale = await admin.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE 'irrevon\\_tpl\\_%' AND datname <> $1",
        [name],
      );
      for (const { datname } of stale.rows) {
        await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
      }
    }
    return name;
  } finally {
    await admin
      .query("SELECT pg_advisory_unlock($1::bigint)", [TEMPLATE_LOCK_KEY])
      .catch(() => undefined);
    await admin.end();
  }
}

async function openPostgresLedger(): Promise<TestLedger> {
  postgresTemplate ??= buildPostgresTemplate();
  let template: string;
  try {
    template = await postgresTemplate;
  } catch (e) {
    postgresTemplate = undefined;
    throw e;
  }
  const database = `irrevon_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database} TEMPLATE ${template}`);
  } catch (e) {
    // Another run (with other migrations) may have dropped our template: rebuild once.
    if ((e as { code?: unknown }).code !== "3D000") throw e;
    postgresTemplate = buildPostgresTemplate();
    await admin.query(`CREATE DATABASE ${database} TEMPLATE ${await postgresTemplate}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(TEST_PG_URL, database);
  const root = await openPostgresPrivileged({ url, poolMax: 4 });
  return {
    backend: "postgres",
    app: root.as(DbRole.app),
    owner: root.as(DbRole.owner),
    read: root.as(DbRole.read),
    superuser: root,
    url,
    async close() {
      await root.close();
      const dropper = new pg.Client({ connectionString: TEST_PG_URL });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** A fresh migrated database for one test. Always `close()` it (afterEach). */
export async function openTestLedger(backend: Backend): Promise<TestLedger> {
  switch (backend) {
    case "pglite":
      return openPgliteLedger();
    case "postgres":
      return openPostgresLedger();
  }
}

/** An empty, unmigrated database (for migrator tests). PGlite pays a full initdb here. */
export interface EmptyDatabase {
  readonly db: PrivilegedDb;
  readonly url?: string;
  /** Another privileged connection to the same database (Postgres only). */
  openAnother(): Promise<PrivilegedDb>;
  close(): Promise<void>;
}

/** A fresh database with no migrations applied. */
export async function openEmptyDatabase(backend: Backend): Promise<EmptyDatabase> {
  if (backend === "pglite") {
    const db = await openPglite();
    return {
      db,
      openAnother: () => Promise.reject(new Error("PGlite has a single session")),
      close: () => db.close(),
    };
  }
  const database = `irrevon_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(TEST_PG_URL, database);
  const opened: PrivilegedDb[] = [];
  const openAnother = async (): Promise<PrivilegedDb> => {
    const db = await openPostgresPrivileged({ url, poolMax: 2 });
    opened.push(db);
    return db;
  };
  const db = await openAnother();
  return {
    db,
    url,
    openAnother,
    async close() {
      await Promise.all(opened.map((d) => d.close()));
      const dropper = new pg.Client({ connectionString: TEST_PG_URL });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
