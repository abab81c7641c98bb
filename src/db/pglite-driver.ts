/**
 * db/pglite-driver — the embedded backend: real Postgres compiled to WASM (PGlite), in a
 * local data directory or in memory. PGlite has exactly one session, so every handle shares
 * it: transactions queue on PGlite's own mutex, and a role handle starts each transaction
 * with SET LOCAL ROLE (plus SET TRANSACTION READ ONLY for irrevon_read), which reverts at
 * COMMIT/ROLLBACK so no role leaks between callers. A new database can start from a seed (a
 * migrated image, db/pglite-image) instead of initdb. PGlite itself is imported on first open,
 * so importing this module costs nothing (`irrevon --help` stays light). Imports: core, db.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MemoryFS, PGlite, Transaction } from "@electric-sql/pglite";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { LOCK_FILE_NAME, lockDataDir, type DataDirLock } from "./data-dir-lock.js";
import { DERIVED_TABLES } from "./ledger-tables.js";
import type {
  Db,
  DbRole,
  PrivilegedDb,
  QueryResult,
  TransactionQueryable,
  ScriptQueryable,
  TransactionOptions,
} from "./db.js";
import { DbRole as Roles } from "./db.js";
import { assertRole, parseInt8, transactionPreamble } from "./role-sql.js";
import { errorMappingQueryable } from "./error-mapping-queryable.js";
import { inlineParams } from "./inline-params.js";
import { mapDbError } from "./sqlstate.js";
import { extractTar, walkTar } from "./ustar.js";

/** A migrated data directory to start a new database from: an uncompressed `dumpDataDir` tarball. */
export interface PgliteSeed {
  readonly tar: Uint8Array;
}

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /** Data directory; undefined = in memory (tests). */
  readonly dataDir?: string;
  /**
   * Where a new database comes from instead of initdb; called only when the data directory
   * holds no database yet (always in memory).
   */
  readonly seed?: () => Promise<PgliteSeed>;
  /** Extra initdb arguments, used only when a new database is initialised (image builds). */
  readonly initdbArgs?: readonly string[];
}

/**
 * Postgres's shared buffer pool inside PGlite. Postgres zeroes its shared memory at every start,
 * so the server default (128 MB) cost ~0.35 s of CPU and ~130 MB of resident memory per open;
 * PGlite has one session and its data files sit in the OS page cache (or in memory), so a
 * ledger's working set needs far less. Applied at every start (a setting, not part of a ledger).
 */
export const PGLITE_SHARED_BUFFERS = "16MB";

/**
 * Present in a data directory while a seed is being unpacked into it. A directory that still
 * has it was interrupted before its first open finished, so nothing was ever written to it
 * through the ledger: it is wiped and seeded again instead of being opened half-unpacked.
 */
export const SEEDING_MARKER = "irrevon.seeding";

/** Unpacks the seed into `dataDir` if it holds no database yet; true when it did. */
async function seedDataDir(dataDir: string, seed: () => Promise<PgliteSeed>): Promise<boolean> {
  const marker = join(dataDir, SEEDING_MARKER);
  const interrupted = existsSync(marker);
  if (!interrupted && existsSync(join(dataDir, "PG_VERSION"))) return false;
  if (interrupted) {
    for (const entry of readdirSync(dataDir)) {
      if (entry !== LOCK_FILE_NAME && entry !== SEEDING_MARKER)
        rmSync(join(dataDir, entry), { recursive: true, force: true });
    }
  }
  const { tar } = await seed();
  writeFileSync(marker, `${process.pid}\n`);
  extractTar(tar, dataDir);
  return true;
}

interface TarEntry {
  readonly path: string;
  readonly data?: Uint8Array;
}

/**
 * A memory file system that starts holding the seed's data directory: every entry is checked
 * before PGlite starts (a corrupt seed is `storage_error`, nothing half-loaded), then written
 * into the emscripten file system as views of one private copy of the seed (the database writes
 * into those views, so they must never share bytes with the image other ledgers are cloned
 * from). PGlite then finds a database and starts it, instead of running initdb or unpacking a
 * `loadDataDir` blob through streams (~0.5 s of CPU and ~60 MB more for the same result).
 */
