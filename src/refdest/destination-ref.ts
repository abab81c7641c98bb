/**
 * refdest/destination-ref — deterministic identifiers and digests of the reference destination.
 * `destination_ref = "dest_" + first 32 hex of sha256("<seed>:<n>")`, n = stored-effect counter
 * (seed 777, n 1 ⇒ dest_4dec67739b2a3b88d94e7f9502227114). Digests are `sha256:` over RFC 8785
 * (JCS) bytes, the same form the ledger uses, so the oracle can compare them. Imports: core.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { IrrevonError } from "../core/errors.js";

/** The destination ref of the n-th stored effect under a seed. */
export function deriveDestinationRef(seed: number, n: number): string {
  return "dest_" + createHash("sha256").update(`${seed}:${n}`, "utf8").digest("hex").slice(0, 32);
}

/** RFC 8785 canonical JSON text of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new IrrevonError("internal", "value has no canonical JSON form", {
      details: { kind: typeof value },
    });
  }
  return text;
}

/** `sha256:<hex>` over the canonical bytes of a JSON value. */
export function canonicalDigest(value: unknown): string {
  return "sha256:" + createHash("sha256").update(canonicalJson(value), "utf8").digest("hex");
}
