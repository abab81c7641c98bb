/**
 * bench/engine/counting-db — a Db that counts what goes through it: transactions opened,
 * statements inside them, and statements run on their own (each an implicit transaction).
 * Wrapped around the engine's ledger handle it shows the round trips one effect costs on
 * either backend; the durable commits themselves are counted from the data
 * (bench/engine/write-transactions). Imports: db.
 */
import type { Db, DbRole, Queryable, QueryResult, TransactionOptions } from "../../db/db.js";

/** Counters, shared by every handle derived from one wrapper. */
export interface DbCounts {
  transactions: number;
  statementsInTransactions: number;
  standaloneStatements: number;
}

export function zeroCounts(): DbCounts {
  return { transactions: 0, statementsInTransactions: 0, standaloneStatements: 0 };
}

/** Wraps `inner`; every handle obtained through `as` counts into the same `counts`. */
export function countingDb(inner: Db, counts: DbCounts = zeroCounts()): Db & { counts: DbCounts } {
  const wrapTx = (tx: Queryable): Queryable => ({
    query<R = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<R>> {
      counts.statementsInTransactions += 1;
      return tx.query<R>(sql, params);
    },
  });
  return {
    counts,
    backend: inner.backend,
    role: inner.role,
    query<R = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<R>> {
      counts.standaloneStatements += 1;
      return inner.query<R>(sql, params);
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      counts.transactions += 1;
      return inner.transaction((tx) => fn(wrapTx(tx)), options);
    },
    as: (role: DbRole) => countingDb(inner.as(role), counts),
    close: () => inner.close(),
  };
}
