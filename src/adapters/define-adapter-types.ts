/**
 * adapters/define-adapter-types — the typed input of `defineAdapter`: a capability declaration
 * per tier with the fields the spec lets us default made optional, and the functions an adapter
 * author writes (create, find by client ref / destination ref / stable id, a batch find, list).
 * Imports: core (types), adapters.
 */
import type { ProbeResult } from "../core/state-tables.js";
import type {
  CapabilityDeclaration,
  DispatchOrder,
  DispatchResult,
  ListPage,
  QueryKey,
} from "./contract.js";

/** An ISO 8601 duration of the accepted form `PT[nH][nM][n(.n)S]`, e.g. `"PT30S"`. */
export type DurationText = `PT${string}`;

/** The query keys a status query may support (declaration `queryable.by`). */
export type QueryKeyName = "destination_ref" | "client_ref" | `stable_id:${string}`;

/** Consistency lags; each defaults to null (unbounded: absence is never confirmed automatically). */
export interface ConsistencyInput {
  readonly status_settlement_lag?: DurationText | null;
  readonly listing_lag?: DurationText | null;
}

interface DeclarationCommon {
  /** Adapter id: 1-100 of a-z 0-9 . _ -, e.g. `"acme-c2"`. */
  readonly adapter: string;
  readonly destination: string;
  readonly api_version: string;
  /** At least one URI for the destination documentation the declaration rests on. */
  readonly citations: readonly [string, ...string[]];
  /** Default `"EI"` (taken from documentation); `"VF"` only when a test verifies the behaviour. */
  readonly evidence_quality?: "VF" | "EI";
  readonly compensation_hook?: string | null;
  readonly attribution?: CapabilityDeclaration["attribution"];
}

interface NoIdempotency {
  readonly supported: false;
  readonly window: null;
  readonly replay_semantics: null;
}

/** C1: the destination deduplicates by an idempotency key (the engine sends the operation id). */
export interface C1DeclarationInput extends DeclarationCommon {
  readonly tier: "C1";
  readonly idempotency: {
    readonly supported?: true;
    readonly window: DurationText;
    readonly replay_semantics: string;
  };
  /** Where the client ref is stamped; default null. Needed to find by client ref. */
  readonly client_ref_field?: string | null;
  readonly queryable?: QueryableInput;
  /** Default: true iff you provide `list`. */
  readonly list_queryable?: boolean;
  readonly consistency?: ConsistencyInput;
}

/**
 * The status-query capability. `by` (and `supported`) default to what the find functions you
 * provide answer. `batch_max` (2..1000) declares batch lookups: give it together with
 * `findBatch`, never one without the other.
 */
export interface QueryableInput {
  readonly supported?: boolean;
  readonly by?: readonly QueryKeyName[];
  readonly batch_max?: number | null;
}

/** C2: no idempotency key, but the destination can be asked whether an effect exists. */
export interface C2DeclarationInput extends DeclarationCommon {
  readonly tier: "C2";
  readonly idempotency?: NoIdempotency;
  readonly client_ref_field?: string | null;
  readonly queryable?: QueryableInput;
  readonly list_queryable?: boolean;
  readonly consistency?: ConsistencyInput;
}

/** C3: opaque — nothing can be read back; an unknown outcome always goes to a human. */
export interface C3DeclarationInput extends DeclarationCommon {
  readonly tier: "C3";
  readonly idempotency?: NoIdempotency;
  readonly client_ref_field?: null;
  readonly queryable?: { readonly supported: false; readonly by: readonly [] };
  readonly list_queryable?: false;
  readonly consistency?: { readonly status_settlement_lag?: null; readonly listing_lag?: null };
}

/** What every adapter function receives besides its arguments. */
export interface CallContext {
  /** The call's deadline in ms (finite, > 0). */
  readonly deadlineMs: number;
  /** Aborted by the engine at the deadline: stop sending and settle. */
  readonly signal: AbortSignal | undefined;
}

/**
 * One status lookup's answer. ABSENT only on an authoritative "none"; anything failed, partial
 * or unknown is INDETERMINATE. PRESENT lists the destination refs found (a lookup by
 * destination ref may omit them: the ref asked for is used).
 */
export interface FindResult {
  readonly result: ProbeResult;
  readonly destinationRefs?: readonly string[];
  readonly responseDigest?: string;
  readonly evidence?: Readonly<Record<string, unknown>>;
}

/** A payload problem: a reason, or a path and a reason. */
export type PayloadProblemInput = string | { readonly path: string; readonly reason: string };

interface CommonFunctions {
  /**
   * Exactly one wire call, no retries. Return the transport outcome as a value (OK, FAILED
   * with failureKind only for documented side-effect-free refusals, TIMEOUT, LOST). A throw is
   * recorded as LOST (the outcome is unknown), never as FAILED.
   */
  create(order: DispatchOrder, ctx: CallContext): Promise<DispatchResult>;
  /**
   * Extra payload checks before any claim is made; return a problem (or throw) to refuse.
   * The payload is always checked to be plain JSON within `maxPayloadBytes` first.
   */
  validatePayload?(
    effectType: string,
    payload: Readonly<Record<string, unknown>>,
  ): PayloadProblemInput | null | undefined;
  /** Effect types this adapter accepts; default: any. */
  readonly effectTypes?: readonly string[];
  /** Largest payload as compact JSON, in bytes; default 262 144 (256 KiB). */
  readonly maxPayloadBytes?: number;
}

interface QueryFunctions {
  /** Find effects stamped with this client ref (the operation id). Declares `client_ref`. */
  findByClientRef?(clientRef: string, ctx: CallContext): Promise<FindResult>;
  /** Find the effect with this destination ref. Declares `destination_ref`. */
  findByDestinationRef?(destinationRef: string, ctx: CallContext): Promise<FindResult>;
  /** Find effects by a stable-id projection; declares `stable_id:<name>` for each of `stableIdKeys`. */
  findByStableId?(name: string, value: string, ctx: CallContext): Promise<FindResult>;
  readonly stableIdKeys?: readonly string[];
  /**
   * Many lookups in ONE wire call (declares batch lookups; needs `queryable.batch_max`): one
   * answer per key, in key order, each exactly what the single find function for that key's
   * kind would answer. Never more than `batch_max` keys. A throw, or a list of the wrong
   * length, is INDETERMINATE for every key; each answer is checked like a single find's.
   */
  findBatch?(keys: readonly QueryKey[], ctx: CallContext): Promise<readonly FindResult[]>;
  /** One page of effects created in [from, to]; `nextCursor` null on the last page. */
  list?(
    window: { readonly from: string; readonly to: string },
    cursor: string | null,
    ctx: CallContext,
  ): Promise<ListPage>;
}

/** `defineAdapter` input for a C1 destination. */
export interface C1AdapterDefinition extends CommonFunctions, QueryFunctions {
  readonly declaration: C1DeclarationInput;
}
/** `defineAdapter` input for a C2 destination (at least one find function). */
export interface C2AdapterDefinition extends CommonFunctions, QueryFunctions {
  readonly declaration: C2DeclarationInput;
}
/** `defineAdapter` input for a C3 destination: create only. */
export interface C3AdapterDefinition extends CommonFunctions {
  readonly declaration: C3DeclarationInput;
  readonly findByClientRef?: never;
  readonly findByDestinationRef?: never;
  readonly findByStableId?: never;
  readonly findBatch?: never;
  readonly list?: never;
}

/** Everything `defineAdapter` accepts. */
export type AdapterDefinition = C1AdapterDefinition | C2AdapterDefinition | C3AdapterDefinition;
