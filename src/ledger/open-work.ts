/**
 * ledger/open-work — what recovery and the worker scan: open executions (DISPATCHED or
 * AMBIGUOUS), open attempts with their owners' lease state, and the recovery-run fact.
 * Imports: core, db, ledger.
 */
import type { Db, Queryable } from "../db/db.js";
import { isoSql, toId, toIdOrNull } from "./sql-util.js";
import type { ExecutionFrontier } from "./types.js";
import type { ExecutionOpener, LifecycleState } from "../core/state-tables.js";

/**
 * Executions whose outcome is not settled, oldest first: up to `limit` with an id above
 * `afterExecutionId` (keyset paging: pass the last id of one page to read the next).
 */
export async function listOpenExecutions(
  q: Queryable,
  limit = 10_000,
  afterExecutionId = 0,
): Promise<ExecutionFrontier[]> {
  const { rows } = await q.query<{
    execution_id: unknown;
    effect_id: string;
    step: number;
    operation_id: string;
    opened_by: ExecutionOpener;
    frontier: LifecycleState;
  }>(
    `SELECT o.execution_id, x.effect_id, x.step, x.operation_id, x.opened_by, o.frontier
       FROM open_executions o JOIN effect_executions x ON x.execution_id = o.execution_id
      WHERE o.execution_id > $2
      ORDER BY o.execution_id LIMIT $1`,
    [limit, afterExecutionId],
  );
  return rows.map((r) => ({
    executionId: toId(r.execution_id),
    effectId: r.effect_id,
    step: Number(r.step),
    operationId: r.operation_id,
    openedBy: r.opened_by,
    frontier: r.frontier,
  }));
}

/** An open attempt and whether the lease it was claimed under is still live. */
export interface OpenAttempt {
  readonly attemptId: number;
  readonly executionId: number;
  readonly effectId: string;
  readonly kind: string;
  readonly claimedAt: string;
  readonly ownerWorkerId: string | null;
  readonly fencingToken: number | null;
  /** False for unowned attempts (written outside the engine). */
  readonly isOwnerLive: boolean;
}

/**
 * Open attempts, optionally of one execution, oldest first, read from the derived index
 * open_attempt_slots (0058): the cost follows the open attempts, not the ledger. `page` reads at most `limit`
 * attempts with an id above `afterAttemptId` (keyset paging); without it, all of them.
 */
export async function listOpenAttempts(
  q: Queryable,
  executionId?: number,
  page?: { readonly afterAttemptId: number; readonly limit: number },
): Promise<OpenAttempt[]> {
  const { rows } = await q.query<OpenAttemptSqlRow>(
    `SELECT a.attempt_id, a.execution_id, o.effect_id, a.kind, ${isoSql("a.claimed_at")} AS claimed_at,
            a.owner_worker_id, a.fencing_token,
            (a.owner_worker_id IS NOT NULL AND irrevon_lease_live(a.owner_worker_id, a.fencing_token)) AS is_owner_live
       FROM open_attempt_slots o JOIN dispatch_attempts a ON a.attempt_id = o.attempt_id
      WHERE ($1::bigint IS NULL OR a.execution_id = $1) AND o.attempt_id > $2
        AND NOT EXISTS (SELECT 1 FROM dispatch_receipts d WHERE d.attempt_id = o.attempt_id)
      ORDER BY o.attempt_id LIMIT $3`,
    [executionId ?? null, page?.afterAttemptId ?? 0, page?.limit ?? null],
  );
  return rows.map(toOpenAttempt);
}

/** An open attempt as read (column names of listOpenAttempts and irrevon_reconcile_inputs). */
export interface OpenAttemptSqlRow {
  readonly attempt_id: unknown;
  readonly execution_id: unknown;
  readonly effect_id: string;
  readonly kind: string;
  readonly claimed_at: string;
  readonly owner_worker_id: string | null;
  readonly fencing_token: unknown;
  readonly is_owner_live: boolean;
}

/** Maps one open-attempt row. */
export function toOpenAttempt(r: OpenAttemptSqlRow): OpenAttempt {
  return {
    attemptId: toId(r.attempt_id),
    executionId: toId(r.execution_id),
    effectId: r.effect_id,
    kind: r.kind,
    claimedAt: r.claimed_at,
    ownerWorkerId: r.owner_worker_id,
    fencingToken: toIdOrNull(r.fencing_token),
    isOwnerLive: r.is_owner_live,
  };
}

/** The recovery-run counters (recovery_runs). */
export interface RecoveryCounts {
  readonly scanned: number;
  readonly adjudicated: number;
  readonly parked: number;
  readonly queuedRedispatches: number;
}

/** Appends one recovery run. */
export async function recordRecoveryRun(db: Db, counts: RecoveryCounts): Promise<number> {
  const { rows } = await db.query<{ run_id: unknown }>(
    "INSERT INTO recovery_runs (scanned, adjudicated, parked, queued_redispatches) VALUES ($1, $2, $3, $4) RETURNING run_id",
    [counts.scanned, counts.adjudicated, counts.parked, counts.queuedRedispatches],
  );
  return toId(rows[0]?.run_id);
}

/**
 * Effects owed an audit: a late response contradicted their settlement (§6) and no audit
 * probe has been recorded since it arrived.
 */
export async function listAuditDue(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ effect_id: string }>(
    `SELECT DISTINCT x.effect_id FROM late_responses l
       JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
       JOIN effect_executions x ON x.execution_id = a.execution_id
      WHERE l.contradicts_settle
        AND NOT EXISTS (
          SELECT 1 FROM status_probes p JOIN effect_executions x2 ON x2.execution_id = p.execution_id
           WHERE x2.effect_id = x.effect_id AND p.probe_kind = 'audit' AND p.recorded_at >= l.recorded_at)
      ORDER BY x.effect_id`,
  );
  return rows.map((r) => r.effect_id);
}

/** OPEN LOST findings of records whose effect type is one of `effectTypes`. */
export async function listOpenLostFindings(
  q: Queryable,
  effectTypes: readonly string[],
): Promise<number[]> {
  if (effectTypes.length === 0) return [];
  const { rows } = await q.query<{ finding_id: unknown }>(
    `SELECT f.finding_id FROM open_findings o
       JOIN findings f ON f.finding_id = o.finding_id
       JOIN effect_records r ON r.effect_id = f.effect_id
      WHERE o.status = 'OPEN' AND f.classification = 'LOST' AND r.effect_type = ANY($1::text[])
      ORDER BY f.finding_id`,
    [effectTypes],
  );
  return rows.map((r) => toId(r.finding_id));
}
