/**
 * refdest/refdest — the in-process reference destination (§5.7): one tier (C1 keyed, C2
 * queryable, C3 notify-only), a seed, one clock (virtual-clock: real elapsed time unless a
 * time source is injected; lag and the C1 window are measured on it), a fault schedule, a truth log and a
 * request log. Every operation answers a RefdestReply (a JSON response or a dropped connection)
 * so the HTTP server and the in-process transport behave byte-for-byte alike.
 *
 * Order inside a write (create/notify), after the request is numbered and a fault is taken:
 * THROTTLE_429 → DROP_RESPONSE_BEFORE_COMMIT → ERROR_5XX_NO_COMMIT → DELAY without commit (504
 * after the delay, nothing stored) → C1 replay/mismatch → `payload.reject === true` (400) →
 * store (twice under DUPLICATE_ACCEPT) → DROP_RESPONSE_AFTER_COMMIT / ERROR_5XX_AFTER_COMMIT /
 * DELAY with commit (stored at arrival, answered after the delay). Reads (get, query, the batch
 * status lookup, list) take one fault per request: 429, 5xx, drop, or DELAY (answer computed
 * at arrival, sent late).
 * The file is longer than our usual aim (~500 lines) on purpose: the write path above is the
 * specification of every fault's effect and reads best as one function next to the read path;
 * storage, keys, faults, clock and timers live in their own modules. Imports: core.
 */
import { randomBytes } from "node:crypto";
import { IrrevonError } from "../core/errors.js";
import { DelayTimers } from "./delay-timers.js";
import { canonicalDigest, canonicalJson } from "./destination-ref.js";
import { EffectStore, viewOf } from "./effect-store.js";
import {
  FaultSchedule,
  parseFaultEntries,
  type FaultEntry,
  type FiredFault,
} from "./fault-schedule.js";
import { IdempotencyCache } from "./idempotency-cache.js";
import {
  checkSeconds,
  checkSeed,
  checkTier,
  DEFAULT_IDEMPOTENCY_WINDOW_SECONDS,
  MAX_LIST_LIMIT,
  TIER_OPS,
  type CreateInput,
  type ListInput,
  type NotifyInput,
  type OobInput,
  type RefdestOptions,
  type StatusBatchInput,
} from "./refdest-options.js";
import {
  isoAtSeconds,
  monotonicTimeSource,
  secondsAfterEpochOf,
  VirtualClock,
  type RefdestTimeSource,
} from "./virtual-clock.js";
import {
  errorReply,
  type EffectView,
  type RefdestOp,
  type RefdestReply,
  type RefdestTier,
  type RequestLogEntry,
  type TruthDump,
} from "./wire-types.js";

/** A deterministic, fault-injectable destination held in memory. */
export class Refdest {
  readonly tier: RefdestTier;
  readonly lagSeconds: number;
  readonly enrichmentQuirk: boolean;
  readonly controlToken: string;
  #seed: number;
  readonly #timeSource: RefdestTimeSource;
  #clock: VirtualClock;
  #store: EffectStore;
  #faults = new FaultSchedule();
  #keys: IdempotencyCache;
  #log: RequestLogEntry[] = [];
  #rejectedCount = 0;
  #delays = new DelayTimers();

  constructor(options: RefdestOptions) {
    this.tier = checkTier(options.tier);
    this.#timeSource = options.clock ?? monotonicTimeSource;
    this.#clock = new VirtualClock(this.#timeSource);
    this.#seed = checkSeed(options.seed);
    this.lagSeconds = checkSeconds("lagSeconds", options.lagSeconds ?? 0);
    this.enrichmentQuirk = options.enrichmentQuirk ?? false;
    const window = checkSeconds(
      "idempotencyWindowSeconds",
      options.idempotencyWindowSeconds ?? DEFAULT_IDEMPOTENCY_WINDOW_SECONDS,
    );
    this.#keys = new IdempotencyCache(window);
    if (options.controlToken !== undefined && !/^[\x21-\x7e]{16,256}$/.test(options.controlToken)) {
      throw new IrrevonError(
        "config_invalid",
        "controlToken must be 16-256 visible ASCII characters",
        {
          details: { field: "controlToken" },
        },
      );
    }
    this.controlToken = options.controlToken ?? randomBytes(32).toString("hex");
    this.#store = new EffectStore(this.#seed);
  }

