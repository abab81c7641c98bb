/**
 * engine/reconcile-keys — which key to ask the destination by (D7). Strongest first:
 * the client ref (= operation_id, only if the declaration stamps it somewhere AND can query
 * by it), then the destination ref a receipt recorded, then a declared stable-id projection
 * (`stable_id:<name>`). Only keys the declaration's `queryable.by` lists are used; with none
 * left, nothing covers the effect and absence can never be confirmed. Imports: core, adapters.
 */
import type { CapabilityDeclaration, QueryKey } from "../adapters/contract.js";
import { canonicalJson } from "../core/canonical.js";

/** The chosen key with how it was derived, for probe evidence. */
export interface ChosenKey {
  readonly key: QueryKey;
  readonly strength: "client_ref" | "destination_ref" | "stable_id";
  /** JSON form stored in status_probes.query_keys. */
  readonly stored: Readonly<Record<string, string>>;
}

/** Every usable key, strongest first. */
export function coveringKeys(
  declaration: CapabilityDeclaration,
  operationId: string,
  destinationRef: string | null,
  stableIds: Readonly<Record<string, string>>,
): ChosenKey[] {
  if (!declaration.queryable.supported) return [];
  const by = declaration.queryable.by;
  const keys: ChosenKey[] = [];
  if (declaration.client_ref_field !== null && by.includes("client_ref")) {
    keys.push({
      key: { kind: "client_ref", value: operationId },
      strength: "client_ref",
      stored: { kind: "client_ref", value: operationId },
    });
  }
  if (destinationRef !== null && by.includes("destination_ref")) {
    keys.push({
      key: { kind: "destination_ref", value: destinationRef },
      strength: "destination_ref",
      stored: { kind: "destination_ref", value: destinationRef },
    });
  }
  for (const entry of by) {
    if (!entry.startsWith("stable_id:")) continue;
    const name = entry.slice("stable_id:".length);
    const value = stableIds[name];
    if (value === undefined) continue;
    keys.push({
      key: { kind: "stable_id", name, value },
      strength: "stable_id",
      stored: { kind: "stable_id", name, value },
    });
  }
  return keys;
}

/** The strongest usable key, or null when nothing covers the effect. */
export function strongestKey(
  declaration: CapabilityDeclaration,
  operationId: string,
  destinationRef: string | null,
  stableIds: Readonly<Record<string, string>>,
): ChosenKey | null {
  return coveringKeys(declaration, operationId, destinationRef, stableIds)[0] ?? null;
}

/** True when two stored key sets name the same keys (both ABSENT reads must use one key). */
export function sameKeys(
  a: ReadonlyArray<Readonly<Record<string, string>>>,
  b: ReadonlyArray<Readonly<Record<string, string>>>,
): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
