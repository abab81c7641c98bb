/**
 * adapters/define-adapter — write an adapter as a few functions (create, find by client ref /
 * destination ref / stable id, list) plus a typed capability declaration, and get an object
 * that satisfies the `Adapter` contract unchanged. The declaration's derivable fields default
 * from what you provide (queryable keys from the find functions, list_queryable from `list`,
 * idempotency off below C1, lags null = unbounded, evidence_quality "EI"); the result is then
 * validated by `loadDeclaration`. Declared capabilities and provided functions must agree:
 * every mismatch is refused with `config_invalid` naming the field, the allowed values and the
 * fix. The wrapper holds the contract's safety rules for you: a thrown or malformed create is
 * LOST (never FAILED), a thrown or malformed find is INDETERMINATE (never ABSENT), and ABSENT
 * with refs is INDETERMINATE. A `findBatch` (with `queryable.batch_max`) becomes
 * `statusQueryBatch` under the same guards, per answer and for the whole call (a throw or a
 * list of the wrong length: INDETERMINATE for every key). Imports: core, adapters.
 */
import { IrrevonError, isIrrevonError } from "../core/errors.js";
import type {
  Adapter,
  CapabilityDeclaration,
  DispatchOrder,
  ListPage,
  QueryKey,
  StatusResult,
} from "./contract.js";
import { loadDeclaration } from "./declaration.js";
import type { AdapterDefinition, CallContext, QueryableInput } from "./define-adapter-types.js";
import { checkedDispatch, checkedStatus, errorLabel } from "./define-adapter-results.js";
import { checkDeadlineMs, isRecord, jsonPayloadProblem } from "./http-kit.js";
import { checkBatchSize, noAnswer, queryKeyName } from "./status-answers.js";

export type * from "./define-adapter-types.js";

const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

function refuse(field: string, reason: string, allowed: string, fix: string): IrrevonError {
  return new IrrevonError(
    "config_invalid",
    `defineAdapter: ${field}: ${reason}; allowed: ${allowed}; fix: ${fix}`,
    { details: { field, reason, allowed, fix } },
  );
}

/** The query keys the provided find functions support, in the engine's preference order. */
function providedKeys(def: AdapterDefinition): string[] {
  const keys: string[] = [];
  if (def.findByDestinationRef !== undefined) keys.push("destination_ref");
  if (def.findByClientRef !== undefined) keys.push("client_ref");
  if (def.findByStableId !== undefined) {
    const names = "stableIdKeys" in def ? (def.stableIdKeys ?? []) : [];
    if (names.length === 0) {
      throw refuse(
        "stableIdKeys",
        "findByStableId is given but stableIdKeys is empty",
        "a non-empty list of stable-id names",
        'list the stable ids the destination can be searched by, e.g. ["order_id"]',
      );
    }
    for (const n of names) keys.push(`stable_id:${n}`);
  }
  return keys;
}

