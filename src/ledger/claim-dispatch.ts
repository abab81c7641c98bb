/**
 * ledger/claim-dispatch — T-CLAIM (§4): decides whether a wire call may happen and, if so,
 * claims it, in two statements (docs/decisions/0007-claim-design.md):
 *   1. `irrevon_claim_inputs` reads everything at once (gate-inputs), with a version;
 *   2. the engine runs the frontier rules (DISPATCHED/AMBIGUOUS ⇒ pending_reconciliation, no
 *      gate row; INTENDED ⇒ illegal_state) and the four gate checks (gate-decide → the ONE
 *      home of the gate's logic, gate-evaluate), then `ledger_claim` — one locked call —
 *      takes the slot (when the slot is used) and record locks, re-reads the inputs and
 *      refuses a decision made on another version ('stale': read and decide again), answers
 *      scope_busy for an open attempt in the slot (no gate row), records the decision, and on
 *      ALLOW writes the attempt (key = operation_id, lease-stamped, citing the decision) and
 *      PERSISTED→DISPATCHED. It commits before any I/O (or with the registration, fused).
 * The same claim serves the first send, a retry and every re-dispatch; the C1 replay probe
 * has its own claim (claim-replay-probe) through the same gate (decideGate).
 * Lock order everywhere: scope_slots → effect_records → findings. Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { AttemptKind, GateCheck, GateVariant, LifecycleState } from "../core/state-tables.js";
import type { Db, Queryable, TransactionQueryable } from "../db/db.js";
import { allowedByLockedClaim } from "./claim-attempt.js";
import type { GateCheckResult } from "./gate-evaluate.js";
import { decideOnInputs, type GateAllowedClaim } from "./gate-decide.js";
import { readClaimInputs, type ClaimInputs } from "./gate-inputs.js";
import { latestReceipt } from "./read-records.js";
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
  /** Automatic work: a deny identical to the last recorded one writes no new row (gate-decide). */
  readonly suppressRepeatedDeny?: boolean;
  /**
   * Whether the (scope, effect_type) slot serializes this claim (default true). The engine
   * leaves it out for destinations with exact attribution (docs/decisions/0008-scope-slot.md).
   */
  readonly useSlot?: boolean;
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

/** The inputs changed between the read and the locked claim: read and decide again. */
export interface StaleClaim {
  readonly status: "stale";
}

const VARIANT_BY_OPENER: Record<string, GateVariant> = {
  register: "dispatch",
  retry_after_failure: "retry_after_failure",
  resolve_redispatch: "resolve_redispatch",
};

function attemptKindFor(variant: GateVariant): AttemptKind {
  return variant === "recovery_redispatch" ? "recovery_redispatch" : "primary";
}

interface LockedClaimRow {
  readonly status: "claimed" | "denied" | "scope_busy" | "stale";
  readonly decision_id?: unknown;
  readonly attempt_id?: unknown;
  readonly attempt_no?: unknown;
  readonly execution_id?: unknown;
  readonly operation_id?: string;
  readonly blocking_effect_id?: string;
  readonly repeated?: boolean;
}

/**
 * One try of T-CLAIM on inputs already read (by `readClaimInputs`, or by a fused
 * registration): decides, then makes the one locked call. `q` is the ledger (the call commits
 * on its own) or the open transaction of a fused register-and-claim; with `commits` the locked
 * call is that transaction's last statement and commits with it (`commitWith`: one round trip
 * on a server), whatever it answers.
 */
