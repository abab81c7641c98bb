/**
 * ledger/claim-dispatch — T-CLAIM (§4): one transaction that decides whether a wire call may
 * happen and, if so, claims it. Slot row (insert-if-absent, lock) → record lock → frontier
 * rules (CANCELLED ⇒ illegal_state; DISPATCHED/AMBIGUOUS ⇒ pending_reconciliation, no gate
 * row) → open attempt in the slot ⇒ scope_busy (no gate row) → the four gate checks,
 * persisted ALLOW or DENY → on ALLOW the attempt (key = operation_id, lease-stamped) and
 * PERSISTED→DISPATCHED. The caller commits before any I/O (I2, I3).
 * Lock order everywhere: scope_slots → effect_records → findings. Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { AttemptKind, GateCheck, GateVariant, LifecycleState } from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import type { GateCheckResult } from "./gate-evaluate.js";
import { evaluateGate } from "./gate-evaluate.js";
import { readGateInputs } from "./gate-inputs.js";
import { latestReceipt, listExecutions, requireRecord } from "./read-records.js";
import { jsonParam, relabelLeaseLost, toId } from "./sql-util.js";
import type { ReceiptRow, StoredRecord, WorkerLease } from "./types.js";

/** What T-CLAIM is asked to claim, and under which lease. */
export interface ClaimRequest {
  readonly effectId: string;
  /** Default: from how the latest execution was opened (register ⇒ dispatch, …). */
  readonly variant?: GateVariant;
  /** The lease the attempt is claimed under (stamped on the attempt, checked by the fence). */
  readonly lease: WorkerLease;
  /** recovery_redispatch only. */
  readonly waiveExecutionId?: number;
}

/** The claim won: the wire call may happen now, exactly once. */
export interface ClaimedDispatch {
  readonly status: "claimed";
  readonly record: StoredRecord;
  readonly executionId: number;
  readonly operationId: string;
  readonly decisionId: number;
  readonly attemptId: number;
  readonly attemptNo: number;
  readonly requestDigest: string;
  readonly checks: readonly GateCheckResult[];
}

