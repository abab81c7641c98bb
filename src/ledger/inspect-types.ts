/**
 * ledger/inspect-types — the row types of the inspect document (`irrevon inspect --json`,
 * `Irrevon.inspect`): one interface per section, snake_case as printed, instants as RFC 3339
 * strings, ids as numbers, closed sets as the unions of core/state-tables. JSON columns
 * (evidence, checks) stay open records: their keys depend on the adapter and the rule that
 * wrote them. Object types (not interfaces), so a row is also a plain
 * `Record<string, unknown>` for generic renderers. Imports: core.
 */
import type {
  Actor,
  AttemptKind,
  Cause,
  Classification,
  EffectClass,
  ExecutionOpener,
  FailureKind,
  FindingCreator,
  GateCheck,
  GateVariant,
  LifecycleState,
  ProbeKind,
  ProbeResult,
  ReceiptRecorder,
  ResolutionActor,
  ResolutionStatus,
  TransportOutcome,
} from "../core/state-tables.js";

/** A JSON evidence object as stored. */
export type EvidenceJson = Readonly<Record<string, unknown>>;

/** The effect record with its current frontier. */
export type InspectRecord = {
  readonly effect_id: string;
  readonly effect_type: string;
  readonly effect_class: EffectClass;
  readonly scope: string;
  readonly stable_ids: Readonly<Record<string, string>>;
  readonly adapter_id: string;
  readonly declaration_digest: string;
  readonly parameters_digest: string;
  readonly branch_ref: string | null;
  readonly event_time: string | null;
  readonly identity_version: number;
  readonly contract_canonical: string;
  readonly created_at: string;
  /** The latest execution's frontier (null only for a record without an execution). */
  readonly lifecycle: LifecycleState | null;
  readonly operation_id: string | null;
  readonly step: number | null;
};

export type InspectExecution = {
  readonly execution_id: number;
  readonly step: number;
  readonly operation_id: string;
  readonly opened_by: ExecutionOpener;
  readonly frontier: LifecycleState;
  readonly created_at: string;
};

export type InspectTransition = {
  readonly transition_seq: number;
  readonly execution_id: number;
  readonly step: number;
  readonly from_state: LifecycleState | null;
  readonly to_state: LifecycleState;
  readonly cause: Cause;
  readonly actor: Actor;
  readonly evidence: EvidenceJson;
  readonly created_at: string;
};

export type InspectGateDecision = {
  readonly decision_id: number;
  readonly execution_id: number;
  readonly variant: GateVariant;
  readonly outcome: "ALLOW" | "DENY";
  readonly deny_check: GateCheck | null;
  /** Every check in order with its status (see GateCheckResult). */
  readonly checks: readonly EvidenceJson[];
  readonly evidence: EvidenceJson;
  readonly created_at: string;
};

export type InspectAttempt = {
  readonly attempt_id: number;
  readonly execution_id: number;
  readonly attempt_no: number;
  readonly kind: AttemptKind;
  readonly adapter_id: string;
  readonly declaration_digest: string;
  readonly idempotency_key: string;
  readonly request_digest: string;
  readonly gate_decision_id: number | null;
  readonly owner_worker_id: string | null;
  readonly fencing_token: number | null;
  readonly claimed_at: string;
};

export type InspectReceipt = {
  readonly receipt_id: number;
  readonly attempt_id: number;
  readonly transport_outcome: TransportOutcome;
  readonly failure_kind: FailureKind | null;
  readonly destination_ref: string | null;
  readonly response_digest: string | null;
  readonly evidence: EvidenceJson;
  readonly recorded_by: ReceiptRecorder;
  readonly recorded_by_worker: string | null;
  readonly recorded_at: string;
};

export type InspectLateResponse = {
  readonly late_id: number;
  readonly attempt_id: number;
  readonly transport_outcome: TransportOutcome;
  readonly destination_ref: string | null;
  readonly response_digest: string | null;
  readonly evidence: EvidenceJson;
  readonly contradicts_settle: boolean;
  readonly recorded_at: string;
};

export type InspectProbe = {
  readonly probe_id: number;
  readonly execution_id: number;
  readonly probe_kind: ProbeKind;
  readonly query_keys: readonly Readonly<Record<string, string>>[];
  readonly result: ProbeResult;
  readonly n_found: number | null;
  readonly destination_refs: readonly string[] | null;
  readonly response_digest: string | null;
  readonly evidence: EvidenceJson;
  readonly queried_at: string;
  readonly recorded_at: string;
};

export type InspectFinding = {
  readonly finding_id: number;
  readonly classification: Classification;
  readonly adapter_id: string | null;
  readonly destination_ref: string | null;
  readonly excess_effect_count: number | null;
  readonly evidence: EvidenceJson;
  readonly evidence_digest: string;
  readonly created_by: FindingCreator;
  readonly created_at: string;
  /** The finding's current resolution status (OPEN when none was recorded). */
  readonly resolution_status: ResolutionStatus;
};

export type InspectResolution = {
  readonly resolution_seq: number;
  readonly finding_id: number;
  readonly from_status: ResolutionStatus;
  readonly to_status: ResolutionStatus;
  readonly actor: ResolutionActor;
  readonly evidence: EvidenceJson;
  readonly created_at: string;
};

export type InspectParameterVariant = {
  readonly variant_id: number;
  readonly parameters_digest: string;
  readonly event_time: string | null;
  readonly recorded_at: string;
};

export type InspectAuthority = {
  readonly link_id: number;
  readonly authority_id: number;
  readonly authority_ref: string;
  readonly scope: string;
  readonly stamped_at: string;
  readonly expires_at: string | null;
  readonly linked_at: string;
};

export type InspectEscalation = {
  readonly escalation_id: number;
  readonly execution_id: number;
  readonly reason: string;
  readonly evidence: EvidenceJson;
  readonly recorded_by: string;
  readonly created_at: string;
};
