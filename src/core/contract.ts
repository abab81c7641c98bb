/**
 * core/contract — validates an intent contract in the order of reference §1.2 and returns
 * a ValidatedIntent whose `parameters` are ModelTainted:
 *   0. advisory data refused (I9; the reference did this in the registrar), under the same
 *      depth and node bounds as step 2 so no walk ever reads more than the bounds allow
 *   1. not a plain object → contract_invalid
 *   2. preflight bounds (iterative; depth, nodes, bytes, budget, numbers, Unicode)
 *   3. closed schema (every issue, sorted by path, in details.errors)
 *   4. parameters_digest = canonicalDigest(parameters)
 *   5. parameters copied, deep-frozen and wrapped in ModelTainted
 * and derives the identity. Every rejection is a ContractInvalidError carrying the JSON
 * path, the limit and the value's kind; nothing here performs I/O, so nothing is written.
 *
 * Imports: core only.
 */
import { rejectAdvisory } from "./advisory-guard.js";
import { canonicalDigest, type JsonValue } from "./canonical.js";
import { checkContractSchema } from "./contract-schema.js";
import { ContractInvalidError, IrrevonError } from "./errors.js";
import { deriveIdentity, type DerivedIdentity } from "./identity.js";
import { CONTRACT_BOUNDS, isPlainObject, preflight, valueKindOf } from "./preflight.js";
import type { EffectClass } from "./state-tables.js";
import { taint, type ModelTainted } from "./taint.js";

/** A JSON object (the shape of `parameters`). */
export type JsonObject = { readonly [key: string]: JsonValue };

/** An intent contract that passed every check. */
export interface ValidatedIntent {
  readonly schemaVersion: "1";
  readonly stableIds: Readonly<Record<string, string>>;
  readonly effectType: string;
  readonly scope: string;
  readonly effectClass: EffectClass;
  readonly adapterId: string;
  /** Model-written arguments: readable only through `revealForAdapter`. */
  readonly parameters: ModelTainted<JsonObject>;
  /** `sha256:<hex>` of the JCS form of `parameters`. */
  readonly parametersDigest: string;
  readonly authorityRef: string;
  /** As given; compare with `sameInstant`, never as strings. */
  readonly stampedAt: string;
  readonly branchRef: string | null;
  /** As given; compare with `sameInstant`, never as strings. */
  readonly eventTime: string | null;
  readonly identity: DerivedIdentity;
}

function deepFreezeCopy(value: JsonObject): JsonObject {
  // structuredClone is safe here: preflight proved the value is plain JSON at most 32 deep.
  const copy = structuredClone(value);
  const queue: object[] = [copy];
  while (queue.length > 0) {
    const next = queue.pop() as Record<string, unknown>;
    Object.freeze(next);
    for (const child of Object.values(next)) {
      if (typeof child === "object" && child !== null) queue.push(child);
    }
  }
  return copy;
}

function optionalString(contract: Record<string, unknown>, key: string): string | null {
  const value = contract[key];
  return typeof value === "string" ? value : null;
}

/**
 * Validates `raw` (typically `JSON.parse` output) as an intent contract. Throws
 * ContractInvalidError for any contract failure and IrrevonError `advisory_rejected` for
 * advisory data; otherwise returns a frozen ValidatedIntent.
 */
export function validateIntentContract(raw: unknown): ValidatedIntent {
  // The advisory walk is the first read of raw input, so it carries the preflight's depth and
  // node bounds: a 100,000-deep value is refused after O(32) reads, not walked to the bottom.
  rejectAdvisory(raw, CONTRACT_BOUNDS);
  if (!isPlainObject(raw)) {
    throw new ContractInvalidError(
      "intent contract must be a JSON object",
      "$",
      "type",
      valueKindOf(raw),
      {
        limit_value: "object",
      },
    );
  }
  preflight(raw, CONTRACT_BOUNDS);

  const issues = checkContractSchema(raw);
  const first = issues[0];
  if (first !== undefined) {
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    throw new ContractInvalidError(
      `intent contract invalid at ${first.path}: ${first.message}${more}`,
      first.path,
      first.limit,
      first.valueKind,
      {
        limit_value: first.limitValue,
        errors: issues.map(({ path, message }) => ({ path, message })),
      },
    );
  }

  const params = raw["parameters"] as JsonObject;
  let parametersDigest: string;
  try {
    parametersDigest = canonicalDigest(params);
  } catch (error) {
    if (error instanceof IrrevonError) throw error;
    throw new ContractInvalidError(
      "parameters have no canonical form",
      "$.parameters",
      "canonical_form",
      "object",
      {
        cause: String(error),
      },
    );
  }

  const stableIds = Object.freeze(
    Object.fromEntries(Object.entries(raw["stable_ids"] as Record<string, string>)),
  ) as Readonly<Record<string, string>>;
  const effectType = raw["effect_type"] as string;
  const scope = raw["scope"] as string;

  return Object.freeze({
    schemaVersion: "1",
    stableIds,
    effectType,
    scope,
    effectClass: raw["effect_class"] as EffectClass,
    adapterId: raw["adapter_id"] as string,
    parameters: taint(deepFreezeCopy(params)),
    parametersDigest,
    authorityRef: raw["authority_ref"] as string,
    stampedAt: raw["stamped_at"] as string,
    branchRef: optionalString(raw, "branch_ref"),
    eventTime: optionalString(raw, "event_time"),
    identity: deriveIdentity({ effect_type: effectType, scope, stable_ids: stableIds }),
  });
}
