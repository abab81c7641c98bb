/**
 * refdest/json-limits — the structural limits the destination enforces on what it accepts,
 * shared by the HTTP server and the in-process entry points: body and payload byte limits,
 * nesting depth, and a JSON parse that never throws. Hostile bodies become 4xx answers here,
 * before any operation runs, so they cannot touch the clock or the truth log. Imports: nothing.
 */

/** Largest accepted payload, measured as compact JSON UTF-8 bytes. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;
/** Largest accepted request body: a full payload plus room for the envelope fields. */
export const MAX_BODY_BYTES = MAX_PAYLOAD_BYTES + 16 * 1024;
/** Deepest accepted nesting of a body: a payload nested 64 deep plus the envelope object. */
export const MAX_JSON_DEPTH = 65;

export type JsonParse =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** Parse JSON text; reports bad syntax and excessive nesting instead of throwing. */
export function parseJsonText(text: string): JsonParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "body is not valid JSON" };
  }
  if (jsonDepth(value) > MAX_JSON_DEPTH)
    return { ok: false, reason: `nesting deeper than ${MAX_JSON_DEPTH}` };
  return { ok: true, value };
}

/** Nesting depth of a parsed JSON value, computed iteratively (no stack risk). */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: Array<{ readonly v: unknown; readonly d: number }> = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop() as { readonly v: unknown; readonly d: number };
    if (v === null || typeof v !== "object") continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > MAX_JSON_DEPTH) return max; // no need to walk further
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: child, d: depth });
  }
  return max;
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Compact JSON UTF-8 byte length of a parsed value. */
export function compactJsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}
