/**
 * adapters/refdest-adapter — the adapter for the reference destination (§5.5, §5.7), reached
 * only through its public routes (POST /effects, POST /notify, GET /effects…). One wire call per
 * method, no retries (I4), and the transport taxonomy as values (I5):
 *   200/201/202 with a well-formed body ⇒ OK · 429 `rate_limited` ⇒ FAILED/RETRYABLE ·
 *   400 `invalid_request` ⇒ FAILED/TERMINAL (both cited as side-effect free in docs/refdest.md) ·
 *   deadline (its own, or the engine's AbortSignal) ⇒ TIMEOUT · everything else (5xx, 409, unknown status or body, reset, truncation) ⇒ LOST.
 * Status queries prefer destination_ref (200 PRESENT / 404 `resource_missing` ABSENT), else
 * client_ref (n = matches); any other answer is INDETERMINATE, never ABSENT. With a declared
 * `queryable.batch_max`, `statusQueryBatch` asks many keys in one `POST /effects/status` and
 * reads each element exactly as the single GET's answer. The idempotency key
 * is sent only when the declaration says the destination supports it. Imports: core, adapters.
 */
import { IrrevonError } from "../core/errors.js";
import type {
  Adapter,
  CapabilityDeclaration,
  DispatchOrder,
  DispatchResult,
  ListedEffect,
  ListPage,
  QueryKey,
  StatusResult,
} from "./contract.js";
import { loadDeclaration } from "./declaration.js";
import {
  checkDeadlineMs,
  DEFAULT_MAX_RESPONSE_BYTES,
  isRecord,
  jsonDigest,
  jsonPayloadProblem,
  nodeHttpTransport,
  parseJsonBody,
  type HttpExchange,
  type HttpTransport,
} from "./http-kit.js";
import { checkBatchSize, noAnswer, queryKeyName } from "./status-answers.js";

/** The refdest's payload limit (compact JSON bytes); larger payloads are refused before any claim. */
export const REFDEST_MAX_PAYLOAD_BYTES = 256 * 1024;
const LIST_PAGE_LIMIT = 100;
/** A batch answer carries up to 1000 views or match lists: room beyond the single-call cap. */
const BATCH_MAX_RESPONSE_BYTES = 4 * DEFAULT_MAX_RESPONSE_BYTES;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface RefdestAdapterOptions {
  /** Origin of the refdest, e.g. `http://127.0.0.1:4100` (plain http only on loopback). */
  readonly baseUrl: string;
  /** The tier's declaration (validated again here); see adapters/declarations/refdest.ts. */
  readonly declaration: CapabilityDeclaration;
  /** Stand-in for the network (tests, in-process refdest). Defaults to node:http. */
  readonly transport?: HttpTransport;
}

interface View {
  readonly destination_ref: string;
  readonly effect_type: string;
  readonly client_ref: string | null;
  readonly created_at: string;
  readonly status: string;
}

function isView(v: unknown): v is View {
  return (
    isRecord(v) &&
    typeof v["destination_ref"] === "string" &&
    v["destination_ref"].length > 0 &&
    typeof v["effect_type"] === "string" &&
    (v["client_ref"] === null || typeof v["client_ref"] === "string") &&
    typeof v["created_at"] === "string" &&
    typeof v["status"] === "string"
  );
}

function errorCodeOf(body: unknown): string | null {
  if (!isRecord(body) || !isRecord(body["error"])) return null;
  const code = body["error"]["code"];
  return typeof code === "string" ? code : null;
}

/** A parsed response, or why the exchange is not one. */
type Read =
  | {
      readonly kind: "json";
      readonly status: number;
      readonly body: unknown;
      readonly digest: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: "other";
      readonly evidence: Readonly<Record<string, unknown>>;
      readonly timedOut: boolean;
    };

function read(x: HttpExchange, endpoint: string, deadlineMs: number): Read {
  switch (x.kind) {
    case "timeout":
      return {
        kind: "other",
        timedOut: true,
        evidence: { endpoint, deadline_ms: deadlineMs, send_state: x.sendState },
      };
    case "transport_error":
      return {
        kind: "other",
        timedOut: false,
        evidence: { endpoint, send_state: x.sendState, error_code: x.errorCode },
      };
    case "response_too_large":
      return {
        kind: "other",
        timedOut: false,
        evidence: {
          endpoint,
          http_status: x.status,
          unparseable_body: true,
          reason: "response_too_large",
        },
      };
    case "response": {
      const parsed = parseJsonBody(x.bodyText);
      if (!parsed.ok) {
        return {
          kind: "other",
          timedOut: false,
          evidence: {
            endpoint,
            http_status: x.status,
            unparseable_body: true,
            reason: parsed.reason,
          },
        };
      }
      return {
        kind: "json",
        status: x.status,
        body: parsed.value,
        digest: jsonDigest(parsed.value),
        headers: x.headers,
      };
    }
  }
}