function seededMemoryFs(Base: typeof MemoryFS, seed: Uint8Array): MemoryFS {
  const entries: TarEntry[] = [];
  const tar = new Uint8Array(seed); // a copy (a Buffer's slice() would be a view)
  walkTar(tar, {
    directory: (path) => entries.push({ path }),
    file: (path, data) => entries.push({ path, data }),
  });
  class SeededMemoryFs extends Base {
    override async init(
      pg: PGlite,
      options: Parameters<MemoryFS["init"]>[1],
    ): ReturnType<MemoryFS["init"]> {
      const { emscriptenOpts } = await super.init(pg, options);
      const load = (mod: { FS: EmscriptenFs; ENV: Record<string, string | undefined> }): void => {
        const pgdata = mod.ENV["PGDATA"];
        if (pgdata === undefined) throw new Error("PGlite set no PGDATA before loading the seed");
        mod.FS.mkdirTree(pgdata, 0o700);
        for (const e of entries) {
          const path = e.path === "" ? pgdata : `${pgdata}/${e.path}`;
          if (e.data === undefined) mod.FS.mkdirTree(path, 0o700);
          else mod.FS.writeFile(path, e.data, { canOwn: true });
        }
      };
      const preRun = [...toArray(emscriptenOpts.preRun), load];
      return { emscriptenOpts: { ...emscriptenOpts, preRun } as typeof emscriptenOpts };
    }
  }
  return new SeededMemoryFs();
}

/** The part of emscripten's FS the seed loader uses. */
interface EmscriptenFs {
  mkdirTree(path: string, mode?: number): void;
  writeFile(path: string, data: Uint8Array, opts?: { canOwn?: boolean }): void;
}

function toArray<T>(x: T | readonly T[] | undefined): T[] {
  if (x === undefined) return [];
  return Array.isArray(x) ? [...(x as readonly T[])] : [x as T];
}

/** The embedded database behind a privileged handle (exposed for the test harness). */
export interface PgliteConnection {
  readonly pglite: PGlite;
  /** A tarball of the whole data directory (see PGlite `dumpDataDir`). */
  dump(): Promise<Blob>;
}

const INT8_OID = 20;

interface Shared {
  readonly pglite: PGlite;
  readonly lock: DataDirLock | undefined;
  /** Marks async contexts inside a transaction, to refuse re-entrant use (which would deadlock). */
  readonly inTransaction: AsyncLocalStorage<true>;
  closed: boolean;
}

function toResult<R>(r: {
  rows: unknown[];
  rowCount?: number;
  affectedRows?: number;
}): QueryResult<R> {
  return { rows: r.rows as R[], rowCount: r.rowCount ?? r.affectedRows ?? r.rows.length };
}

/**
 * In-process, PGlite has no round trips to save: BEGIN is sent as usual, and `commitWith` is
 * an ordinary statement after which the transaction commits even if the callback then throws
 * (its error is reported after the commit, as on a server where COMMIT already went). The
 * statements are still held to the server driver's rule (db/inline-params), so code that
 * breaks it fails on either backend.
 */
function txQueryable(
  tx: Transaction,
  beginWithFirstStatement: boolean,
): { readonly q: ScriptQueryable; readonly isCommitted: () => boolean } {
  let first = beginWithFirstStatement;
  let committed = false;
  const query = async (sql: string, params: unknown[], last: boolean) => {
    if (last || first) inlineParams(sql, params, (v) => v);
    first = false;
    const result = toResult(await tx.query(sql, params));
    if (last) committed = true;
    return result;
  };
  const q = errorMappingQueryable({
    query: (sql, params) => query(sql, params, false),
    exec: (sql) => {
      first = false;
      return tx.exec(sql);
    },
    commitWith: (sql, params) => query(sql, params, true),
  });
  return { q, isCommitted: () => committed };
}

function checkUsable(shared: Shared): void {
  if (shared.closed)
    throw new IrrevonError(ErrorCode.storage_unavailable, "the embedded database is closed", {
      retryable: false,
    });
  if (shared.inTransaction.getStore() === true) {
    // PGlite has one session: waiting for the transaction we are inside of would never end.
    throw new IrrevonError(
      ErrorCode.internal,
      "a Db handle was used inside its own transaction; use the transaction's query instead",
    );
  }
}

async function runTransaction<T>(
  shared: Shared,
  role: DbRole | null,
  options: TransactionOptions,
  fn: (tx: ScriptQueryable) => Promise<T>,
): Promise<T> {
  checkUsable(shared);
  // An error the callback raised after its commitWith statement: reported once committed.
  let afterCommit: { readonly error: unknown } | undefined;
  let result: T;
  try {
    result = await shared.pglite.transaction(async (tx) => {
      for (const stmt of transactionPreamble(role, options.readOnly === true)) await tx.query(stmt);
      const { q, isCommitted } = txQueryable(tx, options.beginWithFirstStatement === true);
      try {
        return await shared.inTransaction.run(true, () => fn(q));
      } catch (e) {
        if (!isCommitted()) throw e;
        afterCommit = { error: e };
        return undefined as T;
      }
    });
  } catch (e) {
    throw mapDbError(e);
  }
  if (afterCommit !== undefined) throw mapDbError(afterCommit.error);
  return result;
}

