/**
 * bench/engine/counting-db — a Db that counts what goes through it: transactions opened,
 * statements inside them, and statements run on their own (each an implicit transaction).
 * Wrapped around the engine's ledger handle it shows the round trips one effect costs on
 * either backend; the durable commits themselves are counted from the data
 * (bench/engine/write-transactions). A BEGIN sent with the first statement
 * (`beginWithFirstStatement`) or a COMMIT sent with the last (`commitWith`) costs no round
 * trip of its own on a server; PGlite sends them on their own (it has no wire), and they are
 * counted so. Imports: db.
 */
import type {
  Db,
  DbRole,
  QueryResult,
  TransactionOptions,
  TransactionQueryable,
} from "../../db/db.js";

/** Counters, shared by every handle derived from one wrapper. */
export interface DbCounts {
  transactions: number;
  statementsInTransactions: number;
  standaloneStatements: number;
  /** BEGINs and COMMITs that travelled with a statement (a server only): no round trip each. */
  sharedBeginsAndCommits: number;
}

export function zeroCounts(): DbCounts {
  return {
    transactions: 0,
    statementsInTransactions: 0,
    standaloneStatements: 0,
    sharedBeginsAndCommits: 0,
  };
}

/** Round trips of `counts`: every statement, plus BEGIN and COMMIT of each transaction unless they shared one. */
export function roundTripsOf(counts: DbCounts): number {
  return (
    counts.standaloneStatements +
    counts.statementsInTransactions +
    2 * counts.transactions -
    counts.sharedBeginsAndCommits
  );
}

/** Wraps `inner`; every handle obtained through `as` counts into the same `counts`. */
export function countingDb(inner: Db, counts: DbCounts = zeroCounts()): Db & { counts: DbCounts } {
  const wire = inner.backend === "postgres";
  const wrapTx = (tx: TransactionQueryable, sharedBegin: boolean): TransactionQueryable => {
    let first = true;
    const counted = (): void => {
      counts.statementsInTransactions += 1;
      if (first && sharedBegin) counts.sharedBeginsAndCommits += 1;
      first = false;
    };
    return {
      query<R = Record<string, unknown>>(
        sql: string,
        params?: readonly unknown[],
      ): Promise<QueryResult<R>> {
        counted();
        return tx.query<R>(sql, params);
      },
      commitWith<R = Record<string, unknown>>(
        sql: string,
        params?: readonly unknown[],
      ): Promise<QueryResult<R>> {
        counted();
        if (wire) counts.sharedBeginsAndCommits += 1;
        return tx.commitWith<R>(sql, params);
      },
    };
  };
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
    transaction<T>(
      fn: (tx: TransactionQueryable) => Promise<T>,
      options?: TransactionOptions,
    ): Promise<T> {
      counts.transactions += 1;
      const sharedBegin = wire && options?.beginWithFirstStatement === true;
      return inner.transaction((tx) => fn(wrapTx(tx, sharedBegin)), options);
    },
    as: (role: DbRole) => countingDb(inner.as(role), counts),
    close: () => inner.close(),
  };
}
