/**
 * db/open — picks the backend: a Postgres server when a URL is given (DATABASE_URL or
 * --database-url), otherwise the embedded PGlite ledger in a data directory (default
 * ./.irrevon/ledger). A new embedded ledger starts as a clone of the migrated image
 * (db/pglite-image, docs/decisions/0006-embedded-image.md), not from initdb. The drivers are
 * imported when a database is opened, so that importing this module loads neither PGlite nor
 * node-postgres. See docs/decisions/0002-storage.md. Imports: core, db.
 */
import type { Db, DbRole, PrivilegedDb } from "./db.js";
import { migrate } from "./migrator.js";
import type { PgliteConnection } from "./pglite-driver.js";

/** Where the embedded ledger lives unless told otherwise. */
export const DEFAULT_DATA_DIR = "./.irrevon/ledger";

/** Where to find the database. */
export interface DatabaseLocation {
  /** A Postgres server URL; wins over `dataDir`. */
  readonly databaseUrl?: string;
  /** Embedded data directory (default ./.irrevon/ledger); ignored when a URL is given. */
  readonly dataDir?: string;
  /** Connections per role pool on a server. */
  readonly poolMax?: number;
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions extends DatabaseLocation {
  readonly role: DbRole;
  /**
   * Embedded only: apply pending migrations on open (the embedded ledger has no separate
   * migration login; the process owning the directory is the superuser). Default false.
   */
  readonly autoMigrate?: boolean;
}

/**
 * Opens the embedded ledger's privileged handle: the data directory (a new one is cloned from
 * the migrated image) or, without one, a new in-memory ledger cloned from the image.
 */
export async function openEmbeddedPrivileged(
  dataDir?: string,
): Promise<PrivilegedDb & PgliteConnection> {
  const [{ openPglite }, { loadPgliteImage, resolvePgliteImage }] = await Promise.all([
    import("./pglite-driver.js"),
    import("./pglite-image.js"),
  ]);
  // A data directory is seeded once, so its process need not keep the image afterwards (~17 MB
  // of the demo's first engine child); in-memory ledgers share the process's copy.
  if (dataDir === undefined) return openPglite({ seed: loadPgliteImage });
  return openPglite({ dataDir, seed: () => resolvePgliteImage() });
}

/** Opens the migrating login's handle (superuser / database owner) for `migrate`. */
export async function openPrivileged(location: DatabaseLocation): Promise<PrivilegedDb> {
  if (location.databaseUrl !== undefined) {
    const { openPostgresPrivileged } = await import("./pg-driver.js");
    return openPostgresPrivileged({
      url: location.databaseUrl,
      ...(location.poolMax === undefined ? {} : { poolMax: location.poolMax }),
    });
  }
  return openEmbeddedPrivileged(location.dataDir ?? DEFAULT_DATA_DIR);
}

/**
 * Opens the ledger database acting as `role`. On PGlite the returned handle owns the data
 * directory's connection: `close()` it (not a handle obtained through `as`) when done.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Db> {
  if (options.databaseUrl !== undefined) {
    const { openPostgres } = await import("./pg-driver.js");
    return openPostgres({
      url: options.databaseUrl,
      role: options.role,
      ...(options.poolMax === undefined ? {} : { poolMax: options.poolMax }),
    });
  }
  const root = await openEmbeddedPrivileged(options.dataDir ?? DEFAULT_DATA_DIR);
  try {
    if (options.autoMigrate === true) await migrate(root);
  } catch (e) {
    await root.close();
    throw e;
  }
  const handle = root.as(options.role);
  return { ...handle, as: (r: DbRole) => root.as(r), close: () => root.close() };
}
