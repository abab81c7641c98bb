/**
 * ledger/claim-dispatch — T-CLAIM (§4): one transaction that decides whether a wire call may
 * happen and, if so, claims it. Slot row (insert-if-absent, lock) → record lock → frontier
 * rules (DISPATCHED/AMBIGUOUS ⇒ pending_reconciliation, no gate row; CANCELLED ⇒ the gate
 * decides and records it, so a record on a cancelled branch is `denied` by branch_lineage,
 * never an exception) → open attempt in the slot ⇒ scope_busy (no gate row) → the four gate
 * checks, persisted ALLOW or DENY (gate-decide) → on ALLOW the attempt (key = operation_id,
 * lease-stamped, citing the decision) and PERSISTED→DISPATCHED. The caller commits before any
 * I/O. The same claim serves the first send, a retry and every re-dispatch; the C1 replay
 * probe has its own claim (claim-replay-probe) through the same gate.
 * Lock order everywhere: scope_slots → effect_records → findings. Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { AttemptKind, GateCheck, GateVariant, LifecycleState } from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import {
  insertAttempt,
  lockSlotAndRecord,
  openAttemptInSlot,
  readExecutionParameters,
} from "./claim-attempt.js";
import type { GateCheckResult } from "./gate-evaluate.js";
import { decideGate, type GateAllowedClaim } from "./gate-decide.js";
import { latestReceipt, listExecutions, requireRecord } from "./read-records.js";
import { jsonParam, relabelLeaseLost } from "./sql-util.js";
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
  /** Automatic work: a deny identical to the last recorded one writes no new row (gate-decide). */
  readonly suppressRepeatedDeny?: boolean;
}

/** The claim won: the wire call may happen now, exactly once. */
export interface ClaimedDispatch {
  readonly status: "claimed";
  /** What the wire call is made under (engine/gated-send accepts nothing else). */
  readonly allowed: GateAllowedClaim;
  readonly record: StoredRecord;
  /** The parameters this execution sends (the record's, or an adopted variant). */
  readonly parameters: Record<string, unknown>;
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
  /** The same deny as the last recorded one: no new decision row was written. */
  readonly repeated: boolean;
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
  // A CANCELLED execution sends nothing whatever the slot holds: the gate decides at once.
  if (latest.frontier !== "CANCELLED") {
    const busy = await openAttemptInSlot(tx, record);
    if (busy !== null) return { status: "scope_busy", ...busy };
  }

  const variant = request.variant ?? VARIANT_BY_OPENER[latest.openedBy] ?? "dispatch";
  const { decision, decisionId, repeated } = await decideGate(tx, {
    record,
    executions,
    execution: latest,
    variant,
    ...(request.waiveExecutionId === undefined
      ? {}
      : { waiveExecutionId: request.waiveExecutionId }),
    ...(request.suppressRepeatedDeny === undefined
      ? {}
      : { suppressRepeatedDeny: request.suppressRepeatedDeny }),
  });

  if (decision.outcome === "DENY" || decision.denyCheck !== null) {
    return {
      status: "denied",
      check: decision.denyCheck ?? "dedup",
      cause: decision.cause ?? "denied",
      decisionId,
      executionId: latest.executionId,
      checks: decision.checks,
      evidence: decision.evidence,
      repeated,
    };
  }
  if (latest.frontier !== "PERSISTED") {
    // The gate only allows when no execution blocks and the latest is not SETTLED_FAILED; a
    // CANCELLED execution is only ever on a cancelled branch, which the gate denies.
    throw new IrrevonError(
      latest.frontier === "CANCELLED" ? ErrorCode.illegal_state : ErrorCode.internal,
      "gate allowed an execution that is not PERSISTED",
      { details: { execution_id: latest.executionId, frontier: latest.frontier } },
    );
  }

  const sent = await readExecutionParameters(tx, record.effectId, latest.step);
  const requestDigest = canonicalDigest({
    effect_type: record.effectType,
    payload_digest: sent.parametersDigest,
  });
  const allowed = await insertAttempt(tx, {
    record,
    executionId: latest.executionId,
    operationId: latest.operationId,
    kind: attemptKindFor(variant),
    requestDigest,
    decisionId,
    lease: request.lease,
  });
  const attemptId = allowed.attemptId;
  await tx.query(
    "SELECT ledger_transition($1, 'PERSISTED', 'DISPATCHED', 'gate_allow', 'gate', $2::jsonb)",
    [latest.executionId, jsonParam({ decision_id: decisionId, attempt_id: attemptId })],
  );
  return {
    status: "claimed",
    allowed,
    record,
    parameters: sent.parameters,
    executionId: latest.executionId,
    operationId: latest.operationId,
    decisionId,
    attemptId,
    attemptNo: allowed.attemptNo,
    requestDigest,
    checks: decision.checks,
  };
}

/**
 * Runs T-CLAIM and commits. Throws `not_found` (no record), `illegal_state` (no PERSISTED
 * execution), `lease_lost` (the fence refused the attempt). Everything else is
 * a value: claimed, denied, pending_reconciliation or scope_busy.
 */
export async function claimDispatch(db: Db, request: ClaimRequest): Promise<ClaimResult> {
  try {
    return await db.transaction((tx) => claimInTransaction(tx, request));
  } catch (e) {
    throw relabelLeaseLost(e);
  }
}
