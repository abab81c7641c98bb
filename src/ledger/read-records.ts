/**
 * ledger/read-records — the reads every operation needs: a record, an effect's executions
 * with their frontiers, the latest receipt. Plain SELECTs against the fact tables and the
 * views of 0009; callers pass the transaction they hold so reads see their own locks.
 * Imports: core, db.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type {
  EffectClass,
  ExecutionOpener,
  FailureKind,
  LifecycleState,
  TransportOutcome,
} from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import { isoSql, toId, toIdOrNull } from "./sql-util.js";
import type { ExecutionFrontier, ReceiptRow, StoredRecord } from "./types.js";

/** A record as read (column names of findRecord and irrevon_reconcile_inputs). */
export interface RecordRow {
  effect_id: string;
  effect_type: string;
  effect_class: EffectClass;
  scope: string;
  stable_ids: Record<string, string>;
  adapter_id: string;
  declaration_digest: string;
  parameters_digest: string;
  branch_ref: string | null;
  identity_version: number;
  contract_canonical: string;
  created_at: string;
}

/** Reads a record; null when absent. `forUpdate` takes the record row lock. */
export async function findRecord(
  q: Queryable,
  effectId: string,
  forUpdate = false,
): Promise<StoredRecord | null> {
  const { rows } = await q.query<RecordRow>(
    `SELECT effect_id, effect_type, effect_class, scope, stable_ids, adapter_id, declaration_digest,
            parameters_digest, branch_ref, identity_version, contract_canonical, ${isoSql("created_at")} AS created_at
       FROM effect_records WHERE effect_id = $1${forUpdate ? " FOR UPDATE" : ""}`,
    [effectId],
  );
  const r = rows[0];
  return r === undefined ? null : toStoredRecord(r);
}

/** Maps one record row. */
export function toStoredRecord(r: RecordRow): StoredRecord {
  return {
    effectId: r.effect_id,
    effectType: r.effect_type,
    effectClass: r.effect_class,
    scope: r.scope,
    stableIds: r.stable_ids,
    adapterId: r.adapter_id,
    declarationDigest: r.declaration_digest,
    parametersDigest: r.parameters_digest,
    branchRef: r.branch_ref,
    identityVersion: Number(r.identity_version),
    contractCanonical: r.contract_canonical,
    createdAt: r.created_at,
  };
}

/** Reads a record or throws `not_found`. */
export async function requireRecord(
  q: Queryable,
  effectId: string,
  forUpdate = false,
): Promise<StoredRecord> {
  const record = await findRecord(q, effectId, forUpdate);
  if (record === null) {
    throw new IrrevonError(ErrorCode.not_found, "no effect record with this id", {
      details: { effect_id: effectId },
    });
  }
  return record;
}

/** The stored parameters (the dispatched payload), as plain JSON. */
export async function readParameters(
  q: Queryable,
  effectId: string,
): Promise<Record<string, unknown>> {
  const { rows } = await q.query<{ parameters: Record<string, unknown> }>(
    "SELECT parameters FROM effect_records WHERE effect_id = $1",
    [effectId],
  );
  const row = rows[0];
  if (row === undefined)
    throw new IrrevonError(ErrorCode.not_found, "no effect record with this id", {
      details: { effect_id: effectId },
    });
  return row.parameters;
}

/** An execution with its frontier as read. */
export interface FrontierRow {
  execution_id: unknown;
  effect_id: string;
  step: number;
  operation_id: string;
  opened_by: ExecutionOpener;
  frontier: LifecycleState;
}

/** Maps one execution-frontier row. */
export function toFrontier(r: FrontierRow): ExecutionFrontier {
  return {
    executionId: toId(r.execution_id),
    effectId: r.effect_id,
    step: Number(r.step),
    operationId: r.operation_id,
    openedBy: r.opened_by,
    frontier: r.frontier,
  };
}

/** Every execution of the effect, ascending by step. */
export async function listExecutions(q: Queryable, effectId: string): Promise<ExecutionFrontier[]> {
  const { rows } = await q.query<FrontierRow>(
    `SELECT execution_id, effect_id, step, operation_id, opened_by, frontier
       FROM execution_frontiers WHERE effect_id = $1 ORDER BY step`,
    [effectId],
  );
  return rows.map(toFrontier);
}

/** The execution with the highest step (the record's lifecycle), or null. */
export async function latestExecution(
  q: Queryable,
  effectId: string,
): Promise<ExecutionFrontier | null> {
  const { rows } = await q.query<FrontierRow>(
    `SELECT execution_id, effect_id, step, operation_id, opened_by, frontier
       FROM execution_frontiers WHERE effect_id = $1 ORDER BY step DESC LIMIT 1`,
    [effectId],
  );
  const r = rows[0];
  return r === undefined ? null : toFrontier(r);
}

