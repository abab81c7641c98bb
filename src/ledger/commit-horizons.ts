/**
 * ledger/commit-horizons — what the absence rule needs to know about every attempt of one
 * execution: when it was claimed, its receipt's recorded instant, the horizon the dispatcher
 * stamped in the receipt evidence (`commit_horizon_at`, the latest instant the destination
 * could still commit that call), whether the call was still unsettled when the receipt was
 * written (`call_unsettled`), who wrote the receipt and that writer's newest lease row (for the
 * lease check), and the newest late response. Read for many effects at once by
 * `irrevon_reconcile_inputs` (sql/migrations/0052, ledger/reconcile-inputs); the rule itself
 * lives in engine/reconcile-absence. Imports: core, db, ledger.
 */
import { toId, toIdOrNull } from "./sql-util.js";
import type { LeaseRow } from "./worker-leases.js";

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
  /** The receipt writer's newest lease row, read with the rest (null: no writer or no lease). */
  readonly receiptLease: LeaseRow | null;
  readonly lastLateAt: string | null;
}

/** One attempt's horizon facts as `irrevon_reconcile_inputs` returns them. */
export interface AttemptHorizonSqlRow {
  readonly attempt_id: unknown;
  readonly operation_id: string;
  readonly claimed_at: string;
  readonly receipt_recorded_at: string | null;
  readonly commit_horizon_at: string | null;
  readonly deadline_ms: unknown;
  readonly call_unsettled: boolean | null;
  readonly recorded_by_worker: string | null;
  readonly fencing_token: unknown;
  readonly receipt_lease: LeaseRow | null;
  readonly last_late_at: string | null;
}

/** Maps one attempt's horizon facts. */
export function toAttemptHorizon(r: AttemptHorizonSqlRow): AttemptHorizon {
  return {
    attemptId: toId(r.attempt_id),
    operationId: r.operation_id,
    claimedAt: r.claimed_at,
    receiptRecordedAt: r.receipt_recorded_at,
    commitHorizonAt: r.commit_horizon_at,
    deadlineMs:
      r.deadline_ms === null || r.deadline_ms === undefined ? null : Number(r.deadline_ms),
    callUnsettled: r.call_unsettled === true,
    receiptWorkerId: r.recorded_by_worker,
    receiptFencingToken: toIdOrNull(r.fencing_token),
    receiptLease: r.receipt_lease ?? null,
    lastLateAt: r.last_late_at,
  };
}