/** Build the full declaration from the typed input and the functions provided. */
function buildDeclaration(def: AdapterDefinition): CapabilityDeclaration {
  const d = def.declaration;
  const keys = providedKeys(def);
  const by: readonly string[] = d.queryable?.by ?? keys;
  for (const k of by) {
    if (!keys.includes(k)) {
      const fn = k.startsWith("stable_id:")
        ? "findByStableId"
        : k === "client_ref"
          ? "findByClientRef"
          : "findByDestinationRef";
      throw refuse(
        fn,
        `declaration.queryable.by lists "${k}" but ${fn} is missing`,
        "a find function for every declared query key",
        `provide ${fn}, or remove "${k}" from declaration.queryable.by`,
      );
    }
  }
  for (const k of keys) {
    if (!by.includes(k)) {
      throw refuse(
        "declaration.queryable.by",
        `a find function answers "${k}" but it is not declared`,
        `the keys you provide find functions for: ${keys.join(", ")}`,
        `add "${k}" to declaration.queryable.by, or omit queryable to derive it`,
      );
    }
  }
  if (d.tier === "C2" && by.length === 0) {
    throw refuse(
      "findByClientRef",
      "a C2 adapter provides no find function",
      "at least one of findByClientRef, findByDestinationRef, findByStableId",
      'provide a find function, or declare tier "C3" if nothing can be read back',
    );
  }
  if (by.includes("client_ref") && (d.client_ref_field ?? null) === null) {
    throw refuse(
      "declaration.client_ref_field",
      "findByClientRef is given but client_ref_field is not set",
      "the request field create stamps order.clientRef into",
      'set declaration.client_ref_field (e.g. "metadata.irrevon_ref"), or drop findByClientRef',
    );
  }
  const listable = d.list_queryable ?? def.list !== undefined;
  if (listable !== (def.list !== undefined)) {
    throw refuse(
      "list",
      listable
        ? "declaration.list_queryable is true but list is missing"
        : "list is given but declaration.list_queryable is false",
      "list_queryable true iff list is provided",
      listable
        ? "provide list, or set list_queryable to false"
        : "set list_queryable to true (or omit it), or drop list",
    );
  }
  const batchMax = (d.queryable as QueryableInput | undefined)?.batch_max ?? null;
  if (batchMax !== null && def.findBatch === undefined) {
    throw refuse(
      "findBatch",
      "declaration.queryable.batch_max is set but findBatch is missing",
      "findBatch iff declaration.queryable.batch_max is set",
      "provide findBatch (one wire call answering many keys), or remove queryable.batch_max",
    );
  }
  if (batchMax === null && def.findBatch !== undefined) {
    throw refuse(
      "declaration.queryable.batch_max",
      "findBatch is given but queryable.batch_max is not set",
      "an integer 2..1000: the most keys one findBatch call answers",
      "set declaration.queryable.batch_max to the destination's batch limit, or drop findBatch",
    );
  }
  const idempotency =
    d.tier === "C1"
      ? {
          supported: true,
          window: d.idempotency.window,
          replay_semantics: d.idempotency.replay_semantics,
        }
      : (d.idempotency ?? { supported: false, window: null, replay_semantics: null });
  return loadDeclaration({
    adapter: d.adapter,
    destination: d.destination,
    api_version: d.api_version,
    tier: d.tier,
    idempotency,
    queryable: {
      supported: by.length > 0,
      by,
      ...(batchMax === null ? {} : { batch_max: batchMax }),
    },
    client_ref_field: d.client_ref_field ?? null,
    list_queryable: listable,
    consistency: {
      status_settlement_lag: d.consistency?.status_settlement_lag ?? null,
      listing_lag: d.consistency?.listing_lag ?? null,
    },
    citations: d.citations,
    evidence_quality: d.evidence_quality ?? "EI",
    ...(d.compensation_hook === undefined ? {} : { compensation_hook: d.compensation_hook }),
    ...(d.attribution === undefined ? {} : { attribution: d.attribution }),
  });
}

/**
 * Build an {@link Adapter} from functions and a typed capability declaration. Throws
 * `declaration_invalid` or `config_invalid` (naming the field, the allowed values and the fix)
 * when the declaration is invalid or disagrees with the functions provided.
 */
