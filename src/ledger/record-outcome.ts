/**
 * ledger/record-outcome — T-OUTCOME (§3.8): the receipt of one attempt and the lifecycle
 * transition it causes, in one transaction. OK ⇒ SETTLED_COMMITTED, FAILED ⇒ SETTLED_FAILED,
 * TIMEOUT/LOST ⇒ AMBIGUOUS. If the attempt already has a receipt or the execution already
 * moved on (a settle race, or recovery closed it first), the response is kept in
 * late_responses instead, flagged when it contradicts the settlement. A receipt written
 * under a lease that is no longer live is refused by the fence (it too becomes a late
 * response) and the attempt stays open for recovery.
 *
 * The dispatcher's hot path is `recordReceiptOnce`: one call of `ledger_record_receipt`
 * (sql/migrations/0050) that checks those conditions first and RETURNS the late response
 * instead of raising, so no savepoint is needed; it also says whether a finding waits on this
 * commit to close its resolution. A race that still trips a constraint there (a concurrent
 * receipt, a transition, the lease running out in between) falls back to `recordOutcome`.
 * Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import type {
  Cause,
  FailureKind,
  LifecycleState,
  ReceiptRecorder,
  TransportOutcome,
} from "../core/state-tables.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Db, Queryable } from "../db/db.js";
import { findExecution } from "./read-records.js";
import { jsonParam, LEASE_LOST_SQLSTATE, sqlStateOf, toId, withSavepoint } from "./sql-util.js";
import type { WorkerLease } from "./types.js";

/** One attempt's transport outcome, as the dispatcher or recovery saw it. */
export interface OutcomeInput {
  readonly attemptId: number;
  readonly executionId: number;
  readonly transportOutcome: TransportOutcome;
  readonly failureKind?: FailureKind;
  readonly destinationRef?: string;
  readonly responseDigest?: string;
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly recordedBy: ReceiptRecorder;
  readonly lease: WorkerLease;
}

/** The receipt was recorded, or the response was kept as a late response. */
export type OutcomeResult =
  | { readonly status: "recorded"; readonly receiptId: number; readonly lifecycle: LifecycleState }
  | {
      readonly status: "late";
      readonly lateId: number;
      readonly contradictsSettle: boolean;
      readonly frontier: LifecycleState | null;
      /** Why it was not a receipt: already_received, stale_state, or fenced. */
      readonly reason: "already_received" | "stale_state" | "fenced";
    };

const SETTLE: Record<TransportOutcome, { readonly to: LifecycleState; readonly cause: Cause }> = {
  OK: { to: "SETTLED_COMMITTED", cause: "receipt_ok" },
  FAILED: { to: "SETTLED_FAILED", cause: "receipt_failed" },
  TIMEOUT: { to: "AMBIGUOUS", cause: "receipt_timeout" },
  LOST: { to: "AMBIGUOUS", cause: "receipt_lost" },
};

/** Inserts the receipt row (no transition). Shared with replay probes. */
export async function insertReceipt(tx: Queryable, input: OutcomeInput): Promise<number> {
  const evidence = { ...input.evidence, evidence_digest: canonicalDigest(input.evidence) };
  const { rows } = await tx.query<{ receipt_id: unknown }>(
    `INSERT INTO dispatch_receipts (attempt_id, transport_outcome, failure_kind, destination_ref, response_digest,
                                    evidence, recorded_by, recorded_by_worker, fencing_token)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) RETURNING receipt_id`,
    [
      input.attemptId,
      input.transportOutcome,
      input.transportOutcome === "FAILED" ? (input.failureKind ?? null) : null,
      input.destinationRef ?? null,
      input.responseDigest ?? null,
      jsonParam(evidence),
      input.recordedBy,
      input.lease.workerId,
      input.lease.fencingToken,
    ],
  );
  return toId(rows[0]?.receipt_id);
}

/** Records a response that could not become the attempt's receipt. */
export async function insertLateResponse(
  tx: Queryable,
  input: OutcomeInput,
  frontier: LifecycleState | null,
  extraEvidence: Readonly<Record<string, unknown>>,
): Promise<{ lateId: number; contradictsSettle: boolean }> {
  const contradictsSettle =
    (frontier === "SETTLED_FAILED" && input.transportOutcome === "OK") ||
    (frontier === "SETTLED_COMMITTED" && input.transportOutcome === "FAILED");
  const { rows } = await tx.query<{ late_id: unknown }>(
    `INSERT INTO late_responses (attempt_id, transport_outcome, destination_ref, response_digest, evidence, contradicts_settle)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6) RETURNING late_id`,
    [
      input.attemptId,
      input.transportOutcome,
      input.destinationRef ?? null,
      input.responseDigest ?? null,
      jsonParam({
        ...input.evidence,
        ...extraEvidence,
        recorded_by: input.recordedBy,
        frontier_at_arrival: frontier,
      }),
      contradictsSettle,
    ],
  );
  return { lateId: toId(rows[0]?.late_id), contradictsSettle };
}

