/**
 * core/canonical — RFC 8785 (JCS) canonical bytes and SHA-256 digests. Every digest the
 * ledger stores (`intent_id`, `parameters_digest`, gate input digests) is computed here,
 * through the `canonicalize` package (one of the four implementations that produced the
 * identity vectors; see docs/decisions/0001-identity-procedure.md).
 *
 * The value is checked first (iteratively) to be plain I-JSON: `canonicalize` would quietly
 * call `toJSON` (a Date digests as whatever its clock says), turn array holes into null and
 * escape lone surrogates, each a way for different inputs to share a digest. Object members
 * whose value is `undefined` are omitted, exactly as JSON.stringify does, so optional fields
 * built in code digest like their JSON.
 *
 * Imports: core/errors, core/preflight (never taint or contract: identity depends on this file).
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { ContractInvalidError } from "./errors.js";
import { preflight, utf8ByteLength, type JsonBounds } from "./preflight.js";

/** A JSON value as JCS sees it. */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * JCS itself has no size limits, so only structure is checked. The depth cap stays because
 * `canonicalize` recurses: far deeper input would overflow the stack with an untyped error.
 */
export const CANONICAL_BOUNDS: JsonBounds = {
  maxDepth: 1_000,
  maxNodes: Number.POSITIVE_INFINITY,
  maxStringBytes: Number.POSITIVE_INFINITY,
  maxKeyBytes: Number.POSITIVE_INFINITY,
  maxIntegerMagnitude: Number.POSITIVE_INFINITY,
  maxScalarBudgetBytes: Number.POSITIVE_INFINITY,
  omitUndefinedMembers: true,
};

const DIGEST_PREFIX = "sha256:";
const utf8 = new TextEncoder();

/**
 * The exact RFC 8785 text of `value` (members sorted by UTF-16 code units, ECMAScript number
 * form, no whitespace). Throws ContractInvalidError (with the JSON path) for anything that is
 * not plain JSON, and taint_violation for a ModelTainted value.
 */
export function canonicalJson(value: unknown): string {
  preflight(value, CANONICAL_BOUNDS);
  const text = canonicalize(value);
  if (text === undefined) {
    // Unreachable after preflight (only undefined/functions/symbols serialise to undefined).
    throw new ContractInvalidError("value has no JSON form", "$", "json_value", "other");
  }
  return text;
}

/** The RFC 8785 canonical bytes (UTF-8) of `value`. */
export function canonicalBytes(value: unknown): Uint8Array {
  return utf8.encode(canonicalJson(value));
}

/**
 * Lowercase hex SHA-256 of bytes, or of a string's UTF-8 encoding. A string with a lone
 * surrogate is refused: UTF-8 encoding would silently replace it with U+FFFD, so two
 * different strings would share a digest.
 */
export function sha256Hex(data: Uint8Array | string): string {
  if (typeof data === "string" && utf8ByteLength(data) < 0) {
    throw new ContractInvalidError(
      "string holds a lone surrogate",
      "$",
      "unicode_scalar",
      "string",
    );
  }
  return createHash("sha256").update(data).digest("hex");
}

/** `"sha256:" + hex(SHA-256(JCS(value)))` — the digest format of every stored digest. */
export function canonicalDigest(value: unknown): string {
  return DIGEST_PREFIX + sha256Hex(canonicalBytes(value));
}

const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** True for a string in the `sha256:<64 lowercase hex>` digest format. */
export function isDigest(value: unknown): value is string {
  return typeof value === "string" && DIGEST_PATTERN.test(value);
}