/** One execution by id, or null. */
export async function findExecution(
  q: Queryable,
  executionId: number,
): Promise<ExecutionFrontier | null> {
  const { rows } = await q.query<FrontierRow>(
    `SELECT execution_id, effect_id, step, operation_id, opened_by, frontier
       FROM execution_frontiers WHERE execution_id = $1`,
    [executionId],
  );
  const r = rows[0];
  return r === undefined ? null : toFrontier(r);
}

interface ReceiptSqlRow {
  receipt_id: unknown;
  attempt_id: unknown;
  execution_id: unknown;
  transport_outcome: TransportOutcome;
  failure_kind: FailureKind | null;
  destination_ref: string | null;
  response_digest: string | null;
  recorded_by: string;
  recorded_at: string;
}

const RECEIPT_COLUMNS = `r.receipt_id, r.attempt_id, a.execution_id, r.transport_outcome, r.failure_kind,
  r.destination_ref, r.response_digest, r.recorded_by, ${isoSql("r.recorded_at")} AS recorded_at`;

function toReceipt(r: ReceiptSqlRow): ReceiptRow {
  return {
    receiptId: toId(r.receipt_id),
    attemptId: toId(r.attempt_id),
    executionId: toId(r.execution_id),
    transportOutcome: r.transport_outcome,
    failureKind: r.failure_kind,
    destinationRef: r.destination_ref,
    responseDigest: r.response_digest,
    recordedBy: r.recorded_by,
    recordedAt: r.recorded_at,
  };
}

/** Receipts of one execution, oldest first. */
export async function listReceipts(q: Queryable, executionId: number): Promise<ReceiptRow[]> {
  const { rows } = await q.query<ReceiptSqlRow>(
    `SELECT ${RECEIPT_COLUMNS} FROM dispatch_receipts r JOIN dispatch_attempts a ON a.attempt_id = r.attempt_id
      WHERE a.execution_id = $1 ORDER BY r.receipt_id`,
    [executionId],
  );
  return rows.map(toReceipt);
}

/** The newest receipt of one execution, or null. */
export async function latestReceipt(q: Queryable, executionId: number): Promise<ReceiptRow | null> {
  const all = await listReceipts(q, executionId);
  return all[all.length - 1] ?? null;
}

/** The newest non-null destination_ref any receipt of the execution recorded. */
export async function latestDestinationRef(
  q: Queryable,
  executionId: number,
): Promise<string | null> {
  const all = await listReceipts(q, executionId);
  for (let i = all.length - 1; i >= 0; i -= 1) {
    const ref = all[i]?.destinationRef;
    if (ref !== null && ref !== undefined) return ref;
  }
  return null;
}

/** An attempt row (ownership stamps included). */
export interface AttemptRow {
  readonly attemptId: number;
  readonly executionId: number;
  readonly attemptNo: number;
  readonly kind: string;
  readonly claimedAt: string;
  readonly ownerWorkerId: string | null;
  readonly fencingToken: number | null;
  readonly hasReceipt: boolean;
}

/** Attempts of one execution, oldest first. */
export async function listAttempts(q: Queryable, executionId: number): Promise<AttemptRow[]> {
  const { rows } = await q.query<{
    attempt_id: unknown;
    execution_id: unknown;
    attempt_no: number;
    kind: string;
    claimed_at: string;
    owner_worker_id: string | null;
    fencing_token: unknown;
    has_receipt: boolean;
  }>(
    `SELECT a.attempt_id, a.execution_id, a.attempt_no, a.kind, ${isoSql("a.claimed_at")} AS claimed_at,
            a.owner_worker_id, a.fencing_token,
            EXISTS (SELECT 1 FROM dispatch_receipts r WHERE r.attempt_id = a.attempt_id) AS has_receipt
       FROM dispatch_attempts a WHERE a.execution_id = $1 ORDER BY a.attempt_no`,
    [executionId],
  );
  return rows.map((r) => ({
    attemptId: toId(r.attempt_id),
    executionId: toId(r.execution_id),
    attemptNo: Number(r.attempt_no),
    kind: r.kind,
    claimedAt: r.claimed_at,
    ownerWorkerId: r.owner_worker_id,
    fencingToken: toIdOrNull(r.fencing_token),
    hasReceipt: r.has_receipt,
  }));
}
