/**
 * engine/gated-db — a Db whose statements and transactions take turns: at most `max` of them
 * are at the database at once, the rest wait in arrival order (engine/status-batcher
 * WireSlots). Recovery runs many lanes so that destination calls overlap; their ledger work
 * does not get faster past the server's cores — more backends than cores only contend (on a
 * 2-core machine, recovery's server CPU per effect rose 2.4 → 5.5 ms from 1 to 8 lanes) — so
 * the lanes share a smaller gate to the ledger. A statement run while this async context
 * already holds a turn (a query inside a transaction's callback through the outer handle)
 * passes without waiting, so the gate can never deadlock on itself. Imports: db, engine.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type {
  Db,
  DbRole,
  QueryResult,
  TransactionOptions,
  TransactionQueryable,
} from "../db/db.js";
import { WireSlots } from "./status-batcher.js";

/** Wraps `inner`: at most `max` statements or transactions at the database at once. */
export function gatedDb(inner: Db, max: number): Db {
  const slots = new WireSlots(max);
  const holding = new AsyncLocalStorage<true>();
  const turn = <T>(fn: () => Promise<T>): Promise<T> =>
    holding.getStore() === true ? fn() : slots.run(() => holding.run(true, fn));
  const wrap = (db: Db): Db => {
    const gated: Db = {
      backend: db.backend,
      role: db.role,
      query<R = Record<string, unknown>>(
        sql: string,
        params?: readonly unknown[],
      ): Promise<QueryResult<R>> {
        return turn(() => db.query<R>(sql, params));
      },
      transaction<T>(
        fn: (tx: TransactionQueryable) => Promise<T>,
        options?: TransactionOptions,
      ): Promise<T> {
        return turn(() => db.transaction(fn, options));
      },
      as: (role: DbRole) => wrap(db.as(role)),
      close: () => db.close(),
    };
    const maintain = db.maintain?.bind(db);
    return maintain === undefined ? gated : { ...gated, maintain: () => turn(maintain) };
  };
  return wrap(inner);
}
