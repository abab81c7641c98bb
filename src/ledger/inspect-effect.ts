/**
 * ledger/inspect-effect — everything the ledger knows about one effect, side by side: the
 * record (stable ids included), the three dimensions (lifecycle, classification,
 * resolution), the timeline, gate decisions, attempts, receipts, late responses, probes,
 * findings and their resolutions, parameter variants, authorities, escalations, and an
 * integrity check that recomputes the intent id from the stored preimage. This is the data
 * of `irrevon inspect --json`. Read-only: works as irrevon_read. Imports: core, db, ledger.
 */
import { sha256Hex } from "../core/canonical.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Classification, LifecycleState, ResolutionStatus } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import type {
  InspectAttempt,
  InspectAuthority,
  InspectEscalation,
  InspectExecution,
  InspectFinding,
  InspectGateDecision,
  InspectLateResponse,
  InspectParameterVariant,
  InspectProbe,
  InspectReceipt,
  InspectRecord,
  InspectResolution,
  InspectTransition,
} from "./inspect-types.js";
import { isoSql } from "./sql-util.js";

/** The inspect document (snake_case, as printed by the CLI). */
export interface EffectInspection {
  readonly schema_version: "1";
  readonly kind: "effect";
  readonly record: InspectRecord;
  readonly dimensions: {
    readonly lifecycle: LifecycleState;
    /** Latest finding's class, or UNRECONCILED when there is none. */
    readonly classification: Classification | "UNRECONCILED";
    /** Latest finding's resolution status, or null. */
    readonly resolution: ResolutionStatus | null;
  };
  readonly executions: readonly InspectExecution[];
  readonly timeline: readonly InspectTransition[];
  readonly gate_decisions: readonly InspectGateDecision[];
  readonly attempts: readonly InspectAttempt[];
  readonly receipts: readonly InspectReceipt[];
  readonly late_responses: readonly InspectLateResponse[];
  readonly probes: readonly InspectProbe[];
  readonly findings: readonly InspectFinding[];
  readonly resolutions: readonly InspectResolution[];
  readonly parameter_variants: readonly InspectParameterVariant[];
  readonly authorities: readonly InspectAuthority[];
  readonly escalations: readonly InspectEscalation[];
  readonly integrity: { readonly recomputed_intent_id: string; readonly matches: boolean };
}

/** Ids come back as strings from some drivers: normalise every *_id / *_seq / step column. */
function normaliseRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    const isIdColumn =
      k.endsWith("_id") ||
      k.endsWith("_seq") ||
      k === "step" ||
      k === "attempt_no" ||
      k === "fencing_token" ||
      k === "n_found";
    out[k] =
      isIdColumn && (typeof v === "string" || typeof v === "bigint") && /^\d+$/.test(String(v))
        ? Number(v)
        : v;
  }
  return out;
}

/** Rows of one section; the SELECT lists exactly the columns of `T` (see inspect-types). */
async function rows<T>(q: Queryable, sql: string, params: readonly unknown[]): Promise<T[]> {
  const result = await q.query<Record<string, unknown>>(sql, params);
  return result.rows.map(normaliseRow) as T[];
}

const EXEC_IDS = "SELECT execution_id FROM effect_executions WHERE effect_id = $1";
const ATTEMPT_IDS = `SELECT attempt_id FROM dispatch_attempts WHERE execution_id IN (${EXEC_IDS})`;