/** The gate denied; the decision row names the check and the cause. */
export interface DeniedDispatch {
  readonly status: "denied";
  readonly check: GateCheck;
  readonly cause: string;
  readonly decisionId: number;
  readonly executionId: number;
  readonly checks: readonly GateCheckResult[];
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** An earlier attempt is in flight or unresolved; reconcile, never re-send. */
export interface PendingDispatch {
  readonly status: "pending_reconciliation";
  readonly frontier: Extract<LifecycleState, "DISPATCHED" | "AMBIGUOUS">;
  readonly executionId: number;
  readonly operationId: string;
  readonly lastReceipt: ReceiptRow | null;
}

/** Another attempt in the same (scope, effect_type) slot is open. Retry later. */
export interface ScopeBusy {
  readonly status: "scope_busy";
  readonly attemptId: number;
  readonly blockingEffectId: string;
}

/** Every outcome of T-CLAIM that is not an error. */
export type ClaimResult = ClaimedDispatch | DeniedDispatch | PendingDispatch | ScopeBusy;

const VARIANT_BY_OPENER: Record<string, GateVariant> = {
  register: "dispatch",
  retry_after_failure: "retry_after_failure",
  resolve_redispatch: "resolve_redispatch",
};

function attemptKindFor(variant: GateVariant): AttemptKind {
  return variant === "recovery_redispatch" ? "recovery_redispatch" : "primary";
}

async function lockSlotAndRecord(tx: Queryable, record: StoredRecord): Promise<void> {
  await tx.query(
    "INSERT INTO scope_slots (scope, effect_type) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    [record.scope, record.effectType],
  );
  await tx.query("SELECT 1 FROM scope_slots WHERE scope = $1 AND effect_type = $2 FOR UPDATE", [
    record.scope,
    record.effectType,
  ]);
  await tx.query("SELECT 1 FROM effect_records WHERE effect_id = $1 FOR UPDATE", [record.effectId]);
}

async function claimInTransaction(tx: Queryable, request: ClaimRequest): Promise<ClaimResult> {
  const record = await requireRecord(tx, request.effectId);
  await lockSlotAndRecord(tx, record);

  const executions = await listExecutions(tx, record.effectId);
  const latest = executions[executions.length - 1];
  if (latest === undefined) {
    throw new IrrevonError(ErrorCode.illegal_state, "effect record has no execution", {
      details: { effect_id: record.effectId },
    });
  }
  if (latest.frontier === "CANCELLED") {
    throw new IrrevonError(ErrorCode.illegal_state, "the effect's execution is CANCELLED", {
      details: {
        effect_id: record.effectId,
        execution_id: latest.executionId,
        frontier: latest.frontier,
      },
    });
  }
  if (latest.frontier === "DISPATCHED" || latest.frontier === "AMBIGUOUS") {
    return {
      status: "pending_reconciliation",
      frontier: latest.frontier,
      executionId: latest.executionId,
      operationId: latest.operationId,
      lastReceipt: await latestReceipt(tx, latest.executionId),
    };
  }
  if (latest.frontier === "INTENDED") {
    throw new IrrevonError(ErrorCode.illegal_state, "the effect's execution is not PERSISTED", {
      details: {
        effect_id: record.effectId,
        execution_id: latest.executionId,
        frontier: latest.frontier,
      },
    });
  }

  // Slot-busy precedes the gate: an open attempt means some wire call's outcome is unknown.
  const open = await tx.query<{ attempt_id: unknown; effect_id: string }>(
    "SELECT attempt_id, effect_id FROM open_attempts WHERE scope = $1 AND effect_type = $2 ORDER BY attempt_id LIMIT 1",
    [record.scope, record.effectType],
  );
  const busy = open.rows[0];
  if (busy !== undefined)
    return {
      status: "scope_busy",
      attemptId: toId(busy.attempt_id),
      blockingEffectId: busy.effect_id,
    };

  const variant = request.variant ?? VARIANT_BY_OPENER[latest.openedBy] ?? "dispatch";
  const inputs = await readGateInputs(tx, record, executions, variant, request.waiveExecutionId);
  const decision = evaluateGate(inputs);
  const inserted = await tx.query<{ decision_id: unknown }>(
    `INSERT INTO gate_decisions (effect_id, execution_id, variant, outcome, deny_check, checks, evidence)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb) RETURNING decision_id`,
    [
      record.effectId,
      latest.executionId,
      variant,
      decision.outcome,
      decision.denyCheck,
      jsonParam(decision.checks),
      jsonParam(decision.evidence),
    ],
  );
  const decisionId = toId(inserted.rows[0]?.decision_id);

  if (decision.outcome === "DENY" || decision.denyCheck !== null) {
    return {
      status: "denied",
      check: decision.denyCheck ?? "dedup",
      cause: decision.cause ?? "denied",
      decisionId,
      executionId: latest.executionId,
      checks: decision.checks,
      evidence: decision.evidence,
    };
  }
  if (latest.frontier !== "PERSISTED") {
    // The gate only allows when no execution blocks and the latest is not SETTLED_FAILED.
    throw new IrrevonError(ErrorCode.internal, "gate allowed an execution that is not PERSISTED", {
      details: { execution_id: latest.executionId, frontier: latest.frontier },
    });
  }

  const requestDigest = canonicalDigest({
    effect_type: record.effectType,
    payload_digest: record.parametersDigest,
  });
  const attempt = await tx.query<{ attempt_id: unknown; attempt_no: number }>(
    `INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest,
                                    idempotency_key, request_digest, gate_decision_id, owner_worker_id, fencing_token)
     SELECT $1, $2, COALESCE(MAX(attempt_no), 0) + 1, $3, $4, $5, $2, $6, $7, $8, $9
       FROM dispatch_attempts WHERE execution_id = $1
     RETURNING attempt_id, attempt_no`,
    [
      latest.executionId,
      latest.operationId,
      attemptKindFor(variant),
      record.adapterId,
      record.declarationDigest,
      requestDigest,
      decisionId,
      request.lease.workerId,
      request.lease.fencingToken,
    ],
  );
  const attemptId = toId(attempt.rows[0]?.attempt_id);
  await tx.query(
    "SELECT ledger_transition($1, 'PERSISTED', 'DISPATCHED', 'gate_allow', 'gate', $2::jsonb)",
    [latest.executionId, jsonParam({ decision_id: decisionId, attempt_id: attemptId })],
  );
  return {
    status: "claimed",
    record,
    executionId: latest.executionId,
    operationId: latest.operationId,
    decisionId,
    attemptId,
    attemptNo: Number(attempt.rows[0]?.attempt_no),
    requestDigest,
    checks: decision.checks,
  };
}

/**
 * Runs T-CLAIM and commits. Throws `not_found` (no record), `illegal_state` (CANCELLED or
 * no PERSISTED execution), `lease_lost` (the fence refused the attempt). Everything else is
 * a value: claimed, denied, pending_reconciliation or scope_busy.
 */
export async function claimDispatch(db: Db, request: ClaimRequest): Promise<ClaimResult> {
  try {
    return await db.transaction((tx) => claimInTransaction(tx, request));
  } catch (e) {
    throw relabelLeaseLost(e);
  }
}
