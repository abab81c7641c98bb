/**
 * core/identity — intent identity from business facts only (reference §1.3, design D4):
 * `intent_id = hex(SHA-256(JCS({effect_type, scope, stable_ids})))`, `operation_id =
 * intent_id:step`, idempotency key = operation_id verbatim. Identity version 1 is
 * byte-compatible with the reference (the vectors in test/fixtures/identity-vectors/).
 *
 * Invariant I1: nothing a model wrote can reach these ids. This file therefore never imports
 * taint.ts or contract.ts (a dependency-cruiser rule checks that), its input type cannot be
 * satisfied by a ModelTainted value, and a tainted value smuggled in at run time is refused.
 *
 * Imports: core/errors, core/canonical, core/preflight.
 */
import { canonicalJson, sha256Hex } from "./canonical.js";
import { ContractInvalidError, ErrorCode, IrrevonError } from "./errors.js";
import {
  formatJsonPath,
  isPlainObject,
  isTaintMarked,
  refuseTainted,
  valueKindOf,
  type PathSegment,
} from "./preflight.js";

/** The identity procedure version stored on every record. Bump only with a new procedure. */
export const IDENTITY_VERSION = 1;
export type IdentityVersion = typeof IDENTITY_VERSION;

/**
 * The three identity members, exactly as the contract spells them. The optional `never`
 * member is the other half of ModelTainted's brand (`__irrevon_model_tainted: true`), so
 * passing a tainted value (or a tainted member) is a type error; an explicit `as` cast is
 * still caught at run time.
 */
export interface IdentityTuple {
  readonly effect_type: string;
  readonly scope: string;
  readonly stable_ids: Readonly<Record<string, string>>;
  readonly __irrevon_model_tainted?: never;
}

/** A derived identity: the id, its exact preimage and the procedure version. */
export interface DerivedIdentity {
  /** 64 lowercase hex characters. */
  readonly intentId: string;
  /** The exact JCS text that was hashed (stored as the record's preimage). */
  readonly canonical: string;
  readonly identityVersion: IdentityVersion;
}

const INTENT_ID = /^[0-9a-f]{64}$/;
const OPERATION_ID = /^([0-9a-f]{64}):(0|[1-9][0-9]*)$/;

function invalid(
  segments: readonly PathSegment[],
  limit: string,
  value: unknown,
  what: string,
): never {
  const path = formatJsonPath(segments);
  throw new ContractInvalidError(`identity ${what} at ${path}`, path, limit, valueKindOf(value));
}

function identityString(value: unknown, segments: readonly PathSegment[]): string {
  if (isTaintMarked(value)) refuseTainted(formatJsonPath(segments));
  if (typeof value !== "string") invalid(segments, "type", value, "member must be a string");
  // Hashed byte-exact: no trimming, case folding or Unicode normalisation — only emptiness
  // is refused, because "" and an absent member must never be confusable.
  if (value.length === 0) invalid(segments, "min_length", value, "member must not be empty");
  return value;
}

/**
 * Derives the intent identity of `{effect_type, scope, stable_ids}`. Only those three
 * members are read; anything else on the argument is ignored and never hashed. Throws
 * ContractInvalidError for a wrong shape or empty string and taint_violation for a
 * ModelTainted value anywhere in the tuple.
 */
export function deriveIdentity(tuple: IdentityTuple): DerivedIdentity {
  const raw: unknown = tuple;
  if (isTaintMarked(raw)) refuseTainted("$");
  if (typeof raw !== "object" || raw === null) invalid([], "type", raw, "tuple must be an object");
  const members = raw as Record<string, unknown>;
  const effectType = identityString(members["effect_type"], ["effect_type"]);
  const scope = identityString(members["scope"], ["scope"]);

  const stableIds = members["stable_ids"];
  if (isTaintMarked(stableIds)) refuseTainted(formatJsonPath(["stable_ids"]));
  if (!isPlainObject(stableIds))
    invalid(["stable_ids"], "type", stableIds, "stable_ids must be an object");
  const keys = Object.keys(stableIds);
  if (keys.length === 0)
    invalid(["stable_ids"], "min_properties", stableIds, "stable_ids must not be empty");
  // A fresh copy: fixes the values we hash (no getter can answer twice) and keeps a
  // "__proto__" key an ordinary own member.
  const entries = keys.map((key): [string, string] => {
    if (key.length === 0)
      invalid(["stable_ids", key], "min_length", key, "stable-id key must not be empty");
    return [key, identityString(stableIds[key], ["stable_ids", key])];
  });
  const canonical = canonicalJson({
    effect_type: effectType,
    scope,
    stable_ids: Object.fromEntries(entries),
  });
  return Object.freeze({
    intentId: sha256Hex(canonical),
    canonical,
    identityVersion: IDENTITY_VERSION,
  });
}

/** True for a 64-lowercase-hex intent id. */
export function isIntentId(value: unknown): value is string {
  return typeof value === "string" && INTENT_ID.test(value);
}

/** `<intent_id>:<step>`; `step` is a non-negative safe integer (0 at registration). */
export function operationId(intentId: string, step: number): string {
  if (!isIntentId(intentId)) {
    throw new ContractInvalidError(
      "intent id must be 64 lowercase hex",
      "$.intent_id",
      "pattern",
      valueKindOf(intentId),
    );
  }
  if (!Number.isSafeInteger(step) || step < 0) {
    throw new ContractInvalidError(
      "step must be a non-negative safe integer",
      "$.step",
      "safe_integer",
      valueKindOf(step),
    );
  }
  return `${intentId}:${step}`;
}

/** Splits an operation id; throws ContractInvalidError if it is malformed. */
export function parseOperationId(value: string): {
  readonly intentId: string;
  readonly step: number;
} {
  const match = typeof value === "string" ? OPERATION_ID.exec(value) : null;
  const step = match ? Number(match[2]) : Number.NaN;
  if (!match || !Number.isSafeInteger(step)) {
    throw new ContractInvalidError(
      "operation id must be <64 lowercase hex>:<step>",
      "$.operation_id",
      "pattern",
      valueKindOf(value),
    );
  }
  return { intentId: match[1] as string, step };
}

/** True for a well-formed operation id (its step a safe integer). */
export function isOperationId(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const match = OPERATION_ID.exec(value);
  return match !== null && Number.isSafeInteger(Number(match[2]));
}

/**
 * The idempotency key sent to a destination: the operation id verbatim (reference §1.3; a
 * CHECK constraint enforces the same equality in SQL). Only validates.
 */
export function idempotencyKey(operation: string): string {
  parseOperationId(operation);
  return operation;
}

/** True when `canonical` hashes to `intentId` (the stored preimage still matches its id). */
export function preimageMatches(intentId: string, canonical: string): boolean {
  return isIntentId(intentId) && sha256Hex(canonical) === intentId;
}

/**
 * D4 collision guard: the same intent id with a different preimage is a hard error
 * (`identity_collision`), never a merge. Different ids are not a collision.
 */
export function assertNoIdentityCollision(
  stored: { readonly intentId: string; readonly canonical: string },
  incoming: { readonly intentId: string; readonly canonical: string },
): void {
  if (stored.intentId !== incoming.intentId || stored.canonical === incoming.canonical) return;
  throw new IrrevonError(
    ErrorCode.identity_collision,
    `intent id ${stored.intentId} has two different preimages`,
    {
      details: {
        intent_id: stored.intentId,
        stored_preimage_sha256: sha256Hex(stored.canonical),
        incoming_preimage_sha256: sha256Hex(incoming.canonical),
      },
    },
  );
}
