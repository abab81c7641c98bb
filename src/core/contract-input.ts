/**
 * core/contract-input — the static type of an intent contract as a caller passes it to
 * `register`. Run-time validation (core/contract) is the authority; this type exists so the
 * compiler already refuses what can never be a contract — in particular an advisory
 * proposal or its payload (invariant I9: advisory output never reaches a mutation API).
 * Imports: core/state-tables (types only).
 */
import type { EffectClass } from "./state-tables.js";

/** Keys an advisory value carries; a mutation input may never have them. */
export interface NoAdvisoryKeys {
  readonly __irrevon_advisory__?: never;
  readonly proposed_action?: never;
  readonly proposedAction?: never;
}

/** An intent contract as submitted (see docs and reference §1.1 for every limit). */
export interface IntentContractInput extends NoAdvisoryKeys {
  readonly schema_version: string;
  readonly stable_ids: Readonly<Record<string, string>>;
  readonly effect_type: string;
  readonly scope: string;
  /** IDEMPOTENT, REVERSIBLE, COMPENSABLE or IRREVERSIBLE. */
  readonly effect_class: EffectClass;
  readonly adapter_id: string;
  /** Model-written arguments: the payload, never identity. */
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly authority_ref: string;
  readonly stamped_at: string;
  readonly branch_ref?: string;
  readonly event_time?: string;
}