/**
 * One status lookup's answer (`status`, `body`), as the single GET returns it or as one element
 * of a batch: by ref 200 view ⇒ PRESENT, 404 `resource_missing` ⇒ ABSENT; by client ref 200
 * `{matches}` ⇒ PRESENT n = matches (zero ⇒ ABSENT); anything else INDETERMINATE.
 */
function answerFor(
  key: QueryKey,
  status: number,
  body: unknown,
  digest: string,
  evidence: Readonly<Record<string, unknown>>,
): StatusResult {
  const code = errorCodeOf(body);
  if (key.kind === "destination_ref") {
    if (status === 200 && isView(body) && body.destination_ref === key.value) {
      return {
        result: "PRESENT",
        nFound: 1,
        destinationRefs: [key.value],
        responseDigest: digest,
        evidence,
      };
    }
    if (status === 404 && code === "resource_missing")
      return { result: "ABSENT", nFound: 0, destinationRefs: [], responseDigest: digest, evidence };
    return noAnswer(evidence, digest);
  }
  const matches = isRecord(body) ? body["matches"] : undefined;
  if (
    status === 200 &&
    Array.isArray(matches) &&
    matches.every((m) => isView(m) && m.client_ref === key.value)
  ) {
    const refs = (matches as View[]).map((m) => m.destination_ref);
    return {
      result: refs.length > 0 ? "PRESENT" : "ABSENT",
      nFound: refs.length,
      destinationRefs: refs,
      responseDigest: digest,
      evidence,
    };
  }
  return noAnswer(evidence, digest);
}

/** Adapter for the reference destination, any tier. Stateless apart from its configuration. */
export class RefdestAdapter implements Adapter {
  readonly adapterId: string;
  readonly #declaration: CapabilityDeclaration;
  readonly #origin: string;
  readonly #transport: HttpTransport;