/** Reads the inspect document of `effectId`; throws not_found when there is no record. */
export async function inspectEffect(q: Queryable, effectId: string): Promise<EffectInspection> {
  const [record] = await rows<InspectRecord>(
    q,
    `SELECT r.effect_id, r.effect_type, r.effect_class, r.scope, r.stable_ids, r.adapter_id, r.declaration_digest,
            r.parameters_digest, r.branch_ref, ${isoSql("r.event_time")} AS event_time, r.identity_version,
            r.contract_canonical, ${isoSql("r.created_at")} AS created_at,
            f.frontier AS lifecycle, f.operation_id, f.step
       FROM effect_records r LEFT JOIN effect_frontiers f ON f.effect_id = r.effect_id
      WHERE r.effect_id = $1`,
    [effectId],
  );
  if (record === undefined)
    throw new IrrevonError(ErrorCode.not_found, "no effect record with this id", {
      details: { effect_id: effectId },
    });
  const p = [effectId];
  const executions = await rows<InspectExecution>(
    q,
    `SELECT execution_id, step, operation_id, opened_by, frontier, ${isoSql("created_at")} AS created_at
       FROM execution_frontiers WHERE effect_id = $1 ORDER BY step`,
    p,
  );
  const timeline = await rows<InspectTransition>(
    q,
    `SELECT t.transition_seq, t.execution_id, x.step, t.from_state, t.to_state, t.cause, t.actor, t.evidence,
            ${isoSql("t.created_at")} AS created_at
       FROM effect_transitions t JOIN effect_executions x ON x.execution_id = t.execution_id
      WHERE x.effect_id = $1 ORDER BY t.transition_seq`,
    p,
  );
  const gateDecisions = await rows<InspectGateDecision>(
    q,
    `SELECT decision_id, execution_id, variant, outcome, deny_check, checks, evidence, ${isoSql("created_at")} AS created_at
       FROM gate_decisions WHERE effect_id = $1 ORDER BY decision_id`,
    p,
  );
  const attempts = await rows<InspectAttempt>(
    q,
    `SELECT attempt_id, execution_id, attempt_no, kind, adapter_id, declaration_digest, idempotency_key, request_digest,
            gate_decision_id, owner_worker_id, fencing_token, ${isoSql("claimed_at")} AS claimed_at
       FROM dispatch_attempts WHERE execution_id IN (${EXEC_IDS}) ORDER BY attempt_id`,
    p,
  );
  const receipts = await rows<InspectReceipt>(
    q,
    `SELECT receipt_id, attempt_id, transport_outcome, failure_kind, destination_ref, response_digest, evidence,
            recorded_by, recorded_by_worker, ${isoSql("recorded_at")} AS recorded_at
       FROM dispatch_receipts WHERE attempt_id IN (${ATTEMPT_IDS}) ORDER BY receipt_id`,
    p,
  );
  const late = await rows<InspectLateResponse>(
    q,
    `SELECT late_id, attempt_id, transport_outcome, destination_ref, response_digest, evidence, contradicts_settle,
            ${isoSql("recorded_at")} AS recorded_at
       FROM late_responses WHERE attempt_id IN (${ATTEMPT_IDS}) ORDER BY late_id`,
    p,
  );
  const probes = await rows<InspectProbe>(
    q,
    `SELECT probe_id, execution_id, probe_kind, query_keys, result, n_found, destination_refs, response_digest, evidence,
            ${isoSql("queried_at")} AS queried_at, ${isoSql("recorded_at")} AS recorded_at
       FROM status_probes WHERE execution_id IN (${EXEC_IDS}) ORDER BY probe_id`,
    p,
  );
  const findings = await rows<InspectFinding>(
    q,
    `SELECT f.finding_id, f.classification, f.adapter_id, f.destination_ref, f.excess_effect_count, f.evidence,
            f.evidence_digest, f.created_by, ${isoSql("f.created_at")} AS created_at,
            COALESCE((SELECT r.to_status FROM finding_resolutions r WHERE r.finding_id = f.finding_id
                       ORDER BY r.resolution_seq DESC LIMIT 1), 'OPEN') AS resolution_status
       FROM findings f WHERE f.effect_id = $1 ORDER BY f.finding_id`,
    p,
  );
  const resolutions = await rows<InspectResolution>(
    q,
    `SELECT r.resolution_seq, r.finding_id, r.from_status, r.to_status, r.actor, r.evidence, ${isoSql("r.created_at")} AS created_at
       FROM finding_resolutions r JOIN findings f ON f.finding_id = r.finding_id
      WHERE f.effect_id = $1 ORDER BY r.resolution_seq`,
    p,
  );
  const variants = await rows<InspectParameterVariant>(
    q,
    `SELECT variant_id, parameters_digest, ${isoSql("event_time")} AS event_time, ${isoSql("recorded_at")} AS recorded_at
       FROM parameter_variants WHERE effect_id = $1 ORDER BY variant_id`,
    p,
  );
  const authorities = await rows<InspectAuthority>(
    q,
    `SELECT l.link_id, a.authority_id, a.authority_ref, a.scope, ${isoSql("a.stamped_at")} AS stamped_at,
            ${isoSql("a.expires_at")} AS expires_at, ${isoSql("l.created_at")} AS linked_at
       FROM effect_authorities l JOIN authorities a ON a.authority_id = l.authority_id
      WHERE l.effect_id = $1 ORDER BY l.link_id`,
    p,
  );
  const escalations = await rows<InspectEscalation>(
    q,
    `SELECT escalation_id, execution_id, reason, evidence, recorded_by, ${isoSql("created_at")} AS created_at
       FROM execution_escalations WHERE execution_id IN (${EXEC_IDS}) ORDER BY escalation_id`,
    p,
  );
  const latestFinding = findings[findings.length - 1];
  const canonical = record.contract_canonical;
  const recomputed = sha256Hex(canonical);
  return {
    schema_version: "1",
    kind: "effect",
    record,
    dimensions: {
      lifecycle: record.lifecycle ?? "INTENDED",
      classification: latestFinding === undefined ? "UNRECONCILED" : latestFinding.classification,
      resolution: latestFinding === undefined ? null : latestFinding.resolution_status,
    },
    executions,
    timeline,
    gate_decisions: gateDecisions,
    attempts,
    receipts,
    late_responses: late,
    probes,
    findings,
    resolutions,
    parameter_variants: variants,
    authorities,
    escalations,
    integrity: { recomputed_intent_id: recomputed, matches: recomputed === effectId },
  };
}