export function defineAdapter(def: AdapterDefinition): Adapter {
  const declaration = buildDeclaration(def);
  const id = declaration.adapter;
  const maxBytes = def.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 2) {
    throw refuse(
      "maxPayloadBytes",
      `got ${String(maxBytes)}`,
      "an integer ≥ 2 (bytes of compact JSON)",
      "omit it for the default 262144",
    );
  }
  const unsupported = (what: string): IrrevonError =>
    new IrrevonError("capability_unsupported", `${id} cannot ${what}`, {
      details: {
        adapter: id,
        supported: declaration.queryable.by,
        list_queryable: declaration.list_queryable,
      },
    });
  const ctx = (deadlineMs: number, signal?: AbortSignal): CallContext => {
    checkDeadlineMs(deadlineMs);
    return { deadlineMs, signal };
  };
  const payloadInvalid = (path: string, reason: string): IrrevonError =>
    new IrrevonError("payload_invalid", `payload refused for ${id}: ${path}: ${reason}`, {
      details: { adapter: id, path, reason },
    });

  const checkKey = (key: QueryKey): void => {
    const name = queryKeyName(key);
    if (!(declaration.queryable.by as readonly string[]).includes(name))
      throw unsupported(`be queried by ${name}`);
  };
  const findBatch = def.findBatch;
  const batchMax = declaration.queryable.batch_max ?? null;
  /** The batch wrapper: the single find's guards, per answer and for the call as a whole. */
  const statusQueryBatch = async (
    keys: readonly QueryKey[],
    deadlineMs: number,
    signal?: AbortSignal,
  ): Promise<readonly StatusResult[]> => {
    if (findBatch === undefined || batchMax === null) throw unsupported("batch status queries");
    for (const key of keys) checkKey(key);
    checkBatchSize(id, keys.length, batchMax);
    const c = ctx(deadlineMs, signal);
    if (keys.length === 0) return [];
    const all = (evidence: Record<string, unknown>): StatusResult[] =>
      keys.map(() => noAnswer(evidence));
    let answers: unknown;
    try {
      answers = await findBatch(keys, c);
    } catch (e) {
      return all({ thrown: errorLabel(e) });
    }
    if (!Array.isArray(answers) || answers.length !== keys.length)
      return all({ contract_violation: "findBatch must answer one result per key, in key order" });
    const list: readonly unknown[] = answers;
    return keys.map((k, i) =>
      checkedStatus(list[i], k.kind === "destination_ref" ? k.value : null),
    );
  };

  const adapter: Adapter = {
    adapterId: id,
    declare: () => declaration,
    validatePayload(effectType, payload) {
      if (def.effectTypes !== undefined && !def.effectTypes.includes(effectType)) {
        throw payloadInvalid(
          "effect_type",
          `got ${JSON.stringify(effectType)}; allowed: ${def.effectTypes.join(", ")}`,
        );
      }
      const problem = jsonPayloadProblem(payload, maxBytes);
      if (problem !== null) throw payloadInvalid(problem.path, problem.reason);
      const own = def.validatePayload?.(effectType, payload);
      if (typeof own === "string") throw payloadInvalid("payload", own);
      if (own !== null && own !== undefined) throw payloadInvalid(own.path, own.reason);
    },
    async dispatch(order: DispatchOrder, deadlineMs: number, signal?: AbortSignal) {
      const c = ctx(deadlineMs, signal);
      try {
        return checkedDispatch(await def.create(order, c));
      } catch (e) {
        return { transportOutcome: "LOST", evidence: { thrown: errorLabel(e) } };
      }
    },
    async statusQuery(key: QueryKey, deadlineMs: number, signal?: AbortSignal) {
      checkKey(key);
      const c = ctx(deadlineMs, signal);
      try {
        if (key.kind === "client_ref")
          return checkedStatus(await def.findByClientRef?.(key.value, c), null);
        if (key.kind === "destination_ref")
          return checkedStatus(await def.findByDestinationRef?.(key.value, c), key.value);
        return checkedStatus(await def.findByStableId?.(key.name, key.value, c), null);
      } catch (e) {
        return {
          result: "INDETERMINATE",
          nFound: null,
          destinationRefs: [],
          evidence: { thrown: errorLabel(e) },
        };
      }
    },
    ...(findBatch === undefined ? {} : { statusQueryBatch }),
    async listEffects(window, cursor, deadlineMs): Promise<ListPage> {
      if (def.list === undefined) throw unsupported("list effects");
      const c = ctx(deadlineMs);
      let page: unknown;
      try {
        page = await def.list(window, cursor, c);
      } catch (e) {
        if (isIrrevonError(e)) throw e;
        throw new IrrevonError("destination_unavailable", `${id} list failed`, {
          retryable: true,
          cause: e,
          details: { adapter: id, thrown: errorLabel(e) },
        });
      }
      const p = page as ListPage | null;
      if (
        !isRecord(p) ||
        !Array.isArray(p.effects) ||
        !(p.nextCursor === null || typeof p.nextCursor === "string")
      ) {
        throw new IrrevonError("destination_unavailable", `${id} list returned a malformed page`, {
          retryable: true,
          details: {
            adapter: id,
            contract_violation: "page must be {effects: [...], nextCursor: string | null}",
          },
        });
      }
      return p;
    },
  };
  return Object.freeze(adapter);
}
