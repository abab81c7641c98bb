/**
 * refdest/wire-types — the shapes the reference destination exchanges: tiers, operations,
 * the public effect view, the truth row (oracle only), request-log entries and the reply an
 * operation produces (a JSON response or a dropped connection). Imports: nothing.
 */

export const RefdestTier = { C1: "C1", C2: "C2", C3: "C3" } as const;
export type RefdestTier = (typeof RefdestTier)[keyof typeof RefdestTier];
export const REFDEST_TIERS = Object.values(RefdestTier);

/**
 * Every operation that ticks the virtual clock. `oob` is the control API's out-of-band create;
 * `query_batch` is one `POST /effects/status` call, however many keys it carries.
 */
export const RefdestOp = {
  create: "create",
  notify: "notify",
  get: "get",
  query: "query",
  query_batch: "query_batch",
  list: "list",
  oob: "oob",
} as const;
export type RefdestOp = (typeof RefdestOp)[keyof typeof RefdestOp];
export const REFDEST_OPS = Object.values(RefdestOp);

/** How an effect came to exist at the destination. */
export type EffectVia = "api" | "notify" | "oob";

/** What the public API shows of an effect. */
export interface EffectView {
  readonly destination_ref: string;
  readonly effect_type: string;
  readonly client_ref: string | null;
  readonly created_at: string;
  readonly status: "created";
}

/** One row of the truth log: everything the destination knows; only the oracle reads it. */
export interface TruthEffect extends EffectView {
  /** Stored-effect counter value that derived the ref (1-based). */
  readonly n: number;
  /** The stored payload (enriched when the enrichment quirk applied). */
  readonly payload: unknown;
  readonly payload_digest: string;
  readonly idempotency_key: string | null;
  /** Sequence number of the request that created it: the authoritative order. */
  readonly request_seq: number;
  /** False when the list filter quirk hides it from a default (non include_all) listing. */
  readonly visible_by_default: boolean;
  /** Destination time from which status and list reads can see it (read lag). */
  readonly visible_from: string;
  readonly via: EffectVia;
}

/** The whole truth dump; serialised as RFC 8785 bytes so equal runs are byte-identical. */
export interface TruthDump {
  readonly format: "irrevon-refdest-truth/v1";
  readonly tier: RefdestTier;
  readonly seed: number;
  readonly effects: readonly TruthEffect[];
}

/** One logged API request, in arrival order. */
export interface RequestLogEntry {
  readonly seq: number;
  readonly op: RefdestOp;
  readonly at: string;
  readonly fault: string | null;
  /** HTTP status answered, or "dropped" when the connection was cut. */
  readonly outcome: number | "dropped";
  readonly client_ref: string | null;
  readonly effect_type: string | null;
  readonly idempotency_key: string | null;
  readonly replayed: boolean;
  /** Effects stored by this request (two under DUPLICATE_ACCEPT). */
  readonly stored_refs: readonly string[];
}

/** What an operation answers: a JSON response, or a connection cut without a response. */
export type RefdestReply =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: "drop" };

/** The closed set of error codes the destination puts in `{error:{code,message}}`. */
export const RefdestErrorCode = {
  invalid_request: "invalid_request",
  malformed_json: "malformed_json",
  payload_too_large: "payload_too_large",
  unsupported_media_type: "unsupported_media_type",
  route_not_found: "route_not_found",
  route_not_supported: "route_not_supported",
  method_not_allowed: "method_not_allowed",
  unauthorized: "unauthorized",
  misdirected_request: "misdirected_request",
  resource_missing: "resource_missing",
  rate_limited: "rate_limited",
  server_error: "server_error",
  upstream_timeout: "upstream_timeout",
  idempotency_key_mismatch: "idempotency_key_mismatch",
  schedule_invalid: "schedule_invalid",
  internal_error: "internal_error",
} as const;
export type RefdestErrorCode = (typeof RefdestErrorCode)[keyof typeof RefdestErrorCode];

/** Build an error reply with the destination's envelope. */
export function errorReply(
  status: number,
  code: RefdestErrorCode,
  message: string,
  extra: { readonly field?: string; readonly headers?: Readonly<Record<string, string>> } = {},
): RefdestReply {
  const error: Record<string, string> = { code, message };
  if (extra.field !== undefined) error["field"] = extra.field;
  return extra.headers === undefined
    ? { kind: "response", status, body: { error } }
    : { kind: "response", status, body: { error }, headers: extra.headers };
}
