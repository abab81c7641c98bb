/**
 * ledger/sweep-match — maps listed destination effects to ledger records (§7 sweep, I10), in
 * the order of the keys' strength:
 *   1. the stamped client ref equals some execution's operation_id. This is also the in-flight
 *      guard: a dispatch's execution and attempt rows commit before its wire call, so an effect
 *      that is being created right now always matches;
 *   2. the destination ref equals one this adapter reported before (a receipt, a late
 *      response, or a status probe's destination refs);
 *   3. a declared queryable stable-id projection (`stable_id:<name>` in the declaration's
 *      `queryable.by`) equals a record's stable id of the same adapter and effect type.
 * Reads only; one query per key kind per batch. Imports: db, ledger.
 */
import type { Queryable } from "../db/db.js";

/** A listed destination effect, as far as matching needs it. */
export interface ListedForMatch {
  readonly destinationRef: string;
  readonly effectType: string;
  readonly clientRef: string | null;
  /** Stable-id projections the destination exposes (by stable-id name). */
  readonly fields?: Readonly<Record<string, string>>;
}

/** How a listed effect maps to a ledger record. */
export interface SweepMatch {
  readonly effectId: string;
  /** `client_ref`, `destination_ref` or `stable_id:<name>`. */
  readonly path: string;
}

/** The match paths tried, strongest first (for the orphan finding's evidence). */
export function matchPathsTried(stableIdNames: readonly string[]): string[] {
  return ["client_ref", "destination_ref", ...stableIdNames.map((n) => `stable_id:${n}`)];
}

async function byClientRef(q: Queryable, refs: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (refs.length === 0) return out;
  const { rows } = await q.query<{ operation_id: string; effect_id: string }>(
    "SELECT operation_id, effect_id FROM effect_executions WHERE operation_id = ANY($1::text[])",
    [refs],
  );
  for (const r of rows) out.set(r.operation_id, r.effect_id);
  return out;
}

async function byDestinationRef(
  q: Queryable,
  adapterId: string,
  refs: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (refs.length === 0) return out;
  // Lowest effect id wins when (unexpectedly) two records cite one ref: deterministic, and either
  // way the effect maps to a record, which is all I10 asks of the sweep.
  const { rows } = await q.query<{ ref: string; effect_id: string }>(
    `SELECT m.ref, min(m.effect_id) AS effect_id FROM (
       SELECT d.destination_ref AS ref, x.effect_id
         FROM dispatch_receipts d
         JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
         JOIN effect_executions x ON x.execution_id = a.execution_id
        WHERE a.adapter_id = $1 AND d.destination_ref = ANY($2::text[])
       UNION ALL
       SELECT l.destination_ref, x.effect_id
         FROM late_responses l
         JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
         JOIN effect_executions x ON x.execution_id = a.execution_id
        WHERE a.adapter_id = $1 AND l.destination_ref = ANY($2::text[])
       UNION ALL
       SELECT e.ref, x.effect_id
         FROM status_probes p
         JOIN effect_executions x ON x.execution_id = p.execution_id
         CROSS JOIN LATERAL jsonb_array_elements_text(
           CASE WHEN jsonb_typeof(p.destination_refs) = 'array' THEN p.destination_refs ELSE '[]'::jsonb END
         ) AS e(ref)
        WHERE p.adapter_id = $1 AND e.ref = ANY($2::text[])
     ) m GROUP BY m.ref`,
    [adapterId, refs],
  );
  for (const r of rows) out.set(r.ref, r.effect_id);
  return out;
}

async function byStableId(
  q: Queryable,
  adapterId: string,
  name: string,
  items: readonly ListedForMatch[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const wanted = items.filter((i) => typeof i.fields?.[name] === "string");
  if (wanted.length === 0) return out;
  const { rows } = await q.query<{ effect_id: string; effect_type: string; value: string }>(
    `SELECT effect_id, effect_type, stable_ids->>$2 AS value FROM effect_records
      WHERE adapter_id = $1 AND stable_ids->>$2 = ANY($3::text[]) ORDER BY effect_id`,
    [adapterId, name, wanted.map((i) => i.fields?.[name] ?? "")],
  );
  for (const item of wanted) {
    const hit = rows.find(
      (r) => r.value === item.fields?.[name] && r.effect_type === item.effectType,
    );
    if (hit !== undefined) out.set(item.destinationRef, hit.effect_id);
  }
  return out;
}

/**
 * Matches `items` (listed by `adapterId`) against the ledger. `stableIdNames` are the
 * stable-id names the declaration says the destination can be queried by. Returns the
 * matches by destination ref; an absent entry is unmatched.
 */
export async function matchListedEffects(
  q: Queryable,
  adapterId: string,
  items: readonly ListedForMatch[],
  stableIdNames: readonly string[],
): Promise<Map<string, SweepMatch>> {
  const out = new Map<string, SweepMatch>();
  const clientRefs = [
    ...new Set(items.map((i) => i.clientRef).filter((c): c is string => c !== null)),
  ];
  const byClient = await byClientRef(q, clientRefs);
  for (const item of items) {
    const effectId = item.clientRef === null ? undefined : byClient.get(item.clientRef);
    if (effectId !== undefined) out.set(item.destinationRef, { effectId, path: "client_ref" });
  }
  let rest = items.filter((i) => !out.has(i.destinationRef));
  const byRef = await byDestinationRef(
    q,
    adapterId,
    rest.map((i) => i.destinationRef),
  );
  for (const item of rest) {
    const effectId = byRef.get(item.destinationRef);
    if (effectId !== undefined) out.set(item.destinationRef, { effectId, path: "destination_ref" });
  }
  for (const name of stableIdNames) {
    rest = rest.filter((i) => !out.has(i.destinationRef));
    if (rest.length === 0) break;
    const byId = await byStableId(q, adapterId, name, rest);
    for (const [ref, effectId] of byId) out.set(ref, { effectId, path: `stable_id:${name}` });
  }
  return out;
}
