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
