/**
 * adapters/contract — the adapter contract every destination adapter implements (§5.5),
 * and the shapes it exchanges with the engine. Adapters never retry (I4) and never
 * raise for transport problems: they return a TransportOutcome. Imports: core.
 */
import type { FailureKind, ProbeResult, TransportOutcome } from "../core/state-tables.js";

/** A capability declaration (validated against a JSON Schema at load; see declaration.ts). */
export interface CapabilityDeclaration {
  readonly adapter: string;
  readonly destination: string;
  readonly api_version: string;
  readonly tier: "C1" | "C2" | "C3";
  readonly idempotency: { readonly supported: boolean; readonly window: string | null; readonly replay_semantics: string | null };
  /**
   * D7: which keys each status query supports. `by` lists the query keys. `batch_max` (2..1000)
   * says the adapter answers up to that many keys in one wire call (`statusQueryBatch`);
   * absent = no batch (a `null` is dropped at load, so both have one digest).
   */
  readonly queryable: {
    readonly supported: boolean;
    readonly by: ReadonlyArray<"destination_ref" | "client_ref" | `stable_id:${string}`>;
    readonly batch_max?: number | null;
  };
  readonly client_ref_field: string | null;
  readonly list_queryable: boolean;
  /** ISO 8601 durations (PTnHnMnS) or null = unbounded/undeclared. */
  readonly consistency: { readonly status_settlement_lag: string | null; readonly listing_lag: string | null };
  readonly citations: readonly string[];
  readonly evidence_quality: "VF" | "EI";
  readonly compensation_hook?: string | null;
  readonly attribution?: { readonly modes: readonly string[]; readonly fields?: readonly string[]; readonly notes?: string };
}

/** What the engine hands an adapter for one claimed attempt. */
export interface DispatchOrder {
  readonly operationId: string;
  readonly effectType: string;
  /** The stored parameters, revealed for the adapter only (the sanctioned exit from taint). */
  readonly payload: Readonly<Record<string, unknown>>;
  /** = operation_id; stamped where the declaration's client_ref_field says. */
  readonly clientRef: string;
  /** = operation_id verbatim. Sent only if the declaration says idempotency is supported. */
  readonly idempotencyKey: string;
  readonly stableIds: Readonly<Record<string, string>>;
}

export interface DispatchResult {
  readonly transportOutcome: TransportOutcome;
  /** Required iff FAILED. */
  readonly failureKind?: FailureKind;
  readonly destinationRef?: string;
  readonly responseDigest?: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** One status query key: the strongest supported one is chosen by the reconciler (D7). */
export type QueryKey =
  | { readonly kind: "client_ref"; readonly value: string }
  | { readonly kind: "destination_ref"; readonly value: string }
  | { readonly kind: "stable_id"; readonly name: string; readonly value: string };

export interface StatusResult {
  /** ABSENT only on an authoritative answer; anything failed or unknown is INDETERMINATE. */
  readonly result: ProbeResult;
  readonly nFound: number | null;
  readonly destinationRefs: readonly string[];
  readonly responseDigest?: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

export interface ListedEffect {
  readonly destinationRef: string;
  readonly effectType: string;
  readonly clientRef: string | null;
  /**
   * When the destination created it: RFC 3339 with its offset (`Z` or `±hh:mm`); a listing with
   * any other form is malformed (the sweep reads destination time from these).
   */
  readonly createdAt: string;
  readonly status: string;
  /** Queryable stable-id projections the destination exposes, if any. */
  readonly fields?: Readonly<Record<string, string>>;
}

export interface ListPage {
  readonly effects: readonly ListedEffect[];
  readonly nextCursor: string | null;
}

export interface Adapter {
  readonly adapterId: string;
  declare(): CapabilityDeclaration;
  /** D6: throws a payload_invalid IrrevonError for a bad payload, before any claim is made. */
  validatePayload(effectType: string, payload: Readonly<Record<string, unknown>>): void;
  /**
   * Exactly one wire call. Never throws for transport trouble; never retries. `signal` is
   * aborted by the engine at the deadline: stop sending, end the call and settle (TIMEOUT, or
   * whatever the destination already answered). The engine waits for the call to settle and
   * concludes nothing about the attempt while it has not; an adapter that ignores the signal
   * keeps its attempt unresolved until it does (see docs/engine.md, "The absence rule").
   */
  dispatch(order: DispatchOrder, deadlineMs: number, signal?: AbortSignal): Promise<DispatchResult>;
  /**
   * One status query. ABSENT means an authoritative "none" and lists no destination refs
   * (ABSENT with refs is a contract violation the engine treats as INDETERMINATE). `signal`
   * is aborted at the deadline.
   */
  statusQuery(key: QueryKey, deadlineMs: number, signal?: AbortSignal): Promise<StatusResult>;
  /**
   * Optional: one wire call that answers every key exactly as `statusQuery` would, results in
   * key order and of the same length. Offered only with a declared `queryable.batch_max`; the
   * engine never sends more keys than that. The same rules hold per key: ABSENT only on an
   * authoritative "none" and without refs, anything failed or unknown INDETERMINATE. Never
   * throws for transport trouble: a batch that failed as a whole (timeout, reset, 5xx, a body
   * that cannot be read) answers INDETERMINATE for every key. `signal` is aborted at the
   * deadline. The engine treats a throw, a non-array or an answer of the wrong length as
   * INDETERMINATE for every key (`engine: "batch_contract_violation"`).
   */
  statusQueryBatch?(
    keys: readonly QueryKey[],
    deadlineMs: number,
    signal?: AbortSignal,
  ): Promise<readonly StatusResult[]>;
  listEffects(window: { readonly from: string; readonly to: string }, cursor: string | null, deadlineMs: number): Promise<ListPage>;
}
