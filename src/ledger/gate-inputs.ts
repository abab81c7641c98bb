/**
 * ledger/gate-inputs — reads what a claim and the commit gate decide on in ONE statement
 * (`irrevon_claim_inputs`, sql/migrations/0050): the record, every execution with the
 * receipts and findings the dedup check cites, the parameters the latest execution sends,
 * deny hits, the current authority and its expiry (database clock), branch cancellation,
 * recorded variants, presence evidence, the last decision per variant, and the gate time
 * (`now()` of the reading transaction). The read carries a version (md5 of everything but the
 * gate time): the locked claim function reads again under its locks and refuses a decision
 * made on another version (docs/decisions/0007-claim-design.md). Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { ExecutionOpener, GateVariant, LifecycleState } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import type {
  GateAuthority,
  GateExecution,
  GateInputs,
  PresenceEvidence,
} from "./gate-evaluate.js";
import { toId } from "./sql-util.js";
import { toStoredRecord, type RecordRow } from "./read-records.js";
import type { ExecutionFrontier, StoredRecord } from "./types.js";

/** The last decision recorded for one variant of the latest execution. */
export interface LastDecision {
  readonly decisionId: number;
  readonly outcome: "ALLOW" | "DENY";
  readonly denyCheck: string | null;
  readonly evidence: Record<string, unknown>;
}

/** Everything one claim reads, with the version the locked claim re-checks. */
export interface ClaimInputs {
  readonly record: StoredRecord;
  /** Ascending by step; the last is the one a claim is about. */
  readonly executions: readonly ExecutionFrontier[];
  readonly gateExecutions: readonly GateExecution[];
  /** What the latest execution sends: an adopted variant, else the record's parameters. */
  readonly sent: {
    readonly parameters: Record<string, unknown>;
    readonly parametersDigest: string;
    readonly isAdopted: boolean;
  };
  readonly denyHits: GateInputs["denyHits"];
  readonly authority: GateAuthority | null;
  readonly branchCancelled: boolean;
  readonly parameterVariantDigests: readonly string[];
  readonly presence: PresenceEvidence;
  readonly lastDecisions: Readonly<Partial<Record<GateVariant, LastDecision>>>;
  readonly gateTime: string;
  /** md5 of the inputs, gate time aside (computed in SQL). */
  readonly version: string;
}

type Json = Record<string, unknown>;
const ids = (v: unknown): number[] => (Array.isArray(v) ? v.map((x) => toId(x)) : []);

/** Parses the jsonb `irrevon_claim_inputs` returns. */
export function parseClaimInputs(raw: Json, version: string): ClaimInputs {
  const r = raw["record"] as Json;
  const record: StoredRecord = toStoredRecord(r as unknown as RecordRow);
  const rows = (raw["executions"] as Json[] | null) ?? [];
  const executions: ExecutionFrontier[] = rows.map((e) => ({
    executionId: toId(e["execution_id"]),
    effectId: record.effectId,
    step: Number(e["step"]),
    operationId: e["operation_id"] as string,
    openedBy: e["opened_by"] as ExecutionOpener,
    frontier: e["frontier"] as LifecycleState,
  }));
  const gateExecutions: GateExecution[] = rows.map((e, i) => ({
    executionId: executions[i]!.executionId,
    step: executions[i]!.step,
    operationId: executions[i]!.operationId,
    frontier: executions[i]!.frontier,
    receiptIds: ids(e["receipt_ids"]),
    findingIds: ids(e["finding_ids"]),
  }));
  const sent = raw["sent"] as Json;
  const a = raw["authority"] as Json | null;
  const p = raw["presence"] as Json;
  const last: Partial<Record<GateVariant, LastDecision>> = {};
  for (const [variant, d] of Object.entries((raw["last_decisions"] as Json | null) ?? {})) {
    const row = d as Json;
    last[variant as GateVariant] = {
      decisionId: toId(row["decision_id"]),
      outcome: row["outcome"] as "ALLOW" | "DENY",
      denyCheck: (row["deny_check"] as string | null) ?? null,
      evidence: row["evidence"] as Json,
    };
  }
  return {
    record,
    executions,
    gateExecutions,
    sent: {
      parameters: (sent["parameters"] as Json | null) ?? {},
      parametersDigest: (sent["parameters_digest"] as string | null) ?? "",
      isAdopted: sent["adopted"] === true,
    },
    denyHits: ((raw["deny_hits"] as Json[] | null) ?? []).map((h) => ({
      denyId: toId(h["deny_id"]),
      reason: h["reason"] as string,
    })),
    authority:
      a === null
        ? null
        : {
            authorityId: toId(a["authority_id"]),
            authorityRef: a["authority_ref"] as string,
            scope: a["scope"] as string,
            stampedAt: a["stamped_at"] as string,
            expiresAt: (a["expires_at"] as string | null) ?? null,
            isExpired: a["is_expired"] === true,
          },
    branchCancelled: raw["branch_cancelled"] === true,
    parameterVariantDigests: (raw["variants"] as string[] | null) ?? [],
    presence: {
      probeIds: ids(p["probe_ids"]),
      findingIds: ids(p["finding_ids"]),
      lateResponseIds: ids(p["late_response_ids"]),
    },
    lastDecisions: last,
    gateTime: raw["gate_time"] as string,
    version,
  };
}

/** Reads the claim inputs of `effectId` in one statement; null when there is no record. */
export async function readClaimInputs(q: Queryable, effectId: string): Promise<ClaimInputs | null> {
  const { rows } = await q.query<{ inputs: Json | null; version: string | null }>(
    "SELECT v AS inputs, irrevon_claim_version(v) AS version FROM irrevon_claim_inputs($1) v",
    [effectId],
  );
  const row = rows[0];
  if (row?.inputs === null || row?.inputs === undefined || row.version === null) return null;
  return parseClaimInputs(row.inputs, row.version);
}

/** The gate's view of `inputs` for one variant. */
export function gateInputsOf(
  inputs: ClaimInputs,
  variant: GateVariant,
  waiveExecutionId: number | undefined,
): GateInputs {
  const r = inputs.record;
  return {
    effectId: r.effectId,
    variant,
    gateTime: inputs.gateTime,
    record: {
      effectClass: r.effectClass,
      effectType: r.effectType,
      scope: r.scope,
      branchRef: r.branchRef,
    },
    denyHits: inputs.denyHits,
    authority: inputs.authority,
    branchCancelled: inputs.branchCancelled,
    executions: inputs.gateExecutions,
    parameterVariantDigests: inputs.parameterVariantDigests,
    presence: inputs.presence,
    ...(waiveExecutionId === undefined ? {} : { waiveExecutionId }),
  };
}

/** Reads every gate input for `record` (inside a claim transaction, after its locks). */
export async function readGateInputs(
  q: Queryable,
  record: StoredRecord,
  variant: GateVariant,
  waiveExecutionId: number | undefined,
): Promise<GateInputs> {
  const inputs = await readClaimInputs(q, record.effectId);
  if (inputs === null)
    throw new IrrevonError(ErrorCode.not_found, "no effect record with this id", {
      details: { effect_id: record.effectId },
    });
  return gateInputsOf(inputs, variant, waiveExecutionId);
}

/**
 * Plans the claim-inputs read once on this session (engine open), so the first claim does not
 * pay for it while it holds a short lease. Reads nothing: no record has an empty id.
 */
export async function prepareClaimInputs(q: Queryable): Promise<void> {
  await q.query("SELECT irrevon_claim_inputs('') IS NULL AS prepared");
}
