/**
 * ledger/audit-reads — what the audit of a settled record needs besides the record itself, in
 * one query: for each execution of the record, whether an attempt was claimed through the
 * record's adapter (only a claimed execution explains a destination effect), and the
 * destination refs its own attempts reported (receipts, then late responses): the effect the
 * ledger already knows as that execution's own. Reads only. Imports: db, ledger.
 */
import type { Queryable } from "../db/db.js";
import { isoSql, toId } from "./sql-util.js";

/** One execution as the audit sees it. */
export interface AuditedExecution {
  readonly executionId: number;
  readonly claimed: boolean;
  /** Refs its own attempts reported, oldest first. */
  readonly reportedRefs: readonly string[];
}

/** Claimed flag and reported refs of every execution of `effectId`, by execution id. */
export async function readAuditedExecutions(
  q: Queryable,
  effectId: string,
  adapterId: string,
): Promise<Map<number, AuditedExecution>> {
  const { rows } = await q.query<{
    execution_id: unknown;
    claimed: boolean;
    refs: string[] | null;
  }>(
    `SELECT x.execution_id,
            EXISTS (SELECT 1 FROM dispatch_attempts a
                     WHERE a.execution_id = x.execution_id AND a.adapter_id = $2) AS claimed,
            ARRAY(SELECT s.ref FROM (
                    SELECT d.destination_ref AS ref, 0 AS source, d.receipt_id AS seq
                      FROM dispatch_receipts d JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
                     WHERE a.execution_id = x.execution_id AND d.destination_ref IS NOT NULL
                    UNION ALL
                    SELECT l.destination_ref, 1, l.late_id
                      FROM late_responses l JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
                     WHERE a.execution_id = x.execution_id AND l.destination_ref IS NOT NULL
                  ) s ORDER BY s.source, s.seq) AS refs
       FROM effect_executions x WHERE x.effect_id = $1 ORDER BY x.step`,
    [effectId, adapterId],
  );
  const out = new Map<number, AuditedExecution>();
  for (const r of rows) {
    const executionId = toId(r.execution_id);
    out.set(executionId, { executionId, claimed: r.claimed, reportedRefs: r.refs ?? [] });
  }
  return out;
}

/**
 * The latest instant the ledger shows for the settled execution `executionId`'s calls (epoch
 * ms, engine time where the engine stamped it, database time otherwise; null: no attempt): by
 * then a commit of any of its calls had happened, so read lag counts from here. The newest of
 * every attempt's claim, receipt (`recorded_at`), call end (`claimed_at + call_elapsed_ms`) and
 * stamped horizon, every late response, and every PRESENT probe of the execution.
 */
export async function readCallsEndedByMs(
  q: Queryable,
  executionId: number,
): Promise<number | null> {
  const { rows } = await q.query<{ t: string | null }>(
    `SELECT ${isoSql("a.claimed_at")} AS t FROM dispatch_attempts a WHERE a.execution_id = $1
     UNION ALL
     SELECT ${isoSql("d.recorded_at")} FROM dispatch_receipts d
       JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id WHERE a.execution_id = $1
     UNION ALL
     SELECT ${isoSql("a.claimed_at + (d.evidence->>'call_elapsed_ms')::numeric * interval '1 millisecond'")}
       FROM dispatch_receipts d JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
      WHERE a.execution_id = $1 AND jsonb_typeof(d.evidence->'call_elapsed_ms') = 'number'
     UNION ALL
     SELECT d.evidence->>'commit_horizon_at' FROM dispatch_receipts d
       JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
      WHERE a.execution_id = $1 AND jsonb_typeof(d.evidence->'commit_horizon_at') = 'string'
     UNION ALL
     SELECT ${isoSql("l.recorded_at")} FROM late_responses l
       JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id WHERE a.execution_id = $1
     UNION ALL
     SELECT ${isoSql("p.queried_at")} FROM status_probes p
      WHERE p.execution_id = $1 AND p.result = 'PRESENT'`,
    [executionId],
  );
  let latest: number | null = null;
  for (const r of rows) {
    const ms = Date.parse(r.t ?? "");
    if (Number.isFinite(ms) && (latest === null || ms > latest)) latest = ms;
  }
  return latest;
}
