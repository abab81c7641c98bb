/**
 * ledger/claim-attempt — what every claim of a wire call shares, inside its transaction: the
 * slot and record locks (lock order everywhere: scope_slots → effect_records → findings), the
 * slot-busy read, the parameters an execution sends (the record's, or the recorded variant a
 * corrected retry adopted, inherited by later steps), and the ONLY write of `dispatch_attempts`.
 * An attempt always cites the ALLOW decision the gate just persisted (gate-decide); the
 * database refuses one that does not (0040, tg_dispatch_attempts__gated). Imports: core, db,
 * ledger.
 */
import type { AttemptKind } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import type { GateAllowedClaim } from "./gate-decide.js";
import { toId } from "./sql-util.js";
import type { StoredRecord, WorkerLease } from "./types.js";

/** Takes the slot row (insert-if-absent) and the record row, in the global lock order. */
export async function lockSlotAndRecord(tx: Queryable, record: StoredRecord): Promise<void> {
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

/** The oldest open attempt in the record's slot, if any: its outcome is unknown. */
export async function openAttemptInSlot(
  tx: Queryable,
  record: StoredRecord,
): Promise<{ attemptId: number; blockingEffectId: string } | null> {
  const { rows } = await tx.query<{ attempt_id: unknown; effect_id: string }>(
    "SELECT attempt_id, effect_id FROM irrevon_open_attempt_in_slot($1, $2)",
    [record.scope, record.effectType],
  );
  const busy = rows[0];
  return busy === undefined
    ? null
    : { attemptId: toId(busy.attempt_id), blockingEffectId: busy.effect_id };
}

/** The parameters an execution sends, and their digest. */
export interface ExecutionParameters {
  readonly parameters: Record<string, unknown>;
  readonly parametersDigest: string;
  /** True when a corrected retry adopted a recorded variant (at this step or an earlier one). */
  readonly isAdopted: boolean;
}

/**
 * The parameters of the execution at `step`: the variant adopted by the latest execution at or
 * before it, else the record's own.
 */
export async function readExecutionParameters(
  q: Queryable,
  effectId: string,
  step: number,
): Promise<ExecutionParameters> {
  const adopted = await q.query<{ parameters: Record<string, unknown>; parameters_digest: string }>(
    `SELECT p.parameters, p.parameters_digest
       FROM execution_parameters p JOIN effect_executions x ON x.execution_id = p.execution_id
      WHERE x.effect_id = $1 AND x.step <= $2 ORDER BY x.step DESC LIMIT 1`,
    [effectId, step],
  );
  const a = adopted.rows[0];
  if (a !== undefined)
    return { parameters: a.parameters, parametersDigest: a.parameters_digest, isAdopted: true };
  const own = await q.query<{ parameters: Record<string, unknown>; parameters_digest: string }>(
    "SELECT parameters, parameters_digest FROM effect_records WHERE effect_id = $1",
    [effectId],
  );
  const r = own.rows[0];
  return {
    parameters: r?.parameters ?? {},
    parametersDigest: r?.parameters_digest ?? "",
    isAdopted: false,
  };
}

/** Writes the attempt an ALLOW decision permits; the caller commits before any I/O. */
export async function insertAttempt(
  tx: Queryable,
  input: {
    readonly record: StoredRecord;
    readonly executionId: number;
    readonly operationId: string;
    readonly kind: AttemptKind;
    readonly requestDigest: string;
    readonly decisionId: number;
    readonly lease: WorkerLease;
  },
): Promise<GateAllowedClaim & { readonly attemptNo: number }> {
  const { rows } = await tx.query<{ attempt_id: unknown; attempt_no: number }>(
    `INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest,
                                    idempotency_key, request_digest, gate_decision_id, owner_worker_id, fencing_token)
     SELECT $1, $2, COALESCE(MAX(attempt_no), 0) + 1, $3, $4, $5, $2, $6, $7, $8, $9
       FROM dispatch_attempts WHERE execution_id = $1
     RETURNING attempt_id, attempt_no`,
    [
      input.executionId,
      input.operationId,
      input.kind,
      input.record.adapterId,
      input.record.declarationDigest,
      input.requestDigest,
      input.decisionId,
      input.lease.workerId,
      input.lease.fencingToken,
    ],
  );
  // The brand: only this function hands out a claim a wire call may be made under.
  return {
    decisionId: input.decisionId,
    attemptId: toId(rows[0]?.attempt_id),
    attemptNo: Number(rows[0]?.attempt_no),
    executionId: input.executionId,
    operationId: input.operationId,
  } as GateAllowedClaim & { readonly attemptNo: number };
}

/**
 * The claim `ledger_claim` (sql/migrations/0050) wrote in one locked call: an ALLOW decision
 * and the attempt citing it, committed (or about to commit, in a fused register-and-claim).
 */
export function allowedByLockedClaim(row: {
  readonly decisionId: number;
  readonly attemptId: number;
  readonly attemptNo: number;
  readonly executionId: number;
  readonly operationId: string;
}): GateAllowedClaim & { readonly attemptNo: number } {
  return { ...row } as GateAllowedClaim & { readonly attemptNo: number };
}
