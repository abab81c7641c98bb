/**
 * ledger/sweep-match — maps listed destination effects to the ledger's CLAIMED attempts (§7
 * sweep, I10; docs/engine.md "What explains a destination effect"). Only an execution of a
 * record of the SAME adapter that has a claimed attempt (a dispatch_attempts row of that
 * adapter) can explain an effect; a key of an execution never claimed — denied by the gate,
 * cancelled, never dispatched — or of another adapter's record explains nothing. Keys, in
 * the order of their strength:
 *   1. the stamped client ref equals a claimed execution's operation_id. This is also the
 *      in-flight guard: a dispatch's execution and attempt rows commit before its wire call,
 *      so an effect that is being created right now always matches;
 *   2. the destination ref equals one this adapter reported for a claimed execution before (a
 *      receipt, a late response, or a status probe's destination refs);
 *   3. a declared queryable stable-id projection (`stable_id:<name>` in the declaration's
 *      `queryable.by`) equals the stable id of a record of the same adapter and effect type
 *      that has a claimed execution.
 * Whether one execution has more effects than it may explain (one) is the audit's question:
 * see `unknownMatchedRefs`. Reads only; one query per key kind per batch. Imports: db, ledger.
 */
import type { Queryable } from "../db/db.js";
import { toId } from "./sql-util.js";

/** A listed destination effect, as far as matching needs it. */
export interface ListedForMatch {
  readonly destinationRef: string;
  readonly effectType: string;
  readonly clientRef: string | null;
  /** Stable-id projections the destination exposes (by stable-id name). */
  readonly fields?: Readonly<Record<string, string>>;
}

/** How a listed effect maps to a claimed execution of a ledger record. */
export interface SweepMatch {
  readonly effectId: string;
  /** `client_ref`, `destination_ref` or `stable_id:<name>`. */
  readonly path: string;
}

/** The match paths tried, strongest first (for the orphan finding's evidence). */
export function matchPathsTried(stableIdNames: readonly string[]): string[] {
  return ["client_ref", "destination_ref", ...stableIdNames.map((n) => `stable_id:${n}`)];
}

/** SQL: execution `x` has an attempt claimed through adapter `$1`. */
const CLAIMED = `EXISTS (SELECT 1 FROM dispatch_attempts c
                          WHERE c.execution_id = x.execution_id AND c.adapter_id = $1)`;

