/**
 * refdest/request-parsing — turns raw request parts (JSON body text, query string) into the
 * typed inputs of the destination's operations, or into the 4xx reply that refuses them.
 * Every refusal names the field (`{error:{code,message,field}}`); nothing here touches state.
 * Imports: nothing of ours beyond refdest.
 */
import { z } from "zod";
import { compactJsonBytes, isJsonObject, MAX_PAYLOAD_BYTES, parseJsonText } from "./json-limits.js";
import { MAX_STATUS_BATCH_KEYS } from "./refdest-options.js";
import { errorReply, type RefdestReply } from "./wire-types.js";

export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reply: RefdestReply };

const effectType = z.string().min(1).max(200);
const payload = z
  .custom<Record<string, unknown>>(isJsonObject, { message: "payload must be a JSON object" })
  .refine((p) => compactJsonBytes(p) <= MAX_PAYLOAD_BYTES, {
    message: `payload larger than ${MAX_PAYLOAD_BYTES} bytes of compact JSON`,
  });
const clientRef = z.string().min(1).max(500).nullable().optional();

export const createBodySchema = z.strictObject({
  effect_type: effectType,
  payload,
  client_ref: clientRef,
  idempotency_key: z.string().min(1).max(255).nullable().optional(),
});
export const notifyBodySchema = z.strictObject({ effect_type: effectType, payload });
export const oobBodySchema = z.strictObject({
  effect_type: effectType,
  payload,
  client_ref: clientRef,
});
/** `POST /effects/status`: 1..1000 keys, each asked as its single GET would ask it. */
export const statusBatchBodySchema = z.strictObject({
  keys: z
    .array(
      z.strictObject({
        by: z.enum(["client_ref", "destination_ref"]),
        value: z.string().min(1).max(500),
      }),
    )
    .min(1)
    .max(MAX_STATUS_BATCH_KEYS, {
      message: `at most ${MAX_STATUS_BATCH_KEYS} keys per batch status lookup`,
    }),
});
export const scheduleBodySchema = z.strictObject({
  entries: z.array(z.unknown()),
  replace: z.boolean().optional(),
});
export const resetBodySchema = z.strictObject({
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
export const advanceBodySchema = z.strictObject({
  seconds: z
    .number()
    .int()
    .min(0)
    .max(10 * 365 * 86_400),
});

/** Parse a JSON body; `allowEmpty` turns an empty body into `{}` (control calls without arguments). */
export function parseBody<T>(schema: z.ZodType<T>, text: string, allowEmpty = false): Parsed<T> {
  let raw: unknown = {};
  if (!(allowEmpty && text.trim() === "")) {
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      const code = parsed.reason.startsWith("nesting") ? "invalid_request" : "malformed_json";
      return { ok: false, reply: errorReply(400, code, parsed.reason, { field: "body" }) };
    }
    raw = parsed.value;
  }
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  let path = (issue?.path ?? []).map(String);
  if (issue?.code === "unrecognized_keys") path = [...path, issue.keys[0] ?? ""];
  const field = path.length === 0 ? "body" : path.join(".");
  return {
    ok: false,
    reply: errorReply(400, "invalid_request", `${field}: ${issue?.message ?? "invalid"}`, {
      field,
    }),
  };
}

export type EffectsQuery =
  | { readonly kind: "query"; readonly clientRef: string }
  | {
      readonly kind: "list";
      readonly from: string;
      readonly to: string;
      readonly includeAll: boolean;
      readonly limit: number | undefined;
      readonly cursor: string | null;
    };

const LIST_KEYS = new Set(["from", "to", "include_all", "limit", "cursor"]);

/** Parse the query of `GET /effects`: either `client_ref=` alone or a time-window listing. */
export function parseEffectsQuery(params: URLSearchParams): Parsed<EffectsQuery> {
  const bad = (field: string, message: string): Parsed<EffectsQuery> => ({
    ok: false,
    reply: errorReply(400, "invalid_request", message, { field }),
  });
  const seen = new Map<string, string>();
  for (const [k, v] of params) {
    if (seen.has(k)) return bad(k, `query parameter '${k}' given twice`);
    seen.set(k, v);
  }
  const clientRef = seen.get("client_ref");
  if (clientRef !== undefined) {
    if (seen.size !== 1)
      return bad("client_ref", "client_ref cannot be combined with other parameters");
    if (clientRef.length === 0 || clientRef.length > 500)
      return bad("client_ref", "client_ref must be 1..500 characters");
    return { ok: true, value: { kind: "query", clientRef } };
  }
  for (const k of seen.keys())
    if (!LIST_KEYS.has(k)) return bad(k, `unknown query parameter '${k}'`);
  const from = seen.get("from");
  const to = seen.get("to");
  if (from === undefined) return bad("from", "give client_ref, or from and to");
  if (to === undefined) return bad("to", "give client_ref, or from and to");
  const includeAllText = seen.get("include_all");
  if (includeAllText !== undefined && includeAllText !== "true" && includeAllText !== "false") {
    return bad("include_all", "include_all must be true or false");
  }
  const limitText = seen.get("limit");
  if (limitText !== undefined && !/^\d{1,4}$/.test(limitText))
    return bad("limit", "limit must be a positive integer");
  return {
    ok: true,
    value: {
      kind: "list",
      from,
      to,
      includeAll: includeAllText === "true",
      limit: limitText === undefined ? undefined : Number(limitText),
      cursor: seen.get("cursor") ?? null,
    },
  };
}
