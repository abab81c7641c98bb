/**
 * workbench/cursor — keyset pagination cursors. Effects are ordered (created_at, effect_id)
 * descending; the cursor is the last row's key as URL-safe base64 of
 * `{"c":created_at,"id":effect_id}` (reference §10.1), with created_at at microsecond
 * precision so no row is skipped or repeated between pages. Findings are ordered by id
 * descending and their cursor is the last finding's numeric id. A cursor that does not
 * decode is a bad parameter, never a server error. Imports: core.
 */
import { isRfc3339 } from "../core/rfc3339.js";

/** Position after the last effect of a page. */
export interface EffectsCursor {
  readonly createdAt: string;
  readonly effectId: string;
}

const EFFECT_ID = /^[0-9a-f]{64}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Far more than any real cursor; bounds the work a hostile one can cause. */
const MAX_CURSOR_CHARS = 512;

/** Encodes an effects cursor. */
export function encodeEffectsCursor(cursor: EffectsCursor): string {
  return Buffer.from(JSON.stringify({ c: cursor.createdAt, id: cursor.effectId }), "utf8").toString(
    "base64url",
  );
}

/** Decodes an effects cursor; null if it is not one this server issued. */
export function decodeEffectsCursor(text: string): EffectsCursor | null {
  if (text.length > MAX_CURSOR_CHARS || !BASE64URL.test(text)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { c, id, ...rest } = parsed as Record<string, unknown>;
  if (
    Object.keys(rest).length > 0 ||
    !isRfc3339(c) ||
    typeof id !== "string" ||
    !EFFECT_ID.test(id)
  )
    return null;
  return { createdAt: c, effectId: id };
}

/** Encodes a findings cursor (the last finding id of the page). */
export function encodeFindingsCursor(findingId: number): string {
  return String(findingId);
}

/** Decodes a findings cursor; null unless a positive safe integer in plain decimal. */
export function decodeFindingsCursor(text: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}
