/**
 * bench/faults/episode — builds the episode script an arm sees for one trial from the
 * workload trial, its injections and the unit's variant set. The oracle labels
 * (`legitimate`, `eligible_for_dispatch`) are dropped here: an Episode has no field for them.
 * Imports: bench/fault-model, bench/fixtures/documents (types), bench/arms/arm (types).
 */
import { IrrevonError } from "../../core/errors.js";
import type { Episode } from "../arms/arm.js";
import type { EffectClass } from "../fault-model.js";
import type { VariantSet, WorkloadTrial } from "../fixtures/documents.js";
import type { FaultInjection } from "./install-fault.js";

/** Unit facts an episode needs that a trial does not carry. */
export interface EpisodeUnit {
  /** The workload id (names the cancelled branch: `branch-<workload_id>-t<i>`). */
  readonly workload_id: string;
  readonly effect_class: EffectClass;
}

/**
 * The Episode for a trial. `unit` defaults to IRREVERSIBLE (every dev and extension cell)
 * and a branch ref without the workload id; the runner passes it.
 */
export function episodeFor(
  trial: WorkloadTrial,
  injections: readonly FaultInjection[],
  variants: VariantSet | null,
  unit?: EpisodeUnit,
): Episode {
  const injection = injections.find((i) => i.trial_index === trial.trial_index) ?? null;
  const fault = injection?.fault ?? null;
  const variantId = injection?.param.variant_id;
  const variant =
    variantId === undefined ? null : (variants?.variants.find((v) => v.variant_id === variantId) ?? null);
  if (variantId !== undefined && variant === null) {
    throw new IrrevonError(
      "config_invalid",
      `trial ${trial.trial_index}: injection names variant '${variantId}', which the unit's variant set does not hold; regenerate the split`,
      { details: { field: "param.variant_id", value: variantId } },
    );
  }
  const branchCancelled = fault === "branch-cancellation";
  const branchOwner = unit?.workload_id ?? "unit";
  return {
    trial_index: trial.trial_index,
    stable_ids: { ...trial.stable_ids },
    effect_type: trial.effect_type,
    effect_class: unit?.effect_class ?? "IRREVERSIBLE",
    scope: trial.scope,
    parameters: structuredClone(trial.parameters),
    authority_ref: trial.authority_ref,
    fault,
    retries: injection?.param.retries ?? 1,
    resynth_parameters: variant === null ? null : structuredClone(variant.parameters),
    resynth_stable_ids: variant === null ? null : { ...variant.stable_ids },
    authority_expired: fault === "stale-authorization",
    branch_cancelled: branchCancelled,
    branch_ref: branchCancelled ? `branch-${branchOwner}-t${trial.trial_index}` : null,
  };
}
