/**
 * db/db — the Db port: the only surface the ledger, engine and workbench use to reach
 * Postgres, whether embedded (PGlite) or a server (node-postgres). Imports: core.
 */

/** The three roles of docs/decisions/0003-roles.md. */
export const DbRole = { owner: "irrevon_owner", app: "irrevon_app", read: "irrevon_read" } as const;
export type DbRole = (typeof DbRole)[keyof typeof DbRole];

export interface QueryResult<R> {
  readonly rows: R[];
  readonly rowCount: number;
}

/** Something that runs one parameterised statement ($1, $2, …). */
export interface Queryable {
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<R>>;
}

export interface TransactionOptions {
  /** `BEGIN READ ONLY` (the workbench and the auditor use this). */
  readonly readOnly?: boolean;
  /**
   * BEGIN travels with the transaction's first statement: one round trip instead of two on a
   * server (db/inline-params says which statements qualify; one that does not is an error).
   * A transaction that runs no statement then sends nothing at all.
   */
  readonly beginWithFirstStatement?: boolean;
}

/** What a transaction callback runs its statements on. */
export interface TransactionQueryable extends Queryable {
  /**
   * Runs `sql` as the transaction's LAST statement and commits with it: on a server the
   * statement and COMMIT travel in one message (one round trip; db/inline-params says which
   * statements qualify). If the statement fails nothing is committed. Any statement after it is
   * refused (`internal`): the callback must return.
   */
  commitWith<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<R>>;
}

/**
 * A database handle acting as one role. Every `query` and every `transaction` runs with
 * that role's privileges (SET LOCAL ROLE on a shared embedded connection; SET ROLE on a
 * server connection), so the app can never use the owner's rights by accident.
 */
export interface Db extends Queryable {
  readonly backend: "pglite" | "postgres";
  readonly role: DbRole;
  /** Runs `fn` in one transaction; commits if it resolves, rolls back if it throws. */
  transaction<T>(
    fn: (tx: TransactionQueryable) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T>;
  /** A handle on the same database acting as another role (shares the connection or pool). */
  as(role: DbRole): Db;
  /**
   * Reclaims the space of the rows the derived indexes dropped (db/ledger-tables
   * DERIVED_TABLES), where nothing else does: PGlite runs no autovacuum. Absent on a server,
   * whose autovacuum does it. The worker calls it once a cycle.
   */
  maintain?(): Promise<void>;
  /** Closes the underlying connection or pool (only the handle that opened it). */
  close(): Promise<void>;
}

/** A transaction that can also run a multi-statement SQL script (used by the migrator only). */
export interface ScriptQueryable extends TransactionQueryable {
  /** Runs `sql` (several statements, no parameters) with the simple query protocol. */
  exec(sql: string): Promise<void>;
}

/**
 * A handle on the migrating login itself (a superuser or the database owner), without any
 * SET ROLE. Only the migrator, the CLI's `migrate` and test harnesses hold one; `role` is
 * nominally `irrevon_owner` because migration DDL runs as that role. `as(role)` returns the
 * ordinary role handles, sharing this handle's connection or pools.
 */
export interface PrivilegedDb extends Db {
  readonly privileged: true;
  /** Like `transaction`, but `tx` can also run scripts; nothing sets a role inside it. */
  scriptTransaction<T>(fn: (tx: ScriptQueryable) => Promise<T>): Promise<T>;
}

/** Runtime guard for {@link PrivilegedDb}. */
export function isPrivilegedDb(db: Db): db is PrivilegedDb {
  return (db as Partial<PrivilegedDb>).privileged === true;
}

/** Every role a handle can act as, in a fixed order. */
export const DB_ROLES: readonly DbRole[] = Object.values(DbRole);
