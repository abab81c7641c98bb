/**
 * engine/scope-slot — whether a claim takes the (scope, effect_type) slot, and the bounded
 * wait for a busy one (docs/decisions/0008-scope-slot.md). The slot keeps at most one attempt
 * with an unknown outcome per (scope, effect_type), so that whatever the destination later
 * shows in that scope can be charged to the one operation that may have caused it. A
 * destination that attributes every effect exactly — it stamps the operation id as the client
 * ref and can be queried by it, attribution mode "exact" first — needs no such guess, so with
 * `scopeSlot: "inexact_attribution"` distinct effects in one scope dispatch concurrently there.
 * Imports: adapters, engine.
 */
import type { CapabilityDeclaration } from "../adapters/contract.js";
import type { EngineConfig } from "./config.js";

/** True when the declaration attributes a destination effect to its operation exactly. */
export function attributesExactly(declaration: CapabilityDeclaration): boolean {
  return (
    declaration.queryable.supported &&
    declaration.queryable.by.includes("client_ref") &&
    declaration.client_ref_field !== null &&
    declaration.attribution?.modes[0] === "exact"
  );
}

/** Whether a claim on `declaration`'s destination takes the slot under `config`. */
export function usesScopeSlot(config: EngineConfig, declaration: CapabilityDeclaration): boolean {
  return config.scopeSlot === "always" || !attributesExactly(declaration);
}

/** First pause of the bounded wait; doubles up to {@link WAIT_STEP_MAX_MS}. */
const WAIT_STEP_FIRST_MS = 20;
const WAIT_STEP_MAX_MS = 250;

/** The pause before the next look at a busy slot, or null when the wait is over. */
export function nextSlotPause(waitedMs: number, budgetMs: number, step: number): number | null {
  const left = budgetMs - waitedMs;
  if (left <= 0) return null;
  return Math.min(left, Math.min(WAIT_STEP_MAX_MS, WAIT_STEP_FIRST_MS * 2 ** step));
}
