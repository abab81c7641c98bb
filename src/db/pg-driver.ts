/**
 * db/pg-driver — the server backend (node-postgres). One pool per role; every connection of a
 * role's pool starts in that role through the startup parameter `role` (the server applies it
 * before the first query, a connection that may not take the role fails to open, and RESET
 * ROLE returns to it rather than to the login). irrevon_read sessions also default to
 * read-only transactions. Unreachable servers surface as `storage_unavailable` (retryable).
 * Imports: core, db.
 */
import pg from "pg";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type {
  Db,
  DbRole,
  PrivilegedDb,
  QueryResult,
  ScriptQueryable,
  TransactionOptions,
  TransactionQueryable,
} from "./db.js";
import { DbRole as Roles } from "./db.js";
import { assertRole, isReadOnlyRole, parseInt8 } from "./role-sql.js";
import { errorMappingQueryable } from "./error-mapping-queryable.js";
import { inlineParams } from "./inline-params.js";
import { mapDbError } from "./sqlstate.js";

/** Options of {@link openPostgres}. */
export interface PostgresOptions {
  /** libpq-style URL, e.g. postgres://user@host:5432/db. */
  readonly url: string;
  readonly role: DbRole;
  /** Connections per role pool (default 5). */
  readonly poolMax?: number;
}

/** Timeouts of role sessions: a lock wait that long means contention worth surfacing. */
export const ROLE_SESSION_DEFAULTS = {
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 5_000,
  idleInTransactionTimeoutMs: 60_000,
} as const;

const INT8_OID = 20;
const PRIVILEGED = "privileged" as const;
type PoolKey = DbRole | typeof PRIVILEGED;

const typeParsers: pg.CustomTypesConfig = {
  // Ids are bigint; both backends return them as JS numbers (parseInt8 refuses unsafe values).
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID && format !== "binary"
      ? parseInt8
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

interface Cluster {
  readonly url: string;
  readonly poolMax: number;
  readonly pools: Map<PoolKey, pg.Pool>;
  readonly handles: Map<DbRole, Db>;
  closed: boolean;
}

function sessionOptions(key: PoolKey): string | undefined {
  if (key === PRIVILEGED) return undefined;
  assertRole(key);
  const d = ROLE_SESSION_DEFAULTS;
  const opts = [
    `-c role=${key}`,
    `-c statement_timeout=${d.statementTimeoutMs}`,
    `-c lock_timeout=${d.lockTimeoutMs}`,
    `-c idle_in_transaction_session_timeout=${d.idleInTransactionTimeoutMs}`,
  ];
  if (isReadOnlyRole(key)) opts.push("-c default_transaction_read_only=on");
  return opts.join(" ");
}

function poolFor(cluster: Cluster, key: PoolKey): pg.Pool {
  if (cluster.closed)
    throw new IrrevonError(ErrorCode.storage_unavailable, "the database handle is closed", {
      retryable: false,
    });
  let pool = cluster.pools.get(key);
  if (pool === undefined) {
    const options = sessionOptions(key);
    pool = new pg.Pool({
      connectionString: cluster.url,
      max: cluster.poolMax,
      connectionTimeoutMillis: 10_000,
      types: typeParsers,
      ...(options === undefined ? {} : { options }),
    });
    // An idle client that loses its server emits here; the pool discards it. Without a
    // listener the process would crash on a server restart.
    pool.on("error", () => undefined);
    cluster.pools.set(key, pool);
  }
  return pool;
}

function toResult<R>(r: pg.QueryResult): QueryResult<R> {
  return { rows: r.rows as R[], rowCount: r.rowCount ?? r.rows.length };
}

/** Whether an error came from the server as a statement error (the connection is still fine). */
function isStatementError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" &&
    /^[0-9A-Z]{5}$/.test(code) &&
    !code.startsWith("08") &&
    !code.startsWith("57P")
  );
}

