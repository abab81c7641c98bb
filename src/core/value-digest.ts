/**
 * core/value-digest — how a stable-id VALUE is shown to people: `sha256:` + hex SHA-256 of
 * its raw UTF-8 bytes (not JCS), keys kept. Stable ids are business identifiers (order and
 * customer numbers); the CLI and the workbench render them as digests unless the operator
 * explicitly asks `irrevon inspect --reveal`. Imports: core.
 */
import { sha256Hex } from "./canonical.js";

/** The digest shown in place of one stable-id value. */
export function stableIdValueDigest(value: string): string {
  return `sha256:${sha256Hex(value)}`;
}

/** Stable ids with every value replaced by its digest. */
export function digestStableIds(stableIds: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(stableIds)) out[key] = stableIdValueDigest(String(value));
  return out;
}

/**
 * An inspect-shaped document with its record's stable-id values digested and the canonical
 * preimage (which embeds them) replaced by its own digest. Nothing else is touched.
 */
export function redactRecordValues<T extends { readonly record: Readonly<Record<string, unknown>> }>(doc: T): T {
  const record = { ...doc.record };
  const stableIds = record["stable_ids"];
  if (stableIds !== null && typeof stableIds === "object") {
    record["stable_ids"] = digestStableIds(stableIds as Record<string, unknown>);
  }
  if (typeof record["contract_canonical"] === "string") {
    record["contract_canonical"] = `sha256:${sha256Hex(record["contract_canonical"])}`;
    record["contract_canonical_redacted"] = true;
  }
  return { ...doc, record };
}
