/**
 * engine/open-database — turns `openIrrevon`'s `database` option into a Db acting as
 * irrevon_app: a handle the caller owns, a Postgres URL, an embedded data directory (one
 * process owns it: the driver refuses a second opener, and leases left live in it by a process
 * that died are released at open), or an in-memory ledger for tests and demos. A ledger whose
 * schema is behind the code is refused here (`schema_behind`), before anything could fail on a
 * missing function. Imports: core, db, ledger.
 */
import type { Db } from "../db/db.js";
import { DbRole, isPrivilegedDb } from "../db/db.js";
import { assertSchemaCurrent, migrate } from "../db/migrator.js";
import { openDatabase, openEmbeddedPrivileged, openPrivileged } from "../db/open.js";
import { releaseLeasesOfGoneProcesses } from "../ledger/worker-leases.js";

/** Where the ledger is. */
export type DatabaseOption =
  | Db
  | {
      readonly url: string;
      /** Apply pending migrations first, as the URL's login (default false). */ readonly migrate?: boolean;
    }
  | { readonly dataDir: string }
  | { readonly memory: true };

/** An app-role handle plus how to let go of it. */
export interface OpenedDatabase {
  readonly db: Db;
  /** Closes what this module opened; a caller-owned Db is left open. */
  close(): Promise<void>;
}

function isDb(option: DatabaseOption): option is Db {
  return typeof (option as Partial<Db>).transaction === "function";
}

/** Opens (and, for embedded ledgers, migrates) the database. */
export async function openLedgerDatabase(option: DatabaseOption): Promise<OpenedDatabase> {
  if (isDb(option)) {
    const db =
      option.role === DbRole.app && !isPrivilegedDb(option) ? option : option.as(DbRole.app);
    await assertSchemaCurrent(db);
    return { db, close: () => Promise.resolve() };
  }
  if ("url" in option) {
    if (option.migrate === true) {
      const privileged = await openPrivileged({ databaseUrl: option.url });
      try {
        await migrate(privileged);
      } finally {
        await privileged.close();
      }
    }
    const db = await openDatabase({ databaseUrl: option.url, role: DbRole.app });
    try {
      await assertSchemaCurrent(db);
    } catch (e) {
      await db.close();
      throw e;
    }
    return { db, close: () => db.close() };
  }
  if ("dataDir" in option) {
    const db = await openDatabase({ dataDir: option.dataDir, role: DbRole.app, autoMigrate: true });
    try {
      // We hold the directory's lock, so no other process runs on this ledger: a lease still
      // live in it was left by a process that died. Without this, a restart under the same
      // worker id would be refused (worker_id_in_use) until that lease ran out.
      await releaseLeasesOfGoneProcesses(db);
    } catch (e) {
      await db.close();
      throw e;
    }
    return { db, close: () => db.close() };
  }
  // A clone of the migrated image; migrate() then only checks the journal.
  const root = await openEmbeddedPrivileged();
  try {
    await migrate(root);
  } catch (e) {
    await root.close();
    throw e;
  }
  return { db: root.as(DbRole.app), close: () => root.close() };
}
