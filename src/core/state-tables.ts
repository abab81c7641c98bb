/**
 * core/state-tables — the single in-code encoding of the three state dimensions
 * (lifecycle, classification attachment, resolution) and the other closed sets.
 * The seed tables created by sql/migrations and docs/state-tables.md are checked
 * against (and generated from) this data. Imports: nothing.
 */

export const LifecycleState = {
  INTENDED: "INTENDED",
  PERSISTED: "PERSISTED",
  DISPATCHED: "DISPATCHED",
  SETTLED_COMMITTED: "SETTLED_COMMITTED",
  SETTLED_FAILED: "SETTLED_FAILED",
  AMBIGUOUS: "AMBIGUOUS",
  CANCELLED: "CANCELLED",
} as const;
export type LifecycleState = (typeof LifecycleState)[keyof typeof LifecycleState];
export const LIFECYCLE_STATES = Object.values(LifecycleState);
export const TERMINAL_STATES: readonly LifecycleState[] = ["SETTLED_COMMITTED", "SETTLED_FAILED", "CANCELLED"];

export const Actor = {
  registrar: "registrar",
  gate: "gate",
  dispatcher: "dispatcher",
  reconciler: "reconciler",
  recovery: "recovery",
  human: "human",
} as const;
export type Actor = (typeof Actor)[keyof typeof Actor];
export const ACTORS = Object.values(Actor);

export const Cause = {
  register: "register",
  durable_write: "durable_write",
  branch_cancelled: "branch_cancelled",
  gate_allow: "gate_allow",
  receipt_ok: "receipt_ok",
  receipt_failed: "receipt_failed",
  receipt_timeout: "receipt_timeout",
  receipt_lost: "receipt_lost",
  reconciled_present: "reconciled_present",
  replay_ok: "replay_ok",
  reconciled_absent: "reconciled_absent",
  replay_failed: "replay_failed",
} as const;
export type Cause = (typeof Cause)[keyof typeof Cause];

/** One legal lifecycle edge. `from: null` is genesis (∅). */
export interface LifecycleEdge {
  readonly from: LifecycleState | null;
  readonly to: LifecycleState;
  readonly cause: Cause;
  readonly actor: Actor;
}

function expand(
  from: LifecycleState | null,
  to: LifecycleState,
  causes: readonly Cause[],
  actors: readonly Actor[],
): LifecycleEdge[] {
  return causes.flatMap((cause) => actors.map((actor) => ({ from, to, cause, actor })));
}

/** The 24 legal (from, to, cause, actor) tuples; anything else is illegal (SQLSTATE DT001). */
export const LIFECYCLE_EDGES: readonly LifecycleEdge[] = [
  ...expand(null, "INTENDED", ["register"], ["registrar"]),
  ...expand("INTENDED", "PERSISTED", ["durable_write"], ["registrar"]),
  ...expand("INTENDED", "CANCELLED", ["branch_cancelled"], ["registrar"]),
  ...expand("PERSISTED", "DISPATCHED", ["gate_allow"], ["gate"]),
  ...expand("PERSISTED", "CANCELLED", ["branch_cancelled"], ["gate", "human"]),
  ...expand("DISPATCHED", "SETTLED_COMMITTED", ["receipt_ok"], ["dispatcher"]),
  ...expand("DISPATCHED", "SETTLED_FAILED", ["receipt_failed"], ["dispatcher"]),
  ...expand("DISPATCHED", "AMBIGUOUS", ["receipt_timeout", "receipt_lost"], ["dispatcher", "recovery"]),
  ...expand("AMBIGUOUS", "SETTLED_COMMITTED", ["reconciled_present", "replay_ok"], ["reconciler", "recovery", "human"]),
  ...expand("AMBIGUOUS", "SETTLED_FAILED", ["reconciled_absent", "replay_failed"], ["reconciler", "recovery", "human"]),
];

export function isLegalLifecycleEdge(e: LifecycleEdge): boolean {
  return LIFECYCLE_EDGES.some((x) => x.from === e.from && x.to === e.to && x.cause === e.cause && x.actor === e.actor);
}

