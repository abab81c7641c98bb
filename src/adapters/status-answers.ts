/**
 * adapters/status-answers — small pieces every status lookup shares, whoever implements it
 * (the reference adapter, `defineAdapter`, the engine's guarded calls): the answer a failed or
 * unreadable lookup gives (INDETERMINATE, never ABSENT), a query key's declared name
 * (`queryable.by`), and the refusal of a batch larger than the declared `batch_max`.
 * Imports: core, adapters.
 */
import { IrrevonError } from "../core/errors.js";
import type { QueryKey, StatusResult } from "./contract.js";

/** No answer: what any failure of a lookup is, with the evidence of why. */
export function noAnswer(
  evidence: Readonly<Record<string, unknown>>,
  responseDigest?: string,
): StatusResult {
  return {
    result: "INDETERMINATE",
    nFound: null,
    destinationRefs: [],
    evidence,
    ...(responseDigest === undefined ? {} : { responseDigest }),
  };
}

/** The name a declaration lists a key under in `queryable.by`. */
export function queryKeyName(key: QueryKey): string {
  return key.kind === "stable_id" ? `stable_id:${key.name}` : key.kind;
}

/** Throws `usage` when `count` keys exceed the declared `batchMax` of `adapterId`. */
export function checkBatchSize(adapterId: string, count: number, batchMax: number): void {
  if (count <= batchMax) return;
  throw new IrrevonError(
    "usage",
    `${adapterId} answers at most ${batchMax} keys per batch (queryable.batch_max); got ${count}`,
    { details: { adapter: adapterId, field: "keys", limit: batchMax, got: count } },
  );
}