  get seed(): number {
    return this.#seed;
  }

  /** API requests served so far (each got the next sequence number). */
  get requestCount(): number {
    return this.#clock.requestCount;
  }

  /** True when this tier serves the operation (others answer 404 route_not_supported). */
  supports(op: RefdestOp): boolean {
    return op === "oob" || TIER_OPS[this.tier].includes(op);
  }

  unsupported(op: RefdestOp): RefdestReply {
    return errorReply(
      404,
      "route_not_supported",
      `a ${this.tier} destination does not offer '${op}'`,
    );
  }

  // ---- public API -------------------------------------------------------------------------

  /** POST /effects (C1/C2). */
  create(input: CreateInput): Promise<RefdestReply> {
    if (!this.supports("create")) return Promise.resolve(this.unsupported("create"));
    return this.#write(
      "create",
      input.effect_type,
      input.payload,
      input.client_ref ?? null,
      input.idempotency_key ?? null,
    );
  }

  /** POST /notify (C3): fire-and-forget; 202 `{}`; the truth log still records the effect. */
  notify(input: NotifyInput): Promise<RefdestReply> {
    if (!this.supports("notify")) return Promise.resolve(this.unsupported("notify"));
    return this.#write("notify", input.effect_type, input.payload, null, null);
  }

  /** GET /effects/{ref}: 200 view, or 404 resource_missing (authoritative unless lagging). */
  get(ref: string): Promise<RefdestReply> {
    if (!this.supports("get")) return Promise.resolve(this.unsupported("get"));
    return this.#read("get", null, (now) => this.#getAnswer(ref, now));
  }

  /** GET /effects?client_ref=: 200 `{matches}` (possibly several: no uniqueness). */
  query(clientRef: string): Promise<RefdestReply> {
    if (!this.supports("query")) return Promise.resolve(this.unsupported("query"));
    return this.#read("query", clientRef, (now) => this.#queryAnswer(clientRef, now));
  }

  /**
   * POST /effects/status (C1/C2): many status lookups in one request — one request number, one
   * log entry (op `query_batch`), one fault for the whole call (as a single read takes one).
   * 200 `{results:[{status, body}…]}` in key order, each element exactly what the single
   * `GET /effects/{ref}` or `GET /effects?client_ref=` would have answered at this request's
   * destination time (read lag included).
   */
  statusBatch(input: StatusBatchInput): Promise<RefdestReply> {
    if (!this.supports("query_batch")) return Promise.resolve(this.unsupported("query_batch"));
    return this.#read("query_batch", null, (now) => ({
      kind: "response",
      status: 200,
      body: {
        results: input.keys.map((k) => {
          const one =
            k.by === "destination_ref"
              ? this.#getAnswer(k.value, now)
              : this.#queryAnswer(k.value, now);
          // Both answers are responses (never a drop): the fault, if any, took the whole call.
          return one.kind === "response" ? { status: one.status, body: one.body } : null;
        }),
      },
    }));
  }

  /** GET /effects?from&to[&include_all][&limit][&cursor]: 200 `{effects, next_cursor}`. */
  list(input: ListInput): Promise<RefdestReply> {
    if (!this.supports("list")) return Promise.resolve(this.unsupported("list"));
    const fromSeconds = secondsAfterEpochOf(input.from);
    const toSeconds = secondsAfterEpochOf(input.to);
    const limit = input.limit ?? MAX_LIST_LIMIT;
    // Bad arguments are refused before the request is numbered: they are not API calls that ran.
    if (fromSeconds === null)
      return Promise.resolve(
        errorReply(400, "invalid_request", "from must be an ISO 8601 instant with a zone", {
          field: "from",
        }),
      );
    if (toSeconds === null)
      return Promise.resolve(
        errorReply(400, "invalid_request", "to must be an ISO 8601 instant with a zone", {
          field: "to",
        }),
      );
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      return Promise.resolve(
        errorReply(400, "invalid_request", `limit must be 1..${MAX_LIST_LIMIT}`, {
          field: "limit",
        }),
      );
    }
    return this.#read("list", null, (now) => {
      const slice = this.#store.list(
        { fromSeconds, toSeconds },
        { includeAll: input.include_all ?? false, limit, cursor: input.cursor ?? null },
        now,
      );
      return slice === null
        ? errorReply(400, "invalid_request", "cursor was not issued by this destination", {
            field: "cursor",
          })
        : {
            kind: "response",
            status: 200,
            body: { effects: slice.effects, next_cursor: slice.nextCursor },
          };
    });
  }

  // ---- control API (in-process; the HTTP server puts it behind the control token) --------------

  /** Append (or replace) validated fault entries; throws config_invalid naming the bad field. */
  schedule(entries: unknown, options: { readonly replace?: boolean } = {}): number {
    const parsed: FaultEntry[] = parseFaultEntries(entries);
    this.#faults.add(parsed, options.replace ?? false);
    return this.#faults.pendingCount;
  }

  scheduleSnapshot(): ReturnType<FaultSchedule["snapshot"]> {
    return this.#faults.snapshot();
  }

  /** Forget everything (effects, keys, schedule, logs, clock); optionally switch seed. */
  reset(options: { readonly seed?: number } = {}): void {
    this.#seed = options.seed === undefined ? this.#seed : checkSeed(options.seed);
    this.cancelPendingDelays();
    this.#clock = new VirtualClock(this.#timeSource);
    this.#store.reset(this.#seed);
    this.#faults.clear();
    this.#keys.clear();
    this.#log = [];
    this.#rejectedCount = 0;
  }

  /** Create an effect behind the caller's back (another client of the destination). Honors client_ref. */
  createOutOfBand(input: OobInput): EffectView[] {
    const seq = this.#clock.tick();
    const now = this.#clock.nowSeconds;
    const clientRef = input.client_ref ?? null;
    const fired = this.#faults.take({ op: "oob", seq, clientRef, effectType: input.effect_type });
    const stored = this.#storeEffects(
      "oob",
      fired,
      input.effect_type,
      input.payload,
      clientRef,
      null,
      seq,
      now,
    );
    this.#logEntry(seq, now, "oob", fired, 201, clientRef, input.effect_type, null, false, stored);
    return stored.map(viewOf);
  }

  /** Jump destination time forward (expire keys and read lags without traffic). */
  advanceClock(seconds: number): string {
    this.#clock.advance(checkSeconds("seconds", seconds));
    return this.#clock.nowIso;
  }

  /** Count a request refused before reaching an operation (hostile or malformed). */
  noteRejected(): void {
    this.#rejectedCount += 1;
  }

  truthDump(): TruthDump {
    return {
      format: "irrevon-refdest-truth/v1",
      tier: this.tier,
      seed: this.#seed,
      effects: this.#store.truth(),
    };
  }

  /** The truth dump as RFC 8785 text: byte-identical for equal seeds and schedules. */
  truthDumpJson(): string {
    return canonicalJson(this.truthDump());
  }

  requestLog(): readonly RequestLogEntry[] {
    return [...this.#log];
  }

  state(): Readonly<Record<string, unknown>> {
    return {
      tier: this.tier,
      seed: this.#seed,
      now: this.#clock.nowIso,
      request_count: this.#clock.requestCount,
      effect_count: this.#store.count,
      rejected_count: this.#rejectedCount,
      pending_faults: this.#faults.pendingCount,
      lag_seconds: this.lagSeconds,
      enrichment_quirk: this.enrichmentQuirk,
      idempotency_window_seconds: this.tier === "C1" ? this.#keys.windowSeconds : null,
    };
  }

  /** End every in-flight DELAY now; those requests are answered with a dropped connection. */
  cancelPendingDelays(): void {
    this.#delays.cancelAll();
  }

  // ---- internals --------------------------------------------------------------------------

  async #write(
    op: "create" | "notify",
    effectType: string,
    payload: Readonly<Record<string, unknown>>,
    clientRef: string | null,
    key: string | null,
  ): Promise<RefdestReply> {
    const seq = this.#clock.tick();
    const now = this.#clock.nowSeconds;
    const fired = this.#faults.take({ op, seq, clientRef, effectType });
    const log = (
      outcome: number | "dropped",
      replayed: boolean,
      stored: readonly { destination_ref: string }[] = [],
    ): void =>
      this.#logEntry(seq, now, op, fired, outcome, clientRef, effectType, key, replayed, stored);

    switch (fired?.fault) {
      case "THROTTLE_429":
        log(429, false);
        return errorReply(429, "rate_limited", "too many requests; nothing was done", {
          headers: { "retry-after": "1" },
        });
      case "DROP_RESPONSE_BEFORE_COMMIT":
        log("dropped", false);
        return { kind: "drop" };
      case "ERROR_5XX_NO_COMMIT":
        log(500, false);
        return errorReply(500, "server_error", "internal failure");
      case "DELAY":
        if (!fired.commit) {
          log(504, false);
          return this.#delayed(
            fired.delayMs,
            errorReply(504, "upstream_timeout", "the request timed out upstream"),
          );
        }
        break;
      case "DROP_RESPONSE_AFTER_COMMIT":
      case "ERROR_5XX_AFTER_COMMIT":
      case "DUPLICATE_ACCEPT":
      case "READ_LAG":
      case "LIST_FILTER_QUIRK":
      case "ENRICHMENT_QUIRK":
      case undefined:
        break; // acted on at or after the commit below
    }

    let reply: RefdestReply | null = null;
    let stored: ReturnType<EffectStore["store"]>[] = [];
    let replayed = false;
    const fingerprint =
      key === null || this.tier !== "C1"
        ? null
        : canonicalDigest({ effect_type: effectType, payload, client_ref: clientRef });
    if (key !== null && fingerprint !== null) {
      const found = this.#keys.lookup(key, fingerprint, now);
      if (found.kind === "mismatch") {
        reply = errorReply(
          409,
          "idempotency_key_mismatch",
          "idempotency key reused with different parameters",
          { field: "idempotency_key" },
        );
      } else if (found.kind === "replay") {
        replayed = true;
        const status = found.outcome.status === 201 ? 200 : found.outcome.status;
        const body =
          found.outcome.status === 201
            ? { ...found.outcome.body, replayed: true }
            : found.outcome.body;
        reply = { kind: "response", status, body, headers: { "idempotent-replayed": "true" } };
      }
    }
    if (reply === null && payload["reject"] === true) {
      const rejected = errorReply(
        400,
        "invalid_request",
        "the destination rejected the payload (reject: true)",
        { field: "payload.reject" },
      );
      if (key !== null && fingerprint !== null && rejected.kind === "response") {
        this.#keys.remember(key, fingerprint, now, {
          status: 400,
          body: rejected.body as Record<string, unknown>,
        });
      }
      reply = rejected;
    }
    if (reply === null) {
      stored = this.#storeEffects(
        op === "create" ? "api" : "notify",
        fired,
        effectType,
        payload,
        clientRef,
        key,
        seq,
        now,
      );
      const first = stored[0] as ReturnType<EffectStore["store"]>;
      if (op === "notify") {
        reply = { kind: "response", status: 202, body: {} };
      } else {
        const view = viewOf(first);
        if (key !== null && fingerprint !== null)
          this.#keys.remember(key, fingerprint, now, { status: 201, body: { ...view } });
        reply = { kind: "response", status: 201, body: { ...view, replayed: false } };
      }
    }

    switch (fired?.fault) {
      case "DROP_RESPONSE_AFTER_COMMIT":
        log("dropped", replayed, stored);
        return { kind: "drop" };
      case "ERROR_5XX_AFTER_COMMIT":
        log(500, replayed, stored);
        return errorReply(500, "server_error", "internal failure");
      case "DELAY":
        log(reply.kind === "response" ? reply.status : "dropped", replayed, stored);
        return this.#delayed(fired.delayMs, reply);
      case "DUPLICATE_ACCEPT":
      case "READ_LAG":
      case "LIST_FILTER_QUIRK":
      case "ENRICHMENT_QUIRK":
      case undefined:
        log(reply.kind === "response" ? reply.status : "dropped", replayed, stored);
        return reply;
    }
  }

  #getAnswer(ref: string, nowSeconds: number): RefdestReply {
    const view = this.#store.get(ref, nowSeconds);
    return view === null
      ? errorReply(404, "resource_missing", "no such effect")
      : { kind: "response", status: 200, body: view };
  }

  #queryAnswer(clientRef: string, nowSeconds: number): RefdestReply {
    return {
      kind: "response",
      status: 200,
      body: { matches: this.#store.queryByClientRef(clientRef, nowSeconds) },
    };
  }

  async #read(
    op: "get" | "query" | "query_batch" | "list",
    clientRef: string | null,
    answer: (nowSeconds: number) => RefdestReply,
  ): Promise<RefdestReply> {
    const seq = this.#clock.tick();
    const now = this.#clock.nowSeconds;
    const fired = this.#faults.take({ op, seq, clientRef, effectType: null });
    const log = (outcome: number | "dropped"): void =>
      this.#logEntry(seq, now, op, fired, outcome, clientRef, null, null, false, []);
    switch (fired?.fault) {
      case "THROTTLE_429":
        log(429);
        return errorReply(429, "rate_limited", "too many requests", {
          headers: { "retry-after": "1" },
        });
      case "ERROR_5XX_NO_COMMIT":
      case "ERROR_5XX_AFTER_COMMIT":
        log(500);
        return errorReply(500, "server_error", "internal failure");
      case "DROP_RESPONSE_BEFORE_COMMIT":
      case "DROP_RESPONSE_AFTER_COMMIT":
        log("dropped");
        return { kind: "drop" };
      case "DELAY": {
        // The answer is computed at arrival (destination time of this request), sent late.
        const reply = answer(now);
        log(reply.kind === "response" ? reply.status : "dropped");
        return this.#delayed(fired.delayMs, reply);
      }
      case "DUPLICATE_ACCEPT":
      case "READ_LAG":
      case "LIST_FILTER_QUIRK":
      case "ENRICHMENT_QUIRK":
      case undefined: {
        // Never matched for reads (FAULT_OPS); listed so a new fault kind must be placed here.
        const reply = answer(now);
        log(reply.kind === "response" ? reply.status : "dropped");
        return reply;
      }
    }
  }

  #storeEffects(
    via: "api" | "notify" | "oob",
    fired: FiredFault | null,
    effectType: string,
    payload: Readonly<Record<string, unknown>>,
    clientRef: string | null,
    key: string | null,
    seq: number,
    now: number,
  ): ReturnType<EffectStore["store"]>[] {
    const input = {
      effectType,
      payload,
      clientRef,
      idempotencyKey: key,
      requestSeq: seq,
      createdAtSeconds: now,
      lagSeconds: fired?.fault === "READ_LAG" ? fired.lagSeconds : this.lagSeconds,
      visibleByDefault: fired?.fault !== "LIST_FILTER_QUIRK",
      enrich: this.enrichmentQuirk || fired?.fault === "ENRICHMENT_QUIRK",
      via,
    };
    const first = this.#store.store(input);
    return fired?.fault === "DUPLICATE_ACCEPT" ? [first, this.#store.store(input)] : [first];
  }

  #logEntry(
    seq: number,
    nowSeconds: number,
    op: RefdestOp,
    fired: FiredFault | null,
    outcome: number | "dropped",
    clientRef: string | null,
    effectType: string | null,
    key: string | null,
    replayed: boolean,
    stored: readonly { destination_ref: string }[],
  ): void {
    this.#log.push({
      seq,
      op,
      at: isoAtSeconds(nowSeconds),
      fault: fired?.fault ?? null,
      outcome,
      client_ref: clientRef,
      effect_type: effectType,
      idempotency_key: key,
      replayed,
      stored_refs: stored.map((s) => s.destination_ref),
    });
  }

  /** Wait real milliseconds, then answer; a cancelled wait (reset/close) drops the connection. */
  async #delayed(ms: number, reply: RefdestReply): Promise<RefdestReply> {
    return (await this.#delays.wait(ms)) === "cancelled" ? { kind: "drop" } : reply;
  }
}