async function runQuery<R>(
  pool: pg.Pool,
  sql: string,
  params?: readonly unknown[],
): Promise<QueryResult<R>> {
  // Not pool.query(): it discards the connection after ANY error, so every expected failure
  // (a lost DT002 race, a unique-key arbiter) would cost a reconnect.
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw mapDbError(e);
  }
  let broken: Error | undefined;
  // A checked-out client that loses its connection emits 'error'; unheard, it would crash
  // the process. Mark the client broken instead; the statement itself rejects too.
  const onError = (e: Error): void => {
    broken ??= e;
  };
  client.on("error", onError);
  try {
    return toResult<R>(await client.query(sql, params === undefined ? [] : [...params]));
  } catch (e) {
    if (!isStatementError(e)) broken = e instanceof Error ? e : new Error(String(e));
    throw mapDbError(e);
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

/** A multi-statement simple query's results (node-postgres answers an array for several). */
function resultsOf(r: pg.QueryResult | pg.QueryResult[]): pg.QueryResult[] {
  return Array.isArray(r) ? r : [r];
}

function rolledBack(): IrrevonError {
  // COMMIT of a transaction that already failed answers ROLLBACK without an error; PGlite
  // raises 25P02 there, and so do we, so a swallowed statement error never looks committed.
  return new IrrevonError(
    ErrorCode.storage_error,
    "the transaction had failed and was rolled back",
    {
      details: { sqlstate: "25P02" },
    },
  );
}

async function runTransaction<T>(
  pool: pg.Pool,
  options: { readonly readOnly: boolean; readonly beginWithFirstStatement: boolean },
  fn: (tx: ScriptQueryable) => Promise<T>,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw mapDbError(e);
  }
  let broken: Error | undefined;
  const onError = (e: Error): void => {
    broken ??= e; // see runQuery: a lost connection must not crash the process
  };
  client.on("error", onError);
  const begin = options.readOnly ? "BEGIN READ ONLY" : "BEGIN";
  // BEGIN not yet sent (it goes with the first statement); COMMIT already sent with the last.
  let beginPending = options.beginWithFirstStatement;
  let committed = false;
  // One message: [BEGIN;] statement [; COMMIT] with the values written out (db/inline-params).
  const fused = async (sql: string, params: unknown[], commit: boolean) => {
    const text = inlineParams(sql, params, (v) => client.escapeLiteral(v));
    const withBegin = beginPending;
    beginPending = false;
    const results = resultsOf(
      await client.query(
        [...(withBegin ? [begin] : []), text, ...(commit ? ["COMMIT"] : [])].join("; "),
      ),
    );
    const statement = results[withBegin ? 1 : 0];
    if (statement === undefined) throw new Error("a fused statement returned no result");
    if (commit) {
      if (results[results.length - 1]?.command !== "COMMIT") throw rolledBack();
      committed = true;
    }
    return toResult(statement);
  };
  const tx = errorMappingQueryable({
    query: (sql, params) =>
      beginPending ? fused(sql, params, false) : client.query(sql, params).then(toResult),
    exec: async (sql) => {
      if (beginPending) {
        beginPending = false;
        await client.query(begin);
      }
      return client.query(sql);
    },
    commitWith: (sql, params) => fused(sql, params, true),
  });
  try {
    if (!beginPending) await client.query(begin);
    const result = await fn(tx);
    // Committed with the last statement, or nothing was ever sent: no COMMIT to send.
    if (!committed && !beginPending) {
      const commit = await client.query("COMMIT");
      if (commit.command === "ROLLBACK") throw rolledBack();
    }
    return result;
  } catch (e) {
    // Nothing to undo when BEGIN never went out or COMMIT already went with the last statement.
    if (!committed && !beginPending) {
      try {
        await client.query("ROLLBACK");
      } catch (rollbackError) {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
    }
    throw mapDbError(e);
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

function roleHandle(cluster: Cluster, role: DbRole, root: () => Db): Db {
  assertRole(role);
  const readOnlyRole = isReadOnlyRole(role);
  return {
    backend: "postgres",
    role,
    query: <R = Record<string, unknown>>(sql: string, params?: readonly unknown[]) =>
      runQuery<R>(poolFor(cluster, role), sql, params),
    transaction: <T>(fn: (tx: TransactionQueryable) => Promise<T>, options?: TransactionOptions) =>
      runTransaction(
        poolFor(cluster, role),
        {
          readOnly: readOnlyRole || options?.readOnly === true,
          beginWithFirstStatement: options?.beginWithFirstStatement === true,
        },
        fn,
      ),
    as: (other: DbRole) => root().as(other),
    close: () => Promise.resolve(),
  };
}

function newCluster(url: string, poolMax: number | undefined): Cluster {
  return { url, poolMax: poolMax ?? 5, pools: new Map(), handles: new Map(), closed: false };
}

async function closeCluster(cluster: Cluster): Promise<void> {
  if (cluster.closed) return;
  cluster.closed = true;
  const pools = [...cluster.pools.values()];
  cluster.pools.clear();
  await Promise.all(pools.map((p) => p.end()));
}

async function probe(db: Db, cluster: Cluster): Promise<void> {
  try {
    await db.query("SELECT 1");
  } catch (e) {
    await closeCluster(cluster);
    throw e;
  }
}

function handleFor(cluster: Cluster, role: DbRole, root: () => Db): Db {
  let h = cluster.handles.get(role);
  if (h === undefined) {
    h = roleHandle(cluster, role, root);
    cluster.handles.set(role, h);
  }
  return h;
}

/**
 * Opens a server database acting as `role`; `.as(other)` opens (or reuses) that role's pool.
 * The URL's login must be allowed to take the roles (a member of them, or a superuser).
 * `close()` on the returned handle ends every pool it opened.
 */
export async function openPostgres(options: PostgresOptions): Promise<Db> {
  assertRole(options.role);
  const cluster = newCluster(options.url, options.poolMax);
  const base = (): Db => opener;
  const inner = roleHandle(cluster, options.role, base);
  const opener: Db = {
    ...inner,
    as: (other: DbRole) => (other === options.role ? opener : handleFor(cluster, other, base)),
    close: () => closeCluster(cluster),
  };
  cluster.handles.set(options.role, opener);
  // Fail fast (and typed) when the server is unreachable or the role cannot be taken.
  await probe(opener, cluster);
  return opener;
}

/**
 * Opens the migrating login's own connection (superuser or database owner) without any role
 * switch: used by the migrator, `irrevon migrate` and the test harness.
 */
export async function openPostgresPrivileged(options: {
  readonly url: string;
  readonly poolMax?: number;
}): Promise<PrivilegedDb> {
  const cluster = newCluster(options.url, options.poolMax);
  const root: PrivilegedDb = {
    backend: "postgres",
    role: Roles.owner,
    privileged: true,
    query: <R = Record<string, unknown>>(sql: string, params?: readonly unknown[]) =>
      runQuery<R>(poolFor(cluster, PRIVILEGED), sql, params),
    transaction: <T>(fn: (tx: TransactionQueryable) => Promise<T>, opts?: TransactionOptions) =>
      runTransaction(
        poolFor(cluster, PRIVILEGED),
        {
          readOnly: opts?.readOnly === true,
          beginWithFirstStatement: opts?.beginWithFirstStatement === true,
        },
        fn,
      ),
    scriptTransaction: <T>(fn: (tx: ScriptQueryable) => Promise<T>) =>
      runTransaction(
        poolFor(cluster, PRIVILEGED),
        { readOnly: false, beginWithFirstStatement: false },
        fn,
      ),
    as: (role: DbRole) => handleFor(cluster, role, () => root),
    close: () => closeCluster(cluster),
  };
  await probe(root, cluster);
  return root;
}
