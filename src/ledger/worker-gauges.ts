/**
 * ledger/worker-gauges — the numbers an operator watches (§8 worker health) and the worker's
 * bounded audit queue. Ages use the database clock, so every process reports the same.
 * Imports: db, ledger.
 */
import type { Queryable } from "../db/db.js";

/** Health gauges of the whole ledger. */
export interface LedgerGauges {
  /** Executions DISPATCHED or AMBIGUOUS. */
  readonly openExecutions: number;
  readonly ambiguousExecutions: number;
  /** Age of the oldest open execution (its creation), in seconds; 0 when none. */
  readonly oldestOpenAgeSeconds: number;
  /** Findings without a CLOSED resolution. */
  readonly openFindings: number;
}

/** Reads the gauges in one round trip. */
export async function readLedgerGauges(q: Queryable): Promise<LedgerGauges> {
  const { rows } = await q.query<{
    open_executions: unknown;
    ambiguous_executions: unknown;
    oldest_open_age_s: unknown;
    open_findings: unknown;
  }>(
    `SELECT
       (SELECT count(*) FROM open_executions) AS open_executions,
       (SELECT count(*) FROM open_executions WHERE frontier = 'AMBIGUOUS') AS ambiguous_executions,
       (SELECT COALESCE(floor(EXTRACT(EPOCH FROM (now() - min(x.created_at)))), 0)
          FROM open_executions o JOIN effect_executions x ON x.execution_id = o.execution_id) AS oldest_open_age_s,
       (SELECT count(*) FROM open_findings) AS open_findings`,
  );
  const r = rows[0];
  return {
    openExecutions: Number(r?.open_executions ?? 0),
    ambiguousExecutions: Number(r?.ambiguous_executions ?? 0),
    oldestOpenAgeSeconds: Math.max(0, Number(r?.oldest_open_age_s ?? 0)),
    openFindings: Number(r?.open_findings ?? 0),
  };
}

/**
 * Recently settled effects never audited: the latest execution settled (COMMITTED or
 * FAILED) within `lookbackSeconds`, at least `minAgeSeconds` ago, through one of
 * `adapterIds`, with no audit probe on that execution yet. Oldest settle first, at most `limit`.
 */
export async function listAuditCandidates(
  q: Queryable,
  options: {
    readonly adapterIds: readonly string[];
    readonly lookbackSeconds: number;
    readonly minAgeSeconds: number;
    readonly limit: number;
  },
): Promise<string[]> {
  if (options.adapterIds.length === 0 || options.limit < 1) return [];
  // The window's settle transitions (index of 0055), each kept only while it is still its
  // execution's frontier and that execution the effect's latest: the effect_frontiers rows of
  // the window, without computing the frontier of every effect in the ledger.
  const { rows } = await q.query<{ effect_id: string }>(
    `SELECT x.effect_id FROM effect_transitions t
       JOIN effect_executions x ON x.execution_id = t.execution_id
       JOIN effect_records r ON r.effect_id = x.effect_id
      WHERE t.to_state IN ('SETTLED_COMMITTED', 'SETTLED_FAILED')
        AND t.created_at >= now() - make_interval(secs => $2)
        AND t.created_at <= now() - make_interval(secs => $3)
        AND r.adapter_id = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM effect_transitions n
                         WHERE n.execution_id = t.execution_id AND n.transition_seq > t.transition_seq)
        AND NOT EXISTS (SELECT 1 FROM effect_executions y
                         WHERE y.effect_id = x.effect_id AND y.step > x.step)
        AND NOT EXISTS (SELECT 1 FROM status_probes p
                         WHERE p.execution_id = t.execution_id AND p.probe_kind = 'audit')
      ORDER BY t.created_at, x.effect_id LIMIT $4`,
    [options.adapterIds, options.lookbackSeconds, options.minAgeSeconds, options.limit],
  );
  return rows.map((r) => r.effect_id);
}
