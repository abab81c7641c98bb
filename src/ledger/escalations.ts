/**
 * ledger/escalations — an execution handed to a human by the reconciler (no covering key,
 * C3, INDETERMINATE budget spent, attempt cap) or because the gate denied automatic work. Parked-AMBIGUOUS is not a finding (§2.2),
 * so this is its own append-only fact (sql/migrations/0020), written once per reason.
 * Imports: core, db, ledger.
 */
import type { Queryable } from "../db/db.js";
import { isoSql, jsonParam, toId } from "./sql-util.js";

/** Why an execution was handed to a human. */
export const EscalationReason = {
  no_covering_key: "no_covering_key",
  opaque_destination: "opaque_destination",
  indeterminate_budget: "indeterminate_budget",
  attempt_cap: "attempt_cap",
  /** Automatic work (a C1 replay, a policy or resumed re-dispatch) the gate denied (0040). */
  gate_denied: "gate_denied",
} as const;
/** One escalation reason. */
export type EscalationReason = (typeof EscalationReason)[keyof typeof EscalationReason];

/** Records an escalation; returns true if it is new (false: already escalated for that reason). */
export async function recordEscalation(
  q: Queryable,
  input: {
    executionId: number;
    reason: EscalationReason;
    evidence: Readonly<Record<string, unknown>>;
    recordedBy: "reconciler" | "recovery";
  },
): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO execution_escalations (execution_id, reason, evidence, recorded_by) VALUES ($1, $2, $3::jsonb, $4)
     ON CONFLICT (execution_id, reason) DO NOTHING RETURNING escalation_id`,
    [input.executionId, input.reason, jsonParam(input.evidence), input.recordedBy],
  );
  return rows.length > 0;
}

/** A stored escalation. */
export interface EscalationRow {
  readonly escalationId: number;
  readonly executionId: number;
  readonly reason: EscalationReason;
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly recordedBy: string;
  readonly createdAt: string;
}

/** Escalations of one effect's executions. */
export async function listEscalations(q: Queryable, effectId: string): Promise<EscalationRow[]> {
  const { rows } = await q.query<{
    escalation_id: unknown;
    execution_id: unknown;
    reason: EscalationReason;
    evidence: Record<string, unknown>;
    recorded_by: string;
    created_at: string;
  }>(
    `SELECT e.escalation_id, e.execution_id, e.reason, e.evidence, e.recorded_by, ${isoSql("e.created_at")} AS created_at
       FROM execution_escalations e JOIN effect_executions x ON x.execution_id = e.execution_id
      WHERE x.effect_id = $1 ORDER BY e.escalation_id`,
    [effectId],
  );
  return rows.map((r) => ({
    escalationId: toId(r.escalation_id),
    executionId: toId(r.execution_id),
    reason: r.reason,
    evidence: r.evidence,
    recordedBy: r.recorded_by,
    createdAt: r.created_at,
  }));
}
