/**
 * ledger/commit-horizons — what the absence rule needs to know about every attempt of one
 * execution, in one read: when it was claimed, its receipt's recorded instant, the horizon the
 * dispatcher stamped in the receipt evidence (`commit_horizon_at`, the latest instant the
 * destination could still commit that call), whether the call was still unsettled when the
 * receipt was written (`call_unsettled`), who wrote the receipt (for the lease check) and the
 * newest late response. The rule itself lives in engine/reconcile-absence. Imports: core, db,
 * ledger.
 */
import type { Queryable } from "../db/db.js";
import { isoSql, toId, toIdOrNull } from "./sql-util.js";

/** One attempt as the absence rule sees it. */
export interface AttemptHorizon {
  readonly attemptId: number;
  readonly operationId: string;
  readonly claimedAt: string;
  /** Null when the attempt has no receipt yet (still open). */
  readonly receiptRecordedAt: string | null;
  readonly commitHorizonAt: string | null;
  readonly deadlineMs: number | null;
  readonly callUnsettled: boolean;
  readonly receiptWorkerId: string | null;
  readonly receiptFencingToken: number | null;
  readonly lastLateAt: string | null;
}

/** Every attempt of `executionId`, oldest first. */
export async function listAttemptHorizons(
  q: Queryable,
  executionId: number,
): Promise<AttemptHorizon[]> {
  const { rows } = await q.query<{
    attempt_id: unknown;
    operation_id: string;
    claimed_at: string;
    receipt_recorded_at: string | null;
    commit_horizon_at: string | null;
    deadline_ms: unknown;
    call_unsettled: boolean | null;
    recorded_by_worker: string | null;
    fencing_token: unknown;
    last_late_at: string | null;
  }>(
    `SELECT a.attempt_id, a.operation_id, ${isoSql("a.claimed_at")} AS claimed_at,
            CASE WHEN r.receipt_id IS NULL THEN NULL ELSE ${isoSql("r.recorded_at")} END AS receipt_recorded_at,
            r.evidence->>'commit_horizon_at' AS commit_horizon_at,
            CASE WHEN jsonb_typeof(r.evidence->'deadline_ms') = 'number' THEN r.evidence->>'deadline_ms' END AS deadline_ms,
            (r.evidence->'call_unsettled') = 'true'::jsonb AS call_unsettled,
            r.recorded_by_worker, r.fencing_token,
            (SELECT ${isoSql("max(l.recorded_at)")} FROM late_responses l
              WHERE l.attempt_id = a.attempt_id HAVING count(*) > 0) AS last_late_at
       FROM dispatch_attempts a LEFT JOIN dispatch_receipts r ON r.attempt_id = a.attempt_id
      WHERE a.execution_id = $1 ORDER BY a.attempt_no`,
    [executionId],
  );
  return rows.map((r) => ({
    attemptId: toId(r.attempt_id),
    operationId: r.operation_id,
    claimedAt: r.claimed_at,
    receiptRecordedAt: r.receipt_recorded_at,
    commitHorizonAt: r.commit_horizon_at,
    deadlineMs: r.deadline_ms === null || r.deadline_ms === undefined ? null : Number(r.deadline_ms),
    callUnsettled: r.call_unsettled === true,
    receiptWorkerId: r.recorded_by_worker,
    receiptFencingToken: toIdOrNull(r.fencing_token),
    lastLateAt: r.last_late_at,
  }));
}
