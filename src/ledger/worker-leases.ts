/**
 * ledger/worker-leases — worker registrations and renewals through the locked lease
 * functions of sql/migrations/0020 and 0048 (D2). A fencing token comes from a sequence at each
 * registration; renewing a lease that is no longer live fails with lease_lost (the worker
 * must register again, with a new token). Times are the database clock, so every process
 * agrees on expiry. Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Db, Queryable } from "../db/db.js";
import { isoSql, relabelLeaseLost, toId } from "./sql-util.js";
import type { WorkerLease } from "./types.js";

/** A lease as granted: the token and when it runs out (database clock, ISO). */
export interface GrantedLease extends WorkerLease {
  readonly expiresAt: string;
}

/**
 * Registers `workerId` with a new token. Refused with `worker_id_in_use` (retryable) while
 * another lease of the same id is live — one live engine per worker id — unless that live
 * lease is `supersedes`: the caller's own earlier lease, which the new one then fences out.
 */
export async function registerWorker(
  db: Db,
  workerId: string,
  ttlMs: number,
  supersedes: number | null = null,
): Promise<GrantedLease> {
  try {
    const { rows } = await db.query<{ fencing_token: unknown; expires_at: string }>(
      `SELECT fencing_token, ${isoSql("expires_at")} AS expires_at
         FROM ledger_lease_register($1, $2, $3::bigint)`,
      [workerId, Math.ceil(ttlMs), supersedes],
    );
    const row = rows[0];
    return { workerId, fencingToken: toId(row?.fencing_token), expiresAt: row?.expires_at ?? "" };
  } catch (e) {
    if (!(e instanceof IrrevonError) || e.code !== ErrorCode.worker_id_in_use) throw e;
    const { rows } = await db.query<{ expires_at: string }>(
      `SELECT ${isoSql("expires_at")} AS expires_at FROM worker_leases
        WHERE worker_id = $1 ORDER BY lease_seq DESC LIMIT 1`,
      [workerId],
    );
    throw new IrrevonError(
      ErrorCode.worker_id_in_use,
      `worker id ${workerId} is in use by another live engine; give each process its own worker id`,
      {
        retryable: true,
        details: { worker_id: workerId, live_until: rows[0]?.expires_at ?? null },
        cause: e,
      },
    );
  }
}

/** Extends a live lease; throws lease_lost if it is not live any more. */
export async function renewWorker(
  db: Db,
  lease: WorkerLease,
  ttlMs: number,
): Promise<GrantedLease> {
  try {
    const { rows } = await db.query<{ expires_at: string }>(
      `SELECT ${isoSql("ledger_lease_renew($1, $2, $3)")} AS expires_at`,
      [lease.workerId, lease.fencingToken, Math.ceil(ttlMs)],
    );
    return { ...lease, expiresAt: rows[0]?.expires_at ?? "" };
  } catch (e) {
    throw relabelLeaseLost(e);
  }
}

/** Ends a lease now (clean shutdown). */
export async function releaseWorker(db: Db, lease: WorkerLease): Promise<void> {
  await db.query("SELECT ledger_lease_release($1, $2)", [lease.workerId, lease.fencingToken]);
}

/**
 * Releases every lease still live in the ledger; returns how many. Only for a ledger this
 * process owns exclusively (an embedded data directory under its lock): every such lease was
 * then left by a process that is gone, and releasing it lets a restart reuse its worker id at
 * once and lets recovery close its open attempts without waiting for the lease to run out.
 * Their absence still counts only from the end of the lease's cover (`leaseCoverEnd`): a request
 * the gone process had sent may still be committed by the destination until then.
 */
export async function releaseLeasesOfGoneProcesses(db: Db): Promise<number> {
  const { rows } = await db.query<{ worker_id: string }>(
    `SELECT l.worker_id, ledger_lease_release(l.worker_id, l.fencing_token)
       FROM (SELECT DISTINCT ON (worker_id) worker_id, fencing_token, event, expires_at
               FROM worker_leases ORDER BY worker_id, lease_seq DESC) l
      WHERE l.event <> 'release' AND l.expires_at > clock_timestamp()`,
  );
  return rows.length;
}

/**
 * The latest expiry the lease `(workerId, token)` was ever granted (its registration and
 * renewals; a release row only ends it early), when that is still ahead of the database clock:
 * the instant until which its holder may have had a call in flight. Null when the lease has run
 * out by now (or never existed). A claim sends only while its lease covers the call's deadline
 * (the dispatcher's pre-send check), so no call made under the lease outlives this instant.
 */
export async function leaseCoverEnd(
  q: Queryable,
  workerId: string,
  token: number,
): Promise<string | null> {
  const { rows } = await q.query<{ cover_end: string | null }>(
    `SELECT CASE WHEN max(expires_at) > clock_timestamp() THEN ${isoSql("max(expires_at)")} END AS cover_end
       FROM worker_leases WHERE worker_id = $1 AND fencing_token = $2 AND event <> 'release'`,
    [workerId, token],
  );
  return rows[0]?.cover_end ?? null;
}

/** Why an owner's lease is not live, for recovery evidence. */
export interface LeaseVerdict {
  readonly isLive: boolean;
  /** expired | released | superseded | unknown_worker | live */
  readonly state: string;
  readonly expiresAt: string | null;
  readonly latestToken: number | null;
}

/** A worker's newest lease row as the verdict reads it (`is_past`: expired by the database clock). */
export interface LeaseRow {
  readonly fencing_token: unknown;
  readonly event: string;
  readonly expires_at: string;
  readonly is_past: boolean;
}

/** Judges whether `(workerId, token)` still holds a live lease (database clock). */
export async function leaseVerdict(
  q: Queryable,
  workerId: string,
  token: number,
): Promise<LeaseVerdict> {
  const { rows } = await q.query<LeaseRow>(
    `SELECT fencing_token, event, ${isoSql("expires_at")} AS expires_at, expires_at <= clock_timestamp() AS is_past
       FROM worker_leases WHERE worker_id = $1 ORDER BY lease_seq DESC LIMIT 1`,
    [workerId],
  );
  return judgeLease(rows[0], token);
}

/**
 * The verdict on `token` given the worker's newest lease row (undefined: the worker never
 * registered). The one home of the rule; irrevon_reconcile_inputs (0052) reads the same row.
 */
export function judgeLease(row: LeaseRow | null | undefined, token: number): LeaseVerdict {
  if (row === undefined || row === null)
    return { isLive: false, state: "unknown_worker", expiresAt: null, latestToken: null };
  const latestToken = toId(row.fencing_token);
  if (latestToken !== token)
    return { isLive: false, state: "superseded", expiresAt: row.expires_at, latestToken };
  if (row.event === "release")
    return { isLive: false, state: "released", expiresAt: row.expires_at, latestToken };
  if (row.is_past)
    return { isLive: false, state: "expired", expiresAt: row.expires_at, latestToken };
  return { isLive: true, state: "live", expiresAt: row.expires_at, latestToken };
}
