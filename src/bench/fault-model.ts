/**
 * bench/fault-model — the benchmark's arm-neutral vocabulary: fault kinds and their timeline
 * anchors, capability tiers, effect classes, destination kinds and strata. It holds no
 * truth: which trials are legitimate or eligible lives with the fixtures (bench/fixtures),
 * which arms may never import. Imports: nothing.
 */

/** The seven injected faults of the reference design, in the order it lists them. */
export const DEV_FAULT_KINDS = [
  "crash-before-persist",
  "crash-after-effect-before-response",
  "response-lost",
  "retry-storm",
  "semantic-resynthesis",
  "stale-authorization",
  "branch-cancellation",
] as const;

/**
 * Extension faults (docs/decisions/0012): they separate arms only where the destination's
 * truth separates them. They live in the extension split (bench/fixtures/ext), never in dev.
 * - `read-lag`: the destination commits, drops the response and shows the effect to queries
 *   only after a delay, so an immediate status check reads ABSENT;
 * - `agent-replan`: the agent restarts after a lost response and retries the same business
 *   intent (same stable ids, new wording) under a new workflow/operation id;
 * - `new-intent`: a genuinely different order whose parameters equal an earlier one's;
 * - `c3-real-effect`: a notify-only destination commits and answers 5xx; nobody can prove
 *   absence.
 */
export const EXT_FAULT_KINDS = ["read-lag", "agent-replan", "new-intent", "c3-real-effect"] as const;

/** Seconds the read-lag cell's destination hides a committed create from status queries and listings. */
export const READ_LAG_SECONDS = 1;

/** Every fault kind: the seven dev faults, then the extension faults. */
export const FAULT_KINDS = [...DEV_FAULT_KINDS, ...EXT_FAULT_KINDS] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type DevFaultKind = (typeof DEV_FAULT_KINDS)[number];
export type ExtFaultKind = (typeof EXT_FAULT_KINDS)[number];

/**
 * Arm-neutral timeline points a fault is anchored to. The harness records anchors but never
 * interprets them; behaviour is keyed on the fault kind. `T_INTENT` exists but no fault uses it.
 */
export const ANCHORS = ["T_INTENT", "T_FIRST_DURABLE", "T_DISPATCH", "T_RESPONSE"] as const;
export type Anchor = (typeof ANCHORS)[number];

/** Where each fault fires on the timeline. */
export const FAULT_ANCHOR: Readonly<Record<FaultKind, Anchor>> = {
  "crash-before-persist": "T_FIRST_DURABLE",
  "crash-after-effect-before-response": "T_RESPONSE",
  "response-lost": "T_RESPONSE",
  "retry-storm": "T_DISPATCH",
  "semantic-resynthesis": "T_DISPATCH",
  "stale-authorization": "T_DISPATCH",
  "branch-cancellation": "T_DISPATCH",
  "read-lag": "T_RESPONSE",
  "agent-replan": "T_RESPONSE",
  "new-intent": "T_INTENT",
  "c3-real-effect": "T_RESPONSE",
};

/**
 * The four faults that can separate a ledger from its alternatives (the confirmatory
 * stratum's faults); the other three act before any dispatch.
 */
export const DISCRIMINATING_FAULTS: readonly FaultKind[] = [
  "semantic-resynthesis",
  "response-lost",
  "crash-after-effect-before-response",
  "retry-storm",
];

/** Destination capability tiers: C1 native idempotency, C2 queryable, C3 opaque. */
export const TIERS = ["C1", "C2", "C3"] as const;
export type Tier = (typeof TIERS)[number];

export const EFFECT_CLASSES = ["IDEMPOTENT", "REVERSIBLE", "COMPENSABLE", "IRREVERSIBLE"] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];

export const DESTINATION_KINDS = ["live", "refdest"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/**
 * Analysis strata. S-CONF: discriminating faults × IRREVERSIBLE × C2 on a live sandbox, the
 * only stratum confirmatory claims come from; S-REF: any reference-destination cell, never
 * pooled into confirmatory claims.
 */
export const STRATA = ["S-CONF", "S-PRE", "S-CLASS", "S-C1", "S-C3", "S-REF"] as const;
export type Stratum = (typeof STRATA)[number];

/** One cell of the design. */
export interface Cell {
  readonly fault: FaultKind;
  readonly effect_class: EffectClass;
  readonly tier: Tier;
  readonly destination_kind: DestinationKind;
  readonly stratum: Stratum;
}

/** `<tier>/<destination_kind>/<fault>/<EFFECT_CLASS>`, e.g. `C2/refdest/response-lost/IRREVERSIBLE`. */
export function cellId(
  cell: Pick<Cell, "tier" | "destination_kind" | "fault" | "effect_class">,
): string {
  return `${cell.tier}/${cell.destination_kind}/${cell.fault}/${cell.effect_class}`;
}

/** `<tier lowercase>.<fault without dashes>.<first four letters of the class, lowercase>`. */
export function cellSlug(cell: Pick<Cell, "tier" | "fault" | "effect_class">): string {
  const fault = cell.fault.replaceAll("-", "");
  return `${cell.tier.toLowerCase()}.${fault}.${cell.effect_class.slice(0, 4).toLowerCase()}`;
}

/** Parses a cell id back into its parts, or returns undefined when it is not one. */
export function parseCellId(
  id: string,
): Pick<Cell, "tier" | "destination_kind" | "fault" | "effect_class"> | undefined {
  const [tier, kind, fault, effectClass, ...rest] = id.split("/");
  if (rest.length > 0) return undefined;
  if (!includes(TIERS, tier) || !includes(DESTINATION_KINDS, kind)) return undefined;
  if (!includes(FAULT_KINDS, fault) || !includes(EFFECT_CLASSES, effectClass)) return undefined;
  return { tier, destination_kind: kind, fault, effect_class: effectClass };
}

function includes<T extends string>(set: readonly T[], value: string | undefined): value is T {
  return value !== undefined && (set as readonly string[]).includes(value);
}

/** What an arm reports for one trial (reference design §3.1). */
export const ARM_OUTCOMES = [
  "committed",
  "failed",
  "suppressed",
  "refused",
  "ambiguous-unresolved",
  "escalated",
  "arm-crashed",
  "unresolved-unknown",
] as const;
export type ArmOutcome = (typeof ARM_OUTCOMES)[number];

/** What scoring needs to know about an arm (from its spec, never from its behaviour). */
export interface ArmScoringFlags {
  /** The arm has a notion of "I do not know whether it happened". */
  readonly ambiguityConcept: boolean;
  /** The arm claims what the destination holds (`unique` / `absent`). */
  readonly classifies: boolean;
  /** The arm sends the same idempotency key on every attempt of an intent. */
  readonly sendsStableKey: boolean;
}
