/**
 * testing/conformance-batch-checks — the conformance checks of batch status lookups
 * (`queryable.batch_max` + `statusQueryBatch`), which apply only when the declaration has
 * `batch_max` and are skipped with the reason otherwise:
 *   - `batch.matches_single`: a batch answers every key exactly as the single status query
 *     answers it (result, count, refs), one answer per key in key order — for a present key,
 *     an absent key, a mixed order and a batch of exactly `batch_max` keys;
 *   - `batch.engine_respects_max`: the engine's coalescer (engine/status-batcher), given more
 *     than two batches' worth of keys at once, never sends more than `batch_max` in one call,
 *     and every key gets a well-formed answer.
 * Imports: adapters, engine, testing.
 */
import type { Adapter, QueryKey, StatusResult } from "../adapters/contract.js";
import { queryKeyName } from "../adapters/status-answers.js";
import { StatusBatcher, WireSlots } from "../engine/status-batcher.js";
import {
  create,
  fail,
  pass,
  query,
  show,
  skip,
  waitStatusLag,
  type Check,
  type CheckContext,
  type Verdict,
} from "./conformance-checks.js";
import type { ConformanceCheckName } from "./conformance-types.js";

const DEFAULT_MISSING_REF = "irrevon-conformance-missing-ref";

/** Why the batch checks do not apply, or null when they do. */
function notApplicable(c: CheckContext): Verdict | null {
  const max = c.d.queryable.batch_max ?? null;
  if (max === null)
    return skip("no queryable.batch_max declared: the engine asks one key per status query");
  if (typeof c.a.statusQueryBatch !== "function")
    return fail(
      `declares queryable.batch_max ${max} but the adapter has no statusQueryBatch (the engine refuses it at open)`,
    );
  return null;
}

function describeKey(k: QueryKey): string {
  return `${queryKeyName(k)} ${k.value}`;
}

/** Same answer, as far as the engine can tell: result, count and the set of refs. */
function sameAnswer(a: StatusResult, b: StatusResult): boolean {
  const refs = (r: StatusResult): string => [...r.destinationRefs].sort().join("\n");
  return a.result === b.result && a.nFound === b.nFound && refs(a) === refs(b);
}

/** `n` distinct keys that name nothing (client refs when declared; else the missing ref). */
function absentKeys(c: CheckContext, n: number, tag: string): QueryKey[] {
  const byClientRef = c.d.queryable.by.includes("client_ref");
  return Array.from({ length: n }, (_, i): QueryKey =>
    byClientRef
      ? { kind: "client_ref", value: `conf-${c.run}-${tag}-never-${i}` }
      : { kind: "destination_ref", value: c.h.unknownDestinationRef ?? DEFAULT_MISSING_REF },
  );
}

