/**
 * db/error-mapping-queryable — the ScriptQueryable both drivers hand to a transaction
 * callback: each statement runs on the driver's own connection, every driver error leaves as
 * an IrrevonError through the one SQLSTATE map, and after `commitWith` (the transaction's last
 * statement) any further statement is refused the same way on both backends. Imports: core, db.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { QueryResult, ScriptQueryable } from "./db.js";
import { mapDbError } from "./sqlstate.js";

/** A driver's raw statements; `commitWith` runs the last statement and commits with it. */
export interface RawTransaction {
  query(sql: string, params: unknown[]): Promise<QueryResult<unknown>>;
  exec(sql: string): Promise<unknown>;
  commitWith(sql: string, params: unknown[]): Promise<QueryResult<unknown>>;
}

/** Wraps a driver's raw statements so errors are mapped once, here. */
export function errorMappingQueryable(raw: RawTransaction): ScriptQueryable {
  let ended = false;
  const open = (): void => {
    if (ended)
      throw new IrrevonError(
        ErrorCode.internal,
        "a statement after commitWith: commitWith runs the transaction's last statement",
      );
  };
  return {
    async query<R = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<R>> {
      open();
      try {
        return (await raw.query(sql, params === undefined ? [] : [...params])) as QueryResult<R>;
      } catch (e) {
        throw mapDbError(e);
      }
    },
    async commitWith<R = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<R>> {
      open();
      ended = true;
      try {
        return (await raw.commitWith(
          sql,
          params === undefined ? [] : [...params],
        )) as QueryResult<R>;
      } catch (e) {
        throw mapDbError(e);
      }
    },
    async exec(sql: string): Promise<void> {
      open();
      try {
        await raw.exec(sql);
      } catch (e) {
        throw mapDbError(e);
      }
    },
  };
}