export async function claimOnInputs(
  q: TransactionQueryable,
  inputs: ClaimInputs,
  request: ClaimRequest,
  commits: true,
): Promise<ClaimResult | StaleClaim>;
export async function claimOnInputs(
  q: Queryable,
  inputs: ClaimInputs,
  request: ClaimRequest,
): Promise<ClaimResult | StaleClaim>;
export async function claimOnInputs(
  q: Queryable | TransactionQueryable,
  inputs: ClaimInputs,
  request: ClaimRequest,
  commits?: true,
): Promise<ClaimResult | StaleClaim> {
  const record = inputs.record;
  const latest = inputs.executions[inputs.executions.length - 1];
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
      lastReceipt: await latestReceipt(q, latest.executionId),
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
  const variant = request.variant ?? VARIANT_BY_OPENER[latest.openedBy] ?? "dispatch";
  const { decision, repeatOf } = decideOnInputs(inputs, variant, {
    ...(request.waiveExecutionId === undefined
      ? {}
      : { waiveExecutionId: request.waiveExecutionId }),
    ...(request.suppressRepeatedDeny === undefined
      ? {}
      : { suppressRepeatedDeny: request.suppressRepeatedDeny }),
  });
  if (decision.outcome === "ALLOW" && latest.frontier !== "PERSISTED") {
    // The gate only allows when no execution blocks and the latest is not SETTLED_FAILED; a
    // CANCELLED execution is only ever on a cancelled branch, which the gate denies.
    throw new IrrevonError(
      latest.frontier === "CANCELLED" ? ErrorCode.illegal_state : ErrorCode.internal,
      "gate allowed an execution that is not PERSISTED",
      { details: { execution_id: latest.executionId, frontier: latest.frontier } },
    );
  }
  const requestDigest = canonicalDigest({
    effect_type: record.effectType,
    payload_digest: inputs.sent.parametersDigest,
  });
  let row: LockedClaimRow | undefined;
  try {
    const sql = "SELECT ledger_claim($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb) AS claim";
    const run =
      commits === true && "commitWith" in q
        ? (params: unknown[]) => q.commitWith<{ claim: LockedClaimRow }>(sql, params)
        : (params: unknown[]) => q.query<{ claim: LockedClaimRow }>(sql, params);
    const { rows } = await run([
      record.effectId,
      inputs.version,
      request.useSlot ?? true,
      variant,
      jsonParam({
        outcome: decision.outcome,
        deny_check: decision.denyCheck,
        checks: decision.checks,
        evidence: decision.evidence,
      }),
      repeatOf,
      jsonParam({
        kind: attemptKindFor(variant),
        request_digest: requestDigest,
        owner_worker_id: request.lease.workerId,
        fencing_token: request.lease.fencingToken,
      }),
    ]);
    row = rows[0]?.claim;
  } catch (e) {
    throw relabelLeaseLost(e);
  }
  switch (row?.status) {
    case "stale":
      return { status: "stale" };
    case "scope_busy":
      return {
        status: "scope_busy",
        attemptId: toId(row.attempt_id),
        blockingEffectId: row.blocking_effect_id ?? "",
      };
    case "denied":
      return {
        status: "denied",
        check: decision.denyCheck ?? "dedup",
        cause: decision.cause ?? "denied",
        decisionId: toId(row.decision_id),
        executionId: latest.executionId,
        checks: decision.checks,
        evidence: decision.evidence,
        repeated: row.repeated === true,
      };
    case "claimed": {
      const allowed = allowedByLockedClaim({
        decisionId: toId(row.decision_id),
        attemptId: toId(row.attempt_id),
        attemptNo: Number(row.attempt_no),
        executionId: latest.executionId,
        operationId: latest.operationId,
      });
      return {
        status: "claimed",
        allowed,
        record,
        parameters: inputs.sent.parameters,
        executionId: latest.executionId,
        operationId: latest.operationId,
        decisionId: allowed.decisionId,
        attemptId: allowed.attemptId,
        attemptNo: allowed.attemptNo,
        requestDigest,
        checks: decision.checks,
      };
    }
    case undefined:
    default:
      // With `commits`, whatever the call wrote is committed already: say so.
      throw new IrrevonError(ErrorCode.internal, "ledger_claim returned no known status", {
        details: {
          effect_id: record.effectId,
          status: String(row?.status),
          committed: commits === true,
        },
      });
  }
}

/** Reads a claim's inputs, or throws `not_found`. */
export async function requireClaimInputs(q: Queryable, effectId: string): Promise<ClaimInputs> {
  const inputs = await readClaimInputs(q, effectId);
  if (inputs === null)
    throw new IrrevonError(ErrorCode.not_found, "no effect record with this id", {
      details: { effect_id: effectId },
    });
  return inputs;
}

/** How often a claim reads and decides again when its inputs changed under it. */
export const CLAIM_STALE_RETRIES = 16;

/** The error when the inputs kept changing through every retry (retryable). */
export function claimContended(effectId: string): IrrevonError {
  return new IrrevonError(
    ErrorCode.storage_error,
    `the claim's inputs changed under it ${CLAIM_STALE_RETRIES} times in a row; retry the dispatch`,
    { retryable: true, details: { effect_id: effectId, limit: CLAIM_STALE_RETRIES } },
  );
}

/** Options of {@link claimDispatch}. */
export interface ClaimOptions {
  /** Inputs the caller already read (one statement saved). */
  readonly first?: ClaimInputs;
  /** Runs on every inputs read before deciding (the dispatcher validates the payload: D6). */
  readonly check?: (inputs: ClaimInputs) => void;
}

/**
 * Runs T-CLAIM (read, decide, one locked call) and commits, reading and deciding again while
 * the locked call finds the inputs changed. Throws `not_found` (no record), `illegal_state`
 * (no PERSISTED execution), `lease_lost` (the fence refused the attempt). Everything else is a
 * value: claimed, denied, pending_reconciliation or scope_busy.
 */
export async function claimDispatch(
  db: Db,
  request: ClaimRequest,
  options: ClaimOptions = {},
): Promise<ClaimResult> {
  let inputs = options.first ?? (await requireClaimInputs(db, request.effectId));
  for (let i = 0; i < CLAIM_STALE_RETRIES; i++) {
    options.check?.(inputs);
    const result = await claimOnInputs(db, inputs, request);
    if (result.status !== "stale") return result;
    inputs = await requireClaimInputs(db, request.effectId);
  }
  throw claimContended(request.effectId);
}
