/**
 * db/pglite-driver — the embedded backend: real Postgres compiled to WASM (PGlite), in a
 * local data directory or in memory. PGlite has exactly one session, so every handle shares
 * it: transactions queue on PGlite's own mutex, and a role handle starts each transaction
 * with SET LOCAL ROLE (plus SET TRANSACTION READ ONLY for irrevon_read), which reverts at
 * COMMIT/ROLLBACK so no role leaks between callers. Imports: core, db.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { lockDataDir, type DataDirLock } from "./data-dir-lock.js";
import type {
  Db,
  DbRole,
  PrivilegedDb,
  QueryResult,
  Queryable,
  ScriptQueryable,
  TransactionOptions,
} from "./db.js";
import { DbRole as Roles } from "./db.js";
import { assertRole, parseInt8, transactionPreamble } from "./role-sql.js";
import { errorMappingQueryable } from "./error-mapping-queryable.js";
import { mapDbError } from "./sqlstate.js";

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /** Data directory; undefined = in memory (tests). */
  readonly dataDir?: string;
  /** A tarball from `dumpDataDir()` to start from (test template clones). */
  readonly loadDataDir?: Blob | File;
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

function txQueryable(tx: Transaction): ScriptQueryable {
  return errorMappingQueryable(
    async (sql, params) => toResult(await tx.query(sql, params)),
    (sql) => tx.exec(sql),
  );
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
  readOnly: boolean,
  fn: (tx: ScriptQueryable) => Promise<T>,
): Promise<T> {
  checkUsable(shared);
  try {
    return await shared.pglite.transaction(async (tx) => {
      const q = txQueryable(tx);
      for (const stmt of transactionPreamble(role, readOnly)) await q.query(stmt);
      return shared.inTransaction.run(true, () => fn(q));
    });
  } catch (e) {
    throw mapDbError(e);
  }
}

function roleHandle(shared: Shared, role: DbRole, root: PrivilegedDb): Db {
  assertRole(role);
  return {
    backend: "pglite",
    role,
    query<R = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<R>> {
      return runTransaction(shared, role, false, (tx) => tx.query<R>(sql, params));
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      return runTransaction(shared, role, options?.readOnly === true, fn);
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
  try {
    pglite = await PGlite.create({
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
      parsers: { [INT8_OID]: (v: string) => parseInt8(v) },
    });
  } catch (e) {
    lock?.release();
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
    transaction<T>(fn: (tx: Queryable) => Promise<T>, opts?: TransactionOptions): Promise<T> {
      return runTransaction(shared, null, opts?.readOnly === true, fn);
    },
    scriptTransaction<T>(fn: (tx: ScriptQueryable) => Promise<T>): Promise<T> {
      return runTransaction(shared, null, false, fn);
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
