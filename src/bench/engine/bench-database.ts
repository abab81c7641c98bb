/**
 * bench/engine/bench-database — a fresh, migrated ledger for one benchmark run: a throwaway
 * database on the Postgres server (created, migrated, dropped) or a PGlite data directory in
 * a temporary folder. Returns the privileged handle (for counting rows and the commit floor)
 * and, for Postgres, the URL that worker processes connect to. Imports: db.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { PrivilegedDb } from "../../db/db.js";
import { migrate } from "../../db/migrator.js";
import { openPostgresPrivileged } from "../../db/pg-driver.js";
import { openPglite } from "../../db/pglite-driver.js";

export type BenchBackend = "pglite" | "postgres";

export interface BenchDatabase {
  readonly backend: BenchBackend;
  readonly root: PrivilegedDb;
  /** Postgres only: this run's database. */
  readonly url: string | null;
  close(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A migrated database on the server at `adminUrl`, dropped by `close()`. */
export async function createPostgresBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `irrevon_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const root = await openPostgresPrivileged({ url, poolMax: 4 });
  await migrate(root);
  return {
    backend: "postgres",
    root,
    url,
    async close() {
      await root.close();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** A migrated PGlite data directory in a temporary folder, removed by `close()`. */
export async function createPgliteBenchDatabase(): Promise<BenchDatabase> {
  const parent = mkdtempSync(join(tmpdir(), "irrevon-bench-"));
  const root = await openPglite({ dataDir: join(parent, "ledger") });
  await migrate(root);
  return {
    backend: "pglite",
    root,
    url: null,
    async close() {
      await root.close();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