export const batchMatchesSingle: Check = async (c) => {
  const na = notApplicable(c);
  if (na !== null) return na;
  const max = c.d.queryable.batch_max as number;
  const kinds = c.d.queryable.by.filter((k) => k === "client_ref" || k === "destination_ref");
  if (kinds.length === 0)
    return skip("queryable only by stable ids: the suite has no key it can make present");
  const made = [await create(c, 0), await create(c, 1)];
  await waitStatusLag(c);
  const present: QueryKey[] = [];
  const absent: QueryKey[] = [];
  for (const kind of kinds) {
    if (kind === "client_ref") {
      for (const m of made) present.push({ kind, value: m.order.clientRef });
      absent.push(...absentKeys(c, 1, "single"));
    } else {
      for (const m of made) {
        if (m.ref === null)
          return fail(
            "declares queryable by destination_ref, but create returned no destinationRef",
          );
        present.push({ kind, value: m.ref });
      }
      absent.push({ kind, value: c.h.unknownDestinationRef ?? DEFAULT_MISSING_REF });
    }
  }
  // Present and absent keys interleaved, absent first: an adapter that answers in any order
  // but the keys' (sorted, grouped by result) fails here.
  const mixed: QueryKey[] = [];
  for (let i = 0; i < Math.max(present.length, absent.length); i += 1) {
    const a = absent[i];
    const p = present[i];
    if (a !== undefined) mixed.push(a);
    if (p !== undefined) mixed.push(p);
  }
  const seed = [...present, ...absent];
  const full = [...seed, ...absentKeys(c, Math.max(0, max - seed.length), "fill")].slice(0, max);
  const batches: ReadonlyArray<readonly [string, readonly QueryKey[]]> = [
    ["one present key", present.slice(0, 1)],
    ["one absent key", absent.slice(0, 1)],
    ["present and absent keys in mixed order", mixed.slice(0, max)],
    [`exactly batch_max (${max}) keys`, full],
  ];
  const singles = new Map<string, StatusResult>();
  const single = async (k: QueryKey): Promise<StatusResult> => {
    const id = JSON.stringify(k);
    let r = singles.get(id);
    if (r === undefined) {
      r = await query(c, k);
      singles.set(id, r);
    }
    return r;
  };
  const batch = c.a.statusQueryBatch as NonNullable<Adapter["statusQueryBatch"]>;
  for (const [label, keys] of batches) {
    const answers: unknown = await batch.call(c.a, keys, c.deadlineMs);
    if (!Array.isArray(answers) || answers.length !== keys.length)
      return fail(
        `a batch of ${keys.length} keys (${label}) answered ${Array.isArray(answers) ? `${answers.length} results` : "no list"}; it must answer one result per key, in key order`,
      );
    for (const [i, key] of keys.entries()) {
      const got = answers[i] as StatusResult;
      const want = await single(key);
      if (typeof got !== "object" || got === null || !sameAnswer(got, want))
        return fail(
          `in a batch of ${keys.length} keys (${label}), key ${i} (${describeKey(key)}) was answered ${typeof got === "object" && got !== null ? show(got) : String(got)}, but the single status query answers ${show(want)}`,
        );
    }
  }
  return pass(
    `${batches.length} batches (1 to ${max} keys: present, absent, mixed order, exactly batch_max) answer each key as its single status query does`,
  );
};

export const batchEngineRespectsMax: Check = async (c) => {
  const na = notApplicable(c);
  if (na !== null) return na;
  const max = c.d.queryable.batch_max as number;
  const batch = c.a.statusQueryBatch as NonNullable<Adapter["statusQueryBatch"]>;
  const sizes: number[] = [];
  const spy: Adapter = {
    ...c.a,
    statusQueryBatch: (keys, deadlineMs, signal) => {
      sizes.push(keys.length);
      return batch.call(c.a, keys, deadlineMs, signal);
    },
  };
  const batcher = new StatusBatcher(spy, {
    batchMax: max,
    deadlineMs: c.deadlineMs,
    slots: new WireSlots(2),
  });
  const keys = absentKeys(c, 2 * max + 1, "engine");
  const answers = await Promise.all(keys.map((k) => batcher.query(k)));
  const over = sizes.filter((n) => n > max);
  if (over.length > 0)
    return fail(
      `the engine sent a batch of ${over[0]} keys with batch_max ${max} (calls: ${sizes.join(", ")})`,
    );
  if (sizes.reduce((a, b) => a + b, 0) !== keys.length)
    return fail(`the engine sent ${sizes.join(" + ")} keys for ${keys.length} asked`);
  const broken = answers.find((a) => a.evidence["engine"] === "batch_contract_violation");
  if (broken !== undefined)
    return fail(
      `the adapter's batch answer broke the contract: ${String(broken.evidence["violation"])} (every key of that batch became INDETERMINATE)`,
    );
  return pass(
    `${keys.length} keys asked at once went out in ${sizes.length} calls of ${sizes.join(", ")} keys, none over batch_max ${max}`,
  );
};

/** The batch checks, by name. */
export const BATCH_CHECKS: Readonly<
  Record<Extract<ConformanceCheckName, `batch.${string}`>, Check>
> = {
  "batch.matches_single": batchMatchesSingle,
  "batch.engine_respects_max": batchEngineRespectsMax,
};