  constructor(options: RefdestAdapterOptions) {
    this.#declaration = loadDeclaration(options.declaration);
    if (this.#declaration.destination !== "refdest") {
      throw new IrrevonError("config_invalid", "RefdestAdapter needs a refdest declaration", {
        details: { field: "declaration.destination" },
      });
    }
    this.adapterId = this.#declaration.adapter;
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new IrrevonError("config_invalid", "baseUrl is not a URL", {
        details: { field: "baseUrl" },
      });
    }
    const httpOk =
      url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname));
    if (
      !httpOk ||
      url.pathname !== "/" ||
      url.search !== "" ||
      url.hash !== "" ||
      url.username !== ""
    ) {
      throw new IrrevonError(
        "config_invalid",
        "baseUrl must be a bare origin (plain http only on loopback)",
        { details: { field: "baseUrl" } },
      );
    }
    this.#origin = url.origin;
    this.#transport = options.transport ?? nodeHttpTransport;
  }

  declare(): CapabilityDeclaration {
    return this.#declaration;
  }

  /** D6: refuse, before any claim, a payload the refdest would reject structurally. */
  validatePayload(effectType: string, payload: Readonly<Record<string, unknown>>): void {
    const problem = this.#payloadProblem(effectType, payload);
    if (problem !== null) {
      throw new IrrevonError(
        "payload_invalid",
        `payload refused for ${this.adapterId}: ${problem.path}: ${problem.reason}`,
        {
          details: { adapter: this.adapterId, path: problem.path, reason: problem.reason },
        },
      );
    }
  }

  async dispatch(
    order: DispatchOrder,
    deadlineMs: number,
    signal?: AbortSignal,
  ): Promise<DispatchResult> {
    checkDeadlineMs(deadlineMs);
    const notify = this.#declaration.tier === "C3";
    const endpoint = notify ? "POST /notify" : "POST /effects";
    const problem = this.#payloadProblem(order.effectType, order.payload);
    if (problem !== null) {
      // Nothing was sent, so this is certainly side-effect free (the engine should have called validatePayload).
      return {
        transportOutcome: "FAILED",
        failureKind: "TERMINAL",
        evidence: {
          endpoint,
          send_state: "not_sent",
          error_code: "payload_invalid",
          path: problem.path,
        },
      };
    }
    const body: Record<string, unknown> = { effect_type: order.effectType, payload: order.payload };
    if (!notify && this.#declaration.client_ref_field !== null)
      body[this.#declaration.client_ref_field] = order.clientRef;
    if (!notify && this.#declaration.idempotency.supported)
      body["idempotency_key"] = order.idempotencyKey;
    const exchange = await this.#transport({
      method: "POST",
      url: this.#origin + (notify ? "/notify" : "/effects"),
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      deadlineMs,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      ...(signal === undefined ? {} : { signal }),
    });
    const r = read(exchange, endpoint, deadlineMs);
    if (r.kind === "other")
      return { transportOutcome: r.timedOut ? "TIMEOUT" : "LOST", evidence: r.evidence };
    const code = errorCodeOf(r.body);
    const evidence: Record<string, unknown> = { endpoint, http_status: r.status };
    if (code !== null) evidence["error_code"] = code;
    if (r.headers["idempotent-replayed"] !== undefined)
      evidence["idempotent_replayed"] = r.headers["idempotent-replayed"] === "true";
    const base = { responseDigest: r.digest, evidence };
    if (r.status === 200 || r.status === 201 || r.status === 202) {
      if (notify && isRecord(r.body)) return { transportOutcome: "OK", ...base };
      if (!notify && isView(r.body)) {
        const replayed: unknown = (r.body as unknown as Readonly<Record<string, unknown>>)[
          "replayed"
        ];
        if (typeof replayed === "boolean") evidence["replayed"] = replayed;
        return { transportOutcome: "OK", destinationRef: r.body.destination_ref, ...base };
      }
      return { transportOutcome: "LOST", ...base, evidence: { ...evidence, unknown_body: true } };
    }
    if (r.status === 429 && code === "rate_limited")
      return { transportOutcome: "FAILED", failureKind: "RETRYABLE", ...base };
    if (r.status === 400 && code === "invalid_request")
      return { transportOutcome: "FAILED", failureKind: "TERMINAL", ...base };
    return { transportOutcome: "LOST", ...base };
  }

  async statusQuery(
    key: QueryKey,
    deadlineMs: number,
    signal?: AbortSignal,
  ): Promise<StatusResult> {
    checkDeadlineMs(deadlineMs);
    this.#checkKey(key);
    const byRef = key.kind === "destination_ref";
    const endpoint = byRef ? "GET /effects/{ref}" : "GET /effects?client_ref";
    const path = byRef
      ? `/effects/${encodeURIComponent(key.value)}`
      : `/effects?client_ref=${encodeURIComponent(key.value)}`;
    const r = read(await this.#get(path, deadlineMs, signal), endpoint, deadlineMs);
    if (r.kind === "other") return noAnswer(r.evidence);
    const code = errorCodeOf(r.body);
    const evidence = {
      endpoint,
      http_status: r.status,
      ...(code === null ? {} : { error_code: code }),
    };
    return answerFor(key, r.status, r.body, r.digest, evidence);
  }

  /**
   * Many status lookups in one `POST /effects/status` call (declared by `queryable.batch_max`):
   * each key answered exactly as {@link statusQuery} would answer it (the element's own status
   * and body, and its digest, are the single GET's), results in key order. A call that failed
   * as a whole (timeout, reset, 429, 5xx, a body that is not `{results}` of the right length)
   * is INDETERMINATE for every key. More keys than `batch_max` throw `usage`; a key the
   * declaration does not list, or a declaration without `batch_max`, `capability_unsupported`.
   */
  async statusQueryBatch(
    keys: readonly QueryKey[],
    deadlineMs: number,
    signal?: AbortSignal,
  ): Promise<readonly StatusResult[]> {
    checkDeadlineMs(deadlineMs);
    const batchMax = this.#declaration.queryable.batch_max ?? null;
    if (batchMax === null) {
      throw new IrrevonError(
        "capability_unsupported",
        `${this.adapterId} declares no batch status lookup (queryable.batch_max)`,
        { details: { adapter: this.adapterId, field: "queryable.batch_max" } },
      );
    }
    checkBatchSize(this.adapterId, keys.length, batchMax);
    for (const key of keys) this.#checkKey(key);
    if (keys.length === 0) return [];
    const endpoint = "POST /effects/status";
    const body = JSON.stringify({
      keys: keys.map((k) => ({ by: k.kind, value: k.value })),
    });
    const exchange = await this.#transport({
      method: "POST",
      url: `${this.#origin}/effects/status`,
      headers: { "content-type": "application/json" },
      body,
      deadlineMs,
      maxResponseBytes: BATCH_MAX_RESPONSE_BYTES,
      ...(signal === undefined ? {} : { signal }),
    });
    const r = read(exchange, endpoint, deadlineMs);
    const whole = (evidence: Readonly<Record<string, unknown>>): StatusResult[] =>
      keys.map(() => noAnswer({ ...evidence, batch_size: keys.length }));
    if (r.kind === "other") return whole(r.evidence);
    const code = errorCodeOf(r.body);
    const callEvidence = {
      endpoint,
      http_status: r.status,
      ...(code === null ? {} : { error_code: code }),
    };
    const results = isRecord(r.body) ? r.body["results"] : undefined;
    if (r.status !== 200 || !Array.isArray(results) || results.length !== keys.length)
      return whole({ ...callEvidence, ...(r.status === 200 ? { malformed_batch: true } : {}) });
    return keys.map((key, i) => {
      const item: unknown = results[i];
      if (!isRecord(item) || typeof item["status"] !== "number")
        return noAnswer({ ...callEvidence, batch_size: keys.length, malformed_item: true });
      const itemCode = errorCodeOf(item["body"]);
      return answerFor(key, item["status"], item["body"], jsonDigest(item["body"] ?? null), {
        ...callEvidence,
        batch_size: keys.length,
        item_status: item["status"],
        ...(itemCode === null ? {} : { error_code: itemCode }),
      });
    });
  }

  /**
   * One page of effects created in [from, to] (destination time), always with include_all so
   * the list filter quirk cannot hide anything. Any failure throws `destination_unavailable`
   * (retryable): an empty page is only ever the destination's own answer.
   */
  async listEffects(
    window: { readonly from: string; readonly to: string },
    cursor: string | null,
    deadlineMs: number,
  ): Promise<ListPage> {
    checkDeadlineMs(deadlineMs);
    if (!this.#declaration.list_queryable) {
      throw new IrrevonError("capability_unsupported", `${this.adapterId} cannot list effects`, {
        details: { adapter: this.adapterId },
      });
    }
    for (const [field, value] of [
      ["from", window.from],
      ["to", window.to],
    ] as const) {
      if (
        !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) ||
        !Number.isFinite(Date.parse(value))
      ) {
        throw new IrrevonError("usage", `window.${field} must be an ISO 8601 instant with a zone`, {
          details: { field: `window.${field}` },
        });
      }
    }
    const q = new URLSearchParams({
      from: window.from,
      to: window.to,
      include_all: "true",
      limit: String(LIST_PAGE_LIMIT),
    });
    if (cursor !== null) q.set("cursor", cursor);
    const endpoint = "GET /effects?from&to";
    const r = read(await this.#get(`/effects?${q.toString()}`, deadlineMs), endpoint, deadlineMs);
    if (r.kind === "json" && r.status === 200 && isRecord(r.body)) {
      const effects = r.body["effects"];
      const next = r.body["next_cursor"];
      if (
        Array.isArray(effects) &&
        effects.every(isView) &&
        (next === null || typeof next === "string")
      ) {
        return {
          effects: (effects as View[]).map((v): ListedEffect => ({
            destinationRef: v.destination_ref,
            effectType: v.effect_type,
            clientRef: v.client_ref,
            createdAt: v.created_at,
            status: v.status,
          })),
          nextCursor: next,
        };
      }
    }
    const evidence =
      r.kind === "json"
        ? { endpoint, http_status: r.status, error_code: errorCodeOf(r.body) }
        : r.evidence;
    throw new IrrevonError("destination_unavailable", `${this.adapterId} list failed`, {
      retryable: true,
      details: evidence,
    });
  }

  /** Throws capability_unsupported for a key the declaration does not list. */
  #checkKey(key: QueryKey): void {
    const by = this.#declaration.queryable.by as readonly string[];
    const name = queryKeyName(key);
    if (!this.#declaration.queryable.supported || !by.includes(name)) {
      throw new IrrevonError(
        "capability_unsupported",
        `${this.adapterId} cannot be queried by ${name}`,
        {
          details: { adapter: this.adapterId, key: name, supported: by },
        },
      );
    }
  }

  #payloadProblem(
    effectType: string,
    payload: unknown,
  ): { readonly path: string; readonly reason: string } | null {
    if (typeof effectType !== "string" || effectType.length === 0 || effectType.length > 200) {
      return { path: "effect_type", reason: "must be a string of 1..200 characters" };
    }
    return jsonPayloadProblem(payload, REFDEST_MAX_PAYLOAD_BYTES);
  }

  #get(path: string, deadlineMs: number, signal?: AbortSignal): Promise<HttpExchange> {
    return this.#transport({
      method: "GET",
      url: this.#origin + path,
      headers: {},
      body: null,
      deadlineMs,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      ...(signal === undefined ? {} : { signal }),
    });
  }
}