async function byClientRef(
  q: Queryable,
  adapterId: string,
  refs: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (refs.length === 0) return out;
  const { rows } = await q.query<{ operation_id: string; effect_id: string }>(
    `SELECT x.operation_id, x.effect_id FROM effect_executions x
       JOIN effect_records r ON r.effect_id = x.effect_id
      WHERE x.operation_id = ANY($2::text[]) AND r.adapter_id = $1 AND ${CLAIMED}`,
    [adapterId, refs],
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
  // way the effect maps to a claimed attempt. Receipts and late responses belong to an attempt
  // of this adapter by construction; a probe's execution must have one.
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
         CROSS JOIN LATERAL jsonb_array_elements_text(p.destination_refs) AS e(ref)
        WHERE p.adapter_id = $1 AND p.destination_refs ?| $2::text[]
          AND jsonb_typeof(p.destination_refs) = 'array'
          AND e.ref = ANY($2::text[]) AND ${CLAIMED}
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
    `SELECT r.effect_id, r.effect_type, r.stable_ids->>$2 AS value FROM effect_records r
      WHERE r.adapter_id = $1 AND r.stable_ids->>$2 = ANY($3::text[])
        AND EXISTS (SELECT 1 FROM effect_executions x WHERE x.effect_id = r.effect_id AND ${CLAIMED})
      ORDER BY r.effect_id`,
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
 * Matches `items` (listed by `adapterId`) against the ledger's claimed executions.
 * `stableIdNames` are the stable-id names the declaration says the destination can be
 * queried by. Returns the matches by destination ref; an absent entry is unmatched.
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
  const byClient = await byClientRef(q, adapterId, clientRefs);
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

/**
 * Matched refs the ledger has never seen for their record: no receipt, late response or
 * status probe of any of the record's executions (through this adapter) cites them. Such an
 * effect carries a claimed key, but nothing says it is THE effect of its execution: it may be
 * a second copy, or the effect of an execution settled FAILED. The sweep has the record
 * audited — unless an audit of the record already ran since the ref was first sighted (an
 * audit whose key cannot see the ref, e.g. one by destination ref, must not be repeated by
 * every run). Returns effect id → refs.
 */
export async function unknownMatchedRefs(
  q: Queryable,
  adapterId: string,
  matched: ReadonlyMap<string, SweepMatch>,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (matched.size === 0) return out;
  const refs = [...matched.keys()];
  const effects = refs.map((r) => matched.get(r)?.effectId ?? "");
  const { rows } = await q.query<{ ref: string; effect_id: string }>(
    `SELECT m.ref, m.effect_id FROM unnest($2::text[], $3::text[]) AS m(ref, effect_id)
      WHERE NOT EXISTS (
        SELECT 1 FROM dispatch_receipts d
          JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
          JOIN effect_executions x ON x.execution_id = a.execution_id
         WHERE d.destination_ref = m.ref AND a.adapter_id = $1 AND x.effect_id = m.effect_id)
        AND NOT EXISTS (
        SELECT 1 FROM late_responses l
          JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
          JOIN effect_executions x ON x.execution_id = a.execution_id
         WHERE l.destination_ref = m.ref AND a.adapter_id = $1 AND x.effect_id = m.effect_id)
        AND NOT EXISTS (
        SELECT 1 FROM status_probes p
          JOIN effect_executions x ON x.execution_id = p.execution_id
         WHERE p.adapter_id = $1 AND x.effect_id = m.effect_id
           AND p.destination_refs ?| ARRAY[m.ref] AND jsonb_typeof(p.destination_refs) = 'array')
        AND NOT EXISTS (
        SELECT 1 FROM status_probes p
          JOIN effect_executions x ON x.execution_id = p.execution_id
         WHERE p.adapter_id = $1 AND x.effect_id = m.effect_id AND p.probe_kind = 'audit'
           AND p.recorded_at >= (SELECT min(s.recorded_at) FROM sweep_sightings s
                                  WHERE s.adapter_id = $1 AND s.destination_ref = m.ref))`,
    [adapterId, refs, effects],
  );
  for (const r of rows) {
    const list = out.get(r.effect_id) ?? [];
    list.push(r.ref);
    out.set(r.effect_id, list);
  }
  return out;
}

/** Why a listed effect that carries a ledger key is still unexplained. */
export const UnexplainedReason = {
  /** The key is a record's of another adapter. */
  other_adapter: "other_adapter",
  /** The execution was cancelled before any attempt was claimed. */
  cancelled: "cancelled",
  /** The gate denied the execution and no attempt was claimed. */
  denied: "denied",
  /** No attempt was ever claimed for the execution. */
  never_dispatched: "never_dispatched",
} as const;
export type UnexplainedReason = (typeof UnexplainedReason)[keyof typeof UnexplainedReason];

/** The ledger key an unmatched effect carries, and why that key explains nothing. */
export interface UnexplainedKey {
  readonly operation_id: string;
  readonly effect_id: string;
  readonly reason: UnexplainedReason;
  readonly execution_id: number;
}

/**
 * For unmatched client refs that are nevertheless some execution's operation id: why they do
 * not explain the effect (evidence for the ORPHANED finding). Returns client ref → key.
 */
export async function unexplainedKeys(
  q: Queryable,
  adapterId: string,
  clientRefs: readonly string[],
): Promise<Map<string, UnexplainedKey>> {
  const out = new Map<string, UnexplainedKey>();
  if (clientRefs.length === 0) return out;
  const { rows } = await q.query<{
    operation_id: string;
    effect_id: string;
    execution_id: unknown;
    record_adapter: string;
    frontier: string;
    denied: boolean;
  }>(
    `SELECT x.operation_id, x.effect_id, x.execution_id, r.adapter_id AS record_adapter, f.frontier,
            EXISTS (SELECT 1 FROM gate_decisions g
                     WHERE g.execution_id = x.execution_id AND g.outcome = 'DENY') AS denied
       FROM effect_executions x
       JOIN effect_records r ON r.effect_id = x.effect_id
       JOIN execution_frontiers f ON f.execution_id = x.execution_id
      WHERE x.operation_id = ANY($1::text[])`,
    [clientRefs],
  );
  for (const r of rows) {
    const reason: UnexplainedReason =
      r.record_adapter !== adapterId
        ? UnexplainedReason.other_adapter
        : r.frontier === "CANCELLED"
          ? UnexplainedReason.cancelled
          : r.denied
            ? UnexplainedReason.denied
            : UnexplainedReason.never_dispatched;
    out.set(r.operation_id, {
      operation_id: r.operation_id,
      effect_id: r.effect_id,
      reason,
      execution_id: toId(r.execution_id),
    });
  }
  return out;
}