/** The distinct (from, to) pairs that have at least one legal edge (10 of the 56 cells). */
export function legalLifecyclePairs(): ReadonlyArray<readonly [LifecycleState | null, LifecycleState]> {
  const seen = new Map<string, readonly [LifecycleState | null, LifecycleState]>();
  for (const e of LIFECYCLE_EDGES) seen.set(`${e.from ?? "∅"}>${e.to}`, [e.from, e.to]);
  return [...seen.values()];
}

export const Classification = {
  CONFIRMED_UNIQUE: "CONFIRMED_UNIQUE",
  DUPLICATE: "DUPLICATE",
  LOST: "LOST",
  ORPHANED: "ORPHANED",
  CONTRADICTED: "CONTRADICTED",
} as const;
export type Classification = (typeof Classification)[keyof typeof Classification];
export const CLASSIFICATIONS = Object.values(Classification);

export const FindingCreator = { reconciler: "reconciler", recovery: "recovery", sweep: "sweep", human: "human" } as const;
export type FindingCreator = (typeof FindingCreator)[keyof typeof FindingCreator];

/** The 6 legal (execution frontier × classification) attachment cells of the 35. ORPHANED never attaches to a record. */
export const CLASSIFICATION_ATTACHMENTS: ReadonlyArray<{ readonly frontier: LifecycleState; readonly classification: Classification }> = [
  { frontier: "SETTLED_COMMITTED", classification: "CONFIRMED_UNIQUE" },
  { frontier: "SETTLED_COMMITTED", classification: "DUPLICATE" },
  { frontier: "SETTLED_COMMITTED", classification: "CONTRADICTED" },
  { frontier: "SETTLED_FAILED", classification: "DUPLICATE" },
  { frontier: "SETTLED_FAILED", classification: "LOST" },
  { frontier: "SETTLED_FAILED", classification: "CONTRADICTED" },
];

export const ResolutionStatus = {
  OPEN: "OPEN",
  COMPENSATED: "COMPENSATED",
  REDISPATCHED: "REDISPATCHED",
  ACCEPTED_AS_IS: "ACCEPTED_AS_IS",
  ESCALATED_HUMAN: "ESCALATED_HUMAN",
  CLOSED: "CLOSED",
} as const;
export type ResolutionStatus = (typeof ResolutionStatus)[keyof typeof ResolutionStatus];
export const RESOLUTION_STATUSES = Object.values(ResolutionStatus);

export const ResolutionAction = {
  COMPENSATED: "COMPENSATED",
  REDISPATCHED: "REDISPATCHED",
  ACCEPTED_AS_IS: "ACCEPTED_AS_IS",
  ESCALATED_HUMAN: "ESCALATED_HUMAN",
} as const;
export type ResolutionAction = (typeof ResolutionAction)[keyof typeof ResolutionAction];
export const RESOLUTION_ACTIONS = Object.values(ResolutionAction);

export const ResolutionActor = { human: "human", policy_auto: "policy_auto", recovery: "recovery", system: "system" } as const;
export type ResolutionActor = (typeof ResolutionActor)[keyof typeof ResolutionActor];

/** The 10 legal resolution status edges. */
export const RESOLUTION_STATUS_EDGES: ReadonlyArray<{ readonly from: ResolutionStatus; readonly to: ResolutionStatus }> = [
  { from: "OPEN", to: "COMPENSATED" },
  { from: "OPEN", to: "REDISPATCHED" },
  { from: "OPEN", to: "ACCEPTED_AS_IS" },
  { from: "OPEN", to: "ESCALATED_HUMAN" },
  { from: "ESCALATED_HUMAN", to: "COMPENSATED" },
  { from: "ESCALATED_HUMAN", to: "REDISPATCHED" },
  { from: "ESCALATED_HUMAN", to: "ACCEPTED_AS_IS" },
  { from: "COMPENSATED", to: "CLOSED" },
  { from: "REDISPATCHED", to: "CLOSED" },
  { from: "ACCEPTED_AS_IS", to: "CLOSED" },
];