function lateReason(
  sqlstate: string | undefined,
): "already_received" | "stale_state" | "fenced" | null {
  if (sqlstate === "23505") return "already_received";
  if (sqlstate === "DT001" || sqlstate === "DT002") return "stale_state";
  if (sqlstate === LEASE_LOST_SQLSTATE) return "fenced";
  return null;
}

/** Records the outcome of a primary (or recovery) attempt. See the file header. */
export async function recordOutcome(db: Db, input: OutcomeInput): Promise<OutcomeResult> {
  const settle = SETTLE[input.transportOutcome];
  const actor = input.recordedBy === "recovery" ? "recovery" : "dispatcher";
  return db.transaction(async (tx) => {
    const attempt = await withSavepoint(tx, async () => {
      const receiptId = await insertReceipt(tx, input);
      await tx.query("SELECT ledger_transition($1, 'DISPATCHED', $2, $3, $4, $5::jsonb)", [
        input.executionId,
        settle.to,
        settle.cause,
        actor,
        jsonParam({ receipt_id: receiptId }),
      ]);
      return receiptId;
    });
    if (attempt.ok) return { status: "recorded", receiptId: attempt.value, lifecycle: settle.to };
    const reason = lateReason(sqlStateOf(attempt.error));
    if (reason === null) throw attempt.error;
    const frontier = (await findExecution(tx, input.executionId))?.frontier ?? null;
    const late = await insertLateResponse(tx, input, frontier, { late_reason: reason });
    return {
      status: "late",
      lateId: late.lateId,
      contradictsSettle: late.contradictsSettle,
      frontier,
      reason,
    };
  });
}

/**
 * Records what an adapter answered after the engine had given up waiting (the receipt says
 * `call_unsettled`). Never a receipt — the attempt already has one — but always kept: a late OK
 * is the destination saying the effect exists, flagged when it contradicts the settlement so
 * the audit picks it up.
 */
export async function recordLateResult(
  db: Db,
  input: OutcomeInput,
): Promise<{ lateId: number; contradictsSettle: boolean }> {
  return db.transaction(async (tx) => {
    const frontier = (await findExecution(tx, input.executionId))?.frontier ?? null;
    return insertLateResponse(tx, input, frontier, { late_reason: "settled_after_deadline" });
  });
}

/** What {@link recordReceiptOnce} reports: the outcome, and whether resolutions wait on it. */
export type ReceiptResult = OutcomeResult & {
  /** A REDISPATCHED or COMPENSATED finding waits on this commit to close (see the header). */
  readonly closesResolutions: boolean;
};

const RACE_SQLSTATES = new Set(["23505", "DT001", "DT002", LEASE_LOST_SQLSTATE]);

/** Records a dispatcher's receipt in one call (see the file header). */
export async function recordReceiptOnce(db: Db, input: OutcomeInput): Promise<ReceiptResult> {
  const settle = SETTLE[input.transportOutcome];
  const actor = input.recordedBy === "recovery" ? "recovery" : "dispatcher";
  let row:
    | {
        status: "recorded" | "late";
        receipt_id?: unknown;
        lifecycle?: LifecycleState;
        closes?: boolean;
        late_id?: unknown;
        contradicts_settle?: boolean;
        frontier?: LifecycleState | null;
        reason?: "already_received" | "stale_state" | "fenced";
      }
    | undefined;
  try {
    const { rows } = await db.query<{ r: NonNullable<typeof row> }>(
      `SELECT ledger_record_receipt($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13, $14) AS r`,
      [
        input.attemptId,
        input.executionId,
        input.transportOutcome,
        input.transportOutcome === "FAILED" ? (input.failureKind ?? null) : null,
        input.destinationRef ?? null,
        input.responseDigest ?? null,
        jsonParam(input.evidence),
        canonicalDigest(input.evidence),
        input.recordedBy,
        input.lease.workerId,
        input.lease.fencingToken,
        settle.to,
        settle.cause,
        actor,
      ],
    );
    row = rows[0]?.r;
  } catch (e) {
    const state = sqlStateOf(e);
    if (state === undefined || !RACE_SQLSTATES.has(state)) throw e;
    const outcome = await recordOutcome(db, input);
    return {
      ...outcome,
      closesResolutions: outcome.status === "recorded" && outcome.lifecycle === "SETTLED_COMMITTED",
    };
  }
  if (row?.status === "recorded")
    return {
      status: "recorded",
      receiptId: toId(row.receipt_id),
      lifecycle: settle.to,
      closesResolutions: row.closes === true,
    };
  if (row?.status === "late")
    return {
      status: "late",
      lateId: toId(row.late_id),
      contradictsSettle: row.contradicts_settle === true,
      frontier: row.frontier ?? null,
      reason: row.reason ?? "stale_state",
      closesResolutions: false,
    };
  throw new IrrevonError(ErrorCode.internal, "ledger_record_receipt returned no known status", {
    details: { attempt_id: input.attemptId },
  });
}