/**
 * VACUUM of the derived indexes, outside any transaction (VACUUM cannot run in one), in the
 * embedded session's own (superuser) role: only what the triggers of 0058/0059 deleted is
 * reclaimed, and no fact table is touched.
 */
async function vacuumDerivedIndexes(shared: Shared): Promise<void> {
  checkUsable(shared);
  try {
    await shared.pglite.exec(`VACUUM ${DERIVED_TABLES.join(", ")}`);
  } catch (e) {
    throw mapDbError(e);
  }
}

function roleHandle(shared: Shared, role: DbRole, root: PrivilegedDb): Db {
  assertRole(role);
  return {
    backend: "pglite",
    role,
    maintain: () => vacuumDerivedIndexes(shared),
    query<R = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<R>> {
      return runTransaction(shared, role, {}, (tx) => tx.query<R>(sql, params));
    },
    transaction<T>(
      fn: (tx: TransactionQueryable) => Promise<T>,
      options?: TransactionOptions,
    ): Promise<T> {
      return runTransaction(shared, role, options ?? {}, fn);
    },
    as: (other: DbRole) => root.as(other),
    close: () => Promise.resolve(),
  };
}

/**
 * Opens an embedded ledger database and returns the privileged (superuser) handle; get role
 * handles with `.as(role)`. A data directory is locked for this process (`ledger_locked` if
 * another live process holds it). Migrations are not applied here (see db/migrator).
 */
export async function openPglite(
  options: PgliteOptions = {},
): Promise<PrivilegedDb & PgliteConnection> {
  const lock = options.dataDir === undefined ? undefined : lockDataDir(options.dataDir);
  let pglite: PGlite;
  let seeded = false;
  try {
    const module = import("@electric-sql/pglite");
    let memorySeed: Uint8Array | undefined;
    if (options.seed !== undefined) {
      if (options.dataDir === undefined) memorySeed = (await options.seed()).tar;
      else seeded = await seedDataDir(options.dataDir, options.seed);
    }
    const { PGlite, MemoryFS } = await module;
    pglite = await PGlite.create({
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(memorySeed === undefined ? {} : { fs: seededMemoryFs(MemoryFS, memorySeed) }),
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
      ...(options.initdbArgs === undefined ? {} : { initDbStartParams: [...options.initdbArgs] }),
      parsers: { [INT8_OID]: (v: string) => parseInt8(v) },
    });
    if (seeded && options.dataDir !== undefined) unlinkSync(join(options.dataDir, SEEDING_MARKER));
  } catch (e) {
    lock?.release();
    if (e instanceof IrrevonError) throw e; // a corrupt seed says so itself
    throw new IrrevonError(
      ErrorCode.storage_unavailable,
      `could not open the embedded database${options.dataDir === undefined ? "" : ` in ${options.dataDir}`}`,
      {
        retryable: false,
        details: { data_dir: options.dataDir ?? null },
        cause: e,
      },
    );
  }
  const shared: Shared = {
    pglite,
    lock,
    inTransaction: new AsyncLocalStorage<true>(),
    closed: false,
  };
  const handles = new Map<DbRole, Db>();

  const root: PrivilegedDb & PgliteConnection = {
    backend: "pglite",
    role: Roles.owner,
    privileged: true,
    pglite,
    maintain: () => vacuumDerivedIndexes(shared),
    async query<R = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<R>> {
      checkUsable(shared);
      try {
        return toResult<R>(await pglite.query(sql, params === undefined ? [] : [...params]));
      } catch (e) {
        throw mapDbError(e);
      }
    },
    transaction<T>(
      fn: (tx: TransactionQueryable) => Promise<T>,
      opts?: TransactionOptions,
    ): Promise<T> {
      return runTransaction(shared, null, opts ?? {}, fn);
    },
    scriptTransaction<T>(fn: (tx: ScriptQueryable) => Promise<T>): Promise<T> {
      return runTransaction(shared, null, {}, fn);
    },
    as(role: DbRole): Db {
      let h = handles.get(role);
      if (h === undefined) {
        h = roleHandle(shared, role, root);
        handles.set(role, h);
      }
      return h;
    },
    async dump(): Promise<Blob> {
      checkUsable(shared);
      return pglite.dumpDataDir("none");
    },
    async close(): Promise<void> {
      if (shared.closed) return;
      shared.closed = true;
      try {
        await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
  return root;
}
