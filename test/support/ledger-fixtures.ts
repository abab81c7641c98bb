/**
 * test/support/ledger-fixtures — builds ledger histories for the database tests through the
 * locked functions (never raw lifecycle inserts), so the chains are exactly what the engine
 * could have produced and the auditor finds them clean. Evidence rows (gate decisions,
 * attempts, receipts, probes) are inserted the way the engine inserts them.
 */
import { createHash, randomBytes } from "node:crypto";
import canonicalize from "canonicalize";
import type { Queryable } from "../../src/db/db.js";
import type { LifecycleState } from "../../src/core/state-tables.js";

/** The identity members of a test effect. */
export interface TestIdentity {
  readonly effect_type: string;
  readonly scope: string;
  readonly stable_ids: Readonly<Record<string, string>>;
}

export interface TestEffect {
  readonly effectId: string;
  readonly canonical: string;
  readonly identity: TestIdentity;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A fresh identity (unique stable id) unless one is given. */
export function testIdentity(overrides: Partial<TestIdentity> = {}): TestIdentity {
  return {
    effect_type: overrides.effect_type ?? "order.create",
    scope: overrides.scope ?? `test-store/${randomBytes(4).toString("hex")}`,
    stable_ids: overrides.stable_ids ?? { order_id: randomBytes(6).toString("hex") },
  };
}

/** The JCS preimage and id of an identity (identity_version 1). */
export function identityOf(identity: TestIdentity): TestEffect {
  const canonical = canonicalize({
    effect_type: identity.effect_type,
    scope: identity.scope,
    stable_ids: identity.stable_ids,
  });
  if (canonical === undefined) throw new Error("identity did not canonicalize");
  return { effectId: sha256Hex(canonical), canonical, identity };
}

export interface InsertEffectOptions {
  readonly identity?: TestIdentity;
  readonly branchRef?: string | null;
  readonly adapterId?: string;
}

/** Inserts an effect record (as any role with INSERT on effect_records). */
export async function insertEffect(
  db: Queryable,
  options: InsertEffectOptions = {},
): Promise<TestEffect> {
  const effect = identityOf(options.identity ?? testIdentity());
  const { identity } = effect;
  await db.query(
    `INSERT INTO effect_records (effect_id, identity_version, contract_canonical, effect_type, effect_class, scope, stable_ids,
                                 adapter_id, declaration_digest, parameters, parameters_digest, branch_ref)
     VALUES ($1, 1, $2, $3, 'IRREVERSIBLE', $4, $5::jsonb, $6, $7, '{}'::jsonb, $8, $9)`,
    [
      effect.effectId,
      effect.canonical,
      identity.effect_type,
      identity.scope,
      JSON.stringify(identity.stable_ids),
      options.adapterId ?? "refdest",
      `sha256:${sha256Hex("declaration")}`,
      `sha256:${sha256Hex("{}")}`,
      options.branchRef ?? null,
    ],
  );
  return effect;
}

export interface ExecutionRef {
  readonly effectId: string;
  readonly executionId: number;
  readonly operationId: string;
}

/** Opens an execution through ledger_open_execution. */
export async function openExecution(
  db: Queryable,
  effectId: string,
  openedBy = "register",
): Promise<ExecutionRef & { state: string; step: number }> {
  const { rows } = await db.query<{
    execution_id: number;
    step: number;
    operation_id: string;
    state: string;
  }>("SELECT * FROM ledger_open_execution($1, $2)", [effectId, openedBy]);
  const r = rows[0];
  if (r === undefined) throw new Error("ledger_open_execution returned no row");
  return {
    effectId,
    executionId: Number(r.execution_id),
    operationId: r.operation_id,
    state: r.state,
    step: r.step,
  };
}

/** Calls ledger_transition; returns the new transition_seq. */
export async function transition(
  db: Queryable,
  executionId: number,
  from: LifecycleState | null,
  to: string,
  cause: string,
  actor: string,
  evidence: Record<string, unknown> = {},
): Promise<number> {
  const { rows } = await db.query<{ seq: number }>(
    "SELECT ledger_transition($1, $2, $3, $4, $5, $6::jsonb) AS seq",
    [executionId, from, to, cause, actor, JSON.stringify(evidence)],
  );
  return Number(rows[0]?.seq);
}

/** Inserts an ALLOW decision and a primary attempt, then PERSISTED → DISPATCHED. */
export async function dispatch(
  db: Queryable,
  ex: ExecutionRef,
): Promise<{ decisionId: number; attemptId: number }> {
  const d = await db.query<{ decision_id: number }>(
    `INSERT INTO gate_decisions (effect_id, execution_id, variant, outcome, checks, evidence)
     VALUES ($1, $2, 'dispatch', 'ALLOW', '[]'::jsonb, '{}'::jsonb) RETURNING decision_id`,
    [ex.effectId, ex.executionId],
  );
  const decisionId = Number(d.rows[0]?.decision_id);
  const attemptId = await insertAttempt(db, ex, "primary", decisionId);
  await transition(db, ex.executionId, "PERSISTED", "DISPATCHED", "gate_allow", "gate", {
    decision_id: decisionId,
    attempt_id: attemptId,
  });
  return { decisionId, attemptId };
}

/** Inserts an attempt with the next attempt_no (key = operation id). */
export async function insertAttempt(
  db: Queryable,
  ex: ExecutionRef,
  kind: string,
  decisionId: number | null,
): Promise<number> {
  const a = await db.query<{ attempt_id: number }>(
    `INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest, idempotency_key, request_digest, gate_decision_id)
     VALUES ($1, $2, (SELECT COALESCE(MAX(attempt_no), 0) + 1 FROM dispatch_attempts WHERE execution_id = $1), $3, 'refdest', 'sha256:decl', $2, 'sha256:req', $4)
     RETURNING attempt_id`,
    [ex.executionId, ex.operationId, kind, decisionId],
  );
  return Number(a.rows[0]?.attempt_id);
}

/** Inserts a receipt for an attempt. */
export async function insertReceipt(
  db: Queryable,
  attemptId: number,
  outcome: "OK" | "FAILED" | "TIMEOUT" | "LOST",
): Promise<number> {
  const r = await db.query<{ receipt_id: number }>(
    `INSERT INTO dispatch_receipts (attempt_id, transport_outcome, failure_kind, destination_ref, evidence, recorded_by)
     VALUES ($1, $2, $3, $4, '{}'::jsonb, 'dispatcher') RETURNING receipt_id`,
    [
      attemptId,
      outcome,
      outcome === "FAILED" ? "TERMINAL" : null,
      outcome === "OK" ? `ref-${attemptId}` : null,
    ],
  );
  return Number(r.rows[0]?.receipt_id);
}

/**
 * Inserts a status probe on an execution, queried at database now plus `queriedOffset` (an
 * SQL interval such as `'-1 hour'`), with `evidence` as the probe's own evidence.
 */
export async function insertProbe(
  db: Queryable,
  executionId: number,
  result: "PRESENT" | "ABSENT" | "INDETERMINATE",
  evidence: Record<string, unknown> = {},
  queriedOffset = "0 seconds",
): Promise<number> {
  const n = result === "PRESENT" ? 1 : result === "ABSENT" ? 0 : null;
  const p = await db.query<{ probe_id: number }>(
    `INSERT INTO status_probes (execution_id, adapter_id, declaration_digest, probe_kind, query_keys, result, n_found, queried_at, evidence)
     VALUES ($1, 'refdest', 'sha256:decl', 'reconcile_open', '{}'::jsonb, $2, $3, clock_timestamp() + $4::interval, $5::jsonb)
     RETURNING probe_id`,
    [executionId, result, n, queriedOffset, JSON.stringify(evidence)],
  );
  return Number(p.rows[0]?.probe_id);
}

/** A fresh effect whose latest execution is at `state`, reached through the functions. */
export async function effectAt(db: Queryable, state: LifecycleState): Promise<ExecutionRef> {
  if (state === "CANCELLED") {
    const branch = `branch-${randomBytes(4).toString("hex")}`;
    await db.query("INSERT INTO branch_cancellations (branch_ref, reason) VALUES ($1, 'test')", [
      branch,
    ]);
    const e = await insertEffect(db, { branchRef: branch });
    return openExecution(db, e.effectId);
  }
  const e = await insertEffect(db);
  if (state === "INTENDED") {
    // INTENDED is transient inside ledger_open_execution; reach it from genesis explicitly.
    const x = await rawExecution(db, e.effectId, 0);
    await transition(db, x.executionId, null, "INTENDED", "register", "registrar", {
      opened_by: "register",
    });
    return x;
  }
  const ex = await openExecution(db, e.effectId);
  if (state === "PERSISTED") return ex;
  const { attemptId } = await dispatch(db, ex);
  if (state === "DISPATCHED") return ex;
  if (state === "SETTLED_COMMITTED") {
    const receiptId = await insertReceipt(db, attemptId, "OK");
    await transition(
      db,
      ex.executionId,
      "DISPATCHED",
      "SETTLED_COMMITTED",
      "receipt_ok",
      "dispatcher",
      { receipt_id: receiptId },
    );
    return ex;
  }
  if (state === "SETTLED_FAILED") {
    const receiptId = await insertReceipt(db, attemptId, "FAILED");
    await transition(
      db,
      ex.executionId,
      "DISPATCHED",
      "SETTLED_FAILED",
      "receipt_failed",
      "dispatcher",
      { receipt_id: receiptId },
    );
    return ex;
  }
  const receiptId = await insertReceipt(db, attemptId, "TIMEOUT");
  await transition(db, ex.executionId, "DISPATCHED", "AMBIGUOUS", "receipt_timeout", "dispatcher", {
    receipt_id: receiptId,
  });
  return ex;
}

/**
 * An execution row with no transitions yet (genesis). Only the privileged login or the owner
 * can insert it; it exists to test the ∅ → INTENDED edge itself.
 */
export async function rawExecution(
  db: Queryable,
  effectId: string,
  step: number,
): Promise<ExecutionRef> {
  const { rows } = await db.query<{ execution_id: number; operation_id: string }>(
    `INSERT INTO effect_executions (effect_id, step, operation_id, opened_by) VALUES ($1, $2, $3, 'register')
     RETURNING execution_id, operation_id`,
    [effectId, step, `${effectId}:${step}`],
  );
  const r = rows[0];
  if (r === undefined) throw new Error("no execution row");
  return { effectId, executionId: Number(r.execution_id), operationId: r.operation_id };
}

/** Attaches a finding through ledger_attach_finding. */
export async function attachFinding(
  db: Queryable,
  effectId: string | null,
  classification: string,
  options: { excess?: number | null; destinationRef?: string | null; createdBy?: string } = {},
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    "SELECT ledger_attach_finding($1, $2, $3, $4, $5, $6::jsonb, $7, $8) AS id",
    [
      effectId,
      "refdest",
      options.destinationRef ??
        (effectId === null ? `orphan-${randomBytes(4).toString("hex")}` : null),
      classification,
      options.excess ?? (classification === "DUPLICATE" ? 1 : null),
      JSON.stringify({ test: true }),
      `sha256:${sha256Hex("evidence")}`,
      options.createdBy ?? "reconciler",
    ],
  );
  return Number(rows[0]?.id);
}

/** Calls ledger_resolve; returns the resolution_seq. */
export async function resolve(
  db: Queryable,
  findingId: number,
  from: string,
  to: string,
  actor = "human",
  evidence: Record<string, unknown> = { note: "test" },
): Promise<number> {
  const { rows } = await db.query<{ seq: number }>(
    "SELECT ledger_resolve($1, $2, $3, $4, $5::jsonb) AS seq",
    [findingId, from, to, actor, JSON.stringify(evidence)],
  );
  return Number(rows[0]?.seq);
}

/** Row count of a table (as the privileged login). */
export async function countRows(db: Queryable, table: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return Number(rows[0]?.n);
}
