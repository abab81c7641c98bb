/**
 * ledger/gate-inputs — reads what the commit gate decides on, inside the claim transaction
 * (after the slot and record locks), so the decision and the facts it cites are one
 * snapshot. Gate time is the database clock (`now()`, the claim transaction's start).
 * Imports: core, db, ledger.
 */
import type { GateVariant } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import type {
  GateAuthority,
  GateExecution,
  GateInputs,
  PresenceEvidence,
} from "./gate-evaluate.js";
import { isoSql, toId } from "./sql-util.js";
import type { ExecutionFrontier, StoredRecord } from "./types.js";

async function readDenyHits(q: Queryable, record: StoredRecord): Promise<GateInputs["denyHits"]> {
  const { rows } = await q.query<{ deny_id: unknown; reason: string }>(
    `SELECT d.deny_id, d.reason FROM deny_entries d
      WHERE NOT EXISTS (SELECT 1 FROM deny_lifts l WHERE l.deny_id = d.deny_id)
        AND (d.effect_class IS NULL OR d.effect_class = $1)
        AND (d.effect_type IS NULL OR d.effect_type = $2)
        AND (d.scope IS NULL OR d.scope = $3)
      ORDER BY d.deny_id`,
    [record.effectClass, record.effectType, record.scope],
  );
  return rows.map((r) => ({ denyId: toId(r.deny_id), reason: r.reason }));
}

/** The latest linked authority with its expiry (explicit, else stamped_at + policy max_age). */
export async function readCurrentAuthority(
  q: Queryable,
  record: StoredRecord,
): Promise<GateAuthority | null> {
  const { rows } = await q.query<{
    authority_id: unknown;
    authority_ref: string;
    scope: string;
    stamped_at: string;
    expires_at: string | null;
    is_expired: boolean;
  }>(
    `SELECT a.authority_id, a.authority_ref, a.scope, ${isoSql("a.stamped_at")} AS stamped_at,
            ${isoSql("x.expiry")} AS expires_at, COALESCE(now() > x.expiry, false) AS is_expired
       FROM effect_authorities l
       JOIN authorities a ON a.authority_id = l.authority_id
       CROSS JOIN LATERAL (
         SELECT COALESCE(a.expires_at, a.stamped_at + (
           SELECT p.max_age FROM authority_policies p
            WHERE p.scope_pattern IN ($2, '*')
            ORDER BY (p.scope_pattern = $2) DESC, p.policy_id DESC LIMIT 1)) AS expiry
       ) x
      WHERE l.effect_id = $1
      ORDER BY l.link_id DESC LIMIT 1`,
    [record.effectId, record.scope],
  );
  const r = rows[0];
  if (r === undefined) return null;
  return {
    authorityId: toId(r.authority_id),
    authorityRef: r.authority_ref,
    scope: r.scope,
    stampedAt: r.stamped_at,
    expiresAt: r.expires_at,
    isExpired: r.is_expired,
  };
}

async function readCitations(
  q: Queryable,
  effectId: string,
  executions: readonly ExecutionFrontier[],
): Promise<GateExecution[]> {
  const receipts = await q.query<{ execution_id: unknown; receipt_id: unknown }>(
    `SELECT a.execution_id, r.receipt_id FROM dispatch_receipts r
       JOIN dispatch_attempts a ON a.attempt_id = r.attempt_id
       JOIN effect_executions x ON x.execution_id = a.execution_id
      WHERE x.effect_id = $1 ORDER BY r.receipt_id`,
    [effectId],
  );
  const findings = await q.query<{ finding_id: unknown; execution_id: string | null }>(
    `SELECT finding_id, evidence->>'execution_id' AS execution_id FROM findings
      WHERE effect_id = $1 ORDER BY finding_id`,
    [effectId],
  );
  const latestId = executions[executions.length - 1]?.executionId;
  return executions.map((e) => ({
    executionId: e.executionId,
    step: e.step,
    operationId: e.operationId,
    frontier: e.frontier,
    receiptIds: receipts.rows
      .filter((r) => toId(r.execution_id) === e.executionId)
      .map((r) => toId(r.receipt_id)),
    // Findings cite their execution in evidence; one that does not is charged to the latest.
    findingIds: findings.rows
      .filter((f) =>
        f.execution_id === null
          ? e.executionId === latestId
          : Number(f.execution_id) === e.executionId,
      )
      .map((f) => toId(f.finding_id)),
  }));
}

/** Every fact showing the destination holds an effect of `effectId` (see gate-evaluate). */
export async function readPresence(q: Queryable, effectId: string): Promise<PresenceEvidence> {
  const { rows } = await q.query<{ kind: string; id: unknown }>(
    `SELECT 'probe' AS kind, p.probe_id AS id FROM status_probes p
       JOIN effect_executions x ON x.execution_id = p.execution_id
      WHERE x.effect_id = $1 AND p.result = 'PRESENT'
     UNION ALL
     SELECT 'finding', f.finding_id FROM findings f
      WHERE f.effect_id = $1 AND f.classification = 'CONTRADICTED'
        AND f.evidence->>'direction' = 'failed_but_present'
     UNION ALL
     SELECT 'late', l.late_id FROM late_responses l
       JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
       JOIN effect_executions x ON x.execution_id = a.execution_id
      WHERE x.effect_id = $1 AND l.transport_outcome = 'OK'
     ORDER BY 1, 2`,
    [effectId],
  );
  const ids = (kind: string): number[] =>
    rows.filter((r) => r.kind === kind).map((r) => toId(r.id));
  return { probeIds: ids("probe"), findingIds: ids("finding"), lateResponseIds: ids("late") };
}

/** Reads every gate input for `record` under the claim transaction's locks. */
export async function readGateInputs(
  q: Queryable,
  record: StoredRecord,
  executions: readonly ExecutionFrontier[],
  variant: GateVariant,
  waiveExecutionId: number | undefined,
): Promise<GateInputs> {
  const gateTime = await q.query<{ gate_time: string }>(`SELECT ${isoSql("now()")} AS gate_time`);
  const branch =
    record.branchRef === null
      ? false
      : (
          await q.query("SELECT 1 FROM branch_cancellations WHERE branch_ref = $1", [
            record.branchRef,
          ])
        ).rows.length > 0;
  const variants = await q.query<{ parameters_digest: string }>(
    `SELECT parameters_digest FROM parameter_variants WHERE effect_id = $1
      GROUP BY parameters_digest ORDER BY MIN(variant_id)`,
    [record.effectId],
  );
  return {
    effectId: record.effectId,
    variant,
    gateTime: gateTime.rows[0]?.gate_time ?? "",
    record: {
      effectClass: record.effectClass,
      effectType: record.effectType,
      scope: record.scope,
      branchRef: record.branchRef,
    },
    denyHits: await readDenyHits(q, record),
    authority: await readCurrentAuthority(q, record),
    branchCancelled: branch,
    executions: await readCitations(q, record.effectId, executions),
    parameterVariantDigests: variants.rows.map((r) => r.parameters_digest),
    presence: await readPresence(q, record.effectId),
    ...(waiveExecutionId === undefined ? {} : { waiveExecutionId }),
  };
}