/** The 13 legal (classification × action) cells of the 20. DUPLICATE is never REDISPATCHED (I8). */
export const RESOLUTION_ACTION_CELLS: ReadonlyArray<{ readonly classification: Classification; readonly action: ResolutionAction }> = [
  { classification: "CONFIRMED_UNIQUE", action: "ACCEPTED_AS_IS" },
  { classification: "DUPLICATE", action: "COMPENSATED" },
  { classification: "DUPLICATE", action: "ACCEPTED_AS_IS" },
  { classification: "DUPLICATE", action: "ESCALATED_HUMAN" },
  { classification: "LOST", action: "REDISPATCHED" },
  { classification: "LOST", action: "ACCEPTED_AS_IS" },
  { classification: "LOST", action: "ESCALATED_HUMAN" },
  { classification: "ORPHANED", action: "COMPENSATED" },
  { classification: "ORPHANED", action: "ACCEPTED_AS_IS" },
  { classification: "ORPHANED", action: "ESCALATED_HUMAN" },
  { classification: "CONTRADICTED", action: "COMPENSATED" },
  { classification: "CONTRADICTED", action: "ACCEPTED_AS_IS" },
  { classification: "CONTRADICTED", action: "ESCALATED_HUMAN" },
];

export function isLegalResolution(classification: Classification, from: ResolutionStatus, to: ResolutionStatus): boolean {
  const edge = RESOLUTION_STATUS_EDGES.some((e) => e.from === from && e.to === to);
  if (!edge) return false;
  if (to === "CLOSED") return true;
  return RESOLUTION_ACTION_CELLS.some((c) => c.classification === classification && c.action === to);
}

export const EffectClass = { IDEMPOTENT: "IDEMPOTENT", REVERSIBLE: "REVERSIBLE", COMPENSABLE: "COMPENSABLE", IRREVERSIBLE: "IRREVERSIBLE" } as const;
export type EffectClass = (typeof EffectClass)[keyof typeof EffectClass];
export const EFFECT_CLASSES = Object.values(EffectClass);

export const TransportOutcome = { OK: "OK", FAILED: "FAILED", TIMEOUT: "TIMEOUT", LOST: "LOST" } as const;
export type TransportOutcome = (typeof TransportOutcome)[keyof typeof TransportOutcome];
export const FailureKind = { TERMINAL: "TERMINAL", RETRYABLE: "RETRYABLE" } as const;
export type FailureKind = (typeof FailureKind)[keyof typeof FailureKind];
export const ReceiptRecorder = { dispatcher: "dispatcher", reconciler: "reconciler", recovery: "recovery" } as const;
export type ReceiptRecorder = (typeof ReceiptRecorder)[keyof typeof ReceiptRecorder];
export const AttemptKind = { primary: "primary", recovery_redispatch: "recovery_redispatch", c1_replay_probe: "c1_replay_probe" } as const;
export type AttemptKind = (typeof AttemptKind)[keyof typeof AttemptKind];
export const ExecutionOpener = { register: "register", retry_after_failure: "retry_after_failure", resolve_redispatch: "resolve_redispatch" } as const;
export type ExecutionOpener = (typeof ExecutionOpener)[keyof typeof ExecutionOpener];
export const ProbeKind = { reconcile_open: "reconcile_open", audit: "audit", sweep: "sweep" } as const;
export type ProbeKind = (typeof ProbeKind)[keyof typeof ProbeKind];
export const ProbeResult = { PRESENT: "PRESENT", ABSENT: "ABSENT", INDETERMINATE: "INDETERMINATE" } as const;
export type ProbeResult = (typeof ProbeResult)[keyof typeof ProbeResult];
export const GateCheck = { deny_list: "deny_list", authority: "authority", branch_lineage: "branch_lineage", dedup: "dedup" } as const;
export type GateCheck = (typeof GateCheck)[keyof typeof GateCheck];
export const GATE_CHECK_ORDER: readonly GateCheck[] = ["deny_list", "authority", "branch_lineage", "dedup"];
export const GateVariant = {
  dispatch: "dispatch",
  recovery_redispatch: "recovery_redispatch",
  resolve_redispatch: "resolve_redispatch",
  retry_after_failure: "retry_after_failure",
  c1_replay_probe: "c1_replay_probe",
} as const;
export type GateVariant = (typeof GateVariant)[keyof typeof GateVariant];

/** SQLSTATEs raised by the locked SQL functions. */
export const LedgerSqlState = {
  DT001: "DT001", // illegal lifecycle edge
  DT002: "DT002", // stale expected state (checked before edge legality)
  DT003: "DT003", // illegal finding attachment
  DT004: "DT004", // illegal resolution
  DT005: "DT005", // precondition failed
} as const;
