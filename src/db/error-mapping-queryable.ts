/**
 * db/error-mapping-queryable — the ScriptQueryable both drivers hand to a transaction
 * callback: each statement runs on the driver's own connection and every driver error
 * leaves as an IrrevonError through the one SQLSTATE map. Imports: core, db.
 */
import type { QueryResult, ScriptQueryable } from "./db.js";
import { mapDbError } from "./sqlstate.js";

/** Wraps a driver's raw `query`/`exec` so errors are mapped once, here. */
export function errorMappingQueryable(
  query: (sql: string, params: unknown[]) => Promise<QueryResult<unknown>>,
  exec: (sql: string) => Promise<unknown>,
): ScriptQueryable {
  return {
    async query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      try {
        return (await query(sql, params === undefined ? [] : [...params])) as QueryResult<R>;
      } catch (e) {
        throw mapDbError(e);
      }
    },
    async exec(sql: string): Promise<void> {
      try {
        await exec(sql);
      } catch (e) {
        throw mapDbError(e);
      }
    },
  };
}
