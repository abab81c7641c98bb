/**
 * ledger/sql-util — small helpers every ledger operation shares: SQLSTATE extraction from
 * mapped errors, id normalisation across drivers, timestamp rendering, savepoints.
 * Imports: core, db.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Queryable } from "../db/db.js";

/** The SQLSTATE behind an error (mapped IrrevonError or raw driver error), if any. */
export function sqlStateOf(e: unknown): string | undefined {
  if (e instanceof IrrevonError) {
    const s = e.details["sqlstate"];
    return typeof s === "string" ? s : undefined;
  }
  if (typeof e === "object" && e !== null) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/** The SQLSTATE our fence trigger and lease functions raise (sql/migrations/0020). */
export const LEASE_LOST_SQLSTATE = "DT006";

/**
 * Re-labels a fenced write (DT006) as `lease_lost`; everything else passes through. The
 * fence is checked in SQL, so no process can write under a lease it no longer holds.
 */
export function relabelLeaseLost(e: unknown): unknown {
  if (sqlStateOf(e) !== LEASE_LOST_SQLSTATE) return e;
  return new IrrevonError(
    ErrorCode.lease_lost,
    "this worker's lease is no longer live; the write was fenced",
    {
      retryable: true,
      details: { sqlstate: LEASE_LOST_SQLSTATE },
      cause: e,
    },
  );
}

/**
 * Ids are `bigint` in SQL; drivers hand them back as number, string or bigint. Evidence
 * cites them as JSON numbers (the reference's `{"probe_ids":[1]}`), so normalise here.
 */
export function toId(value: unknown): number {
  const n =
    typeof value === "bigint" ? Number(value) : typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) {
    throw new IrrevonError(ErrorCode.internal, "ledger id is not a safe integer", {
      details: { value: String(value) },
    });
  }
  return n;
}

/** Like {@link toId} but keeps SQL NULL. */
export function toIdOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : toId(value);
}

/**
 * SQL rendering of a timestamptz as ISO 8601 UTC with microseconds. Timestamps are read as
 * text so both drivers agree and no precision is lost to JavaScript's milliseconds.
 */
export function isoSql(expression: string): string {
  return `to_char((${expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * The database clock now (`clock_timestamp()`: the real time of the call, not the start of an
 * enclosing transaction), as epoch milliseconds. The one time base every process shares.
 */
export async function databaseNowMs(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ now: string }>(`SELECT ${isoSql("clock_timestamp()")} AS now`);
  const ms = Date.parse(rows[0]?.now ?? "");
  if (!Number.isFinite(ms))
    throw new IrrevonError(ErrorCode.internal, "the database returned no usable time", {
      details: { now: rows[0]?.now ?? null },
    });
  return ms;
}

/** JSON text for a `$n::jsonb` parameter. */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value);
}

let savepointCounter = 0;

/**
 * Runs `fn` under a savepoint: on error the savepoint is rolled back (the transaction
 * survives) and the error is returned for the caller to branch on.
 */
export async function withSavepoint<T>(
  tx: Queryable,
  fn: () => Promise<T>,
): Promise<
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }
> {
  savepointCounter += 1;
  const name = `irrevon_sp_${savepointCounter}`;
  await tx.query(`SAVEPOINT ${name}`);
  try {
    const value = await fn();
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return { ok: true, value };
  } catch (error) {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    return { ok: false, error };
  }
}
