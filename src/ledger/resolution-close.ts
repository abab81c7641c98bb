/**
 * ledger/resolution-close — the second half of COMPENSATED and REDISPATCHED resolutions
 * (§2.3): they close (actor system) only when the effect that carries them out settles
 * COMMITTED. `closeCompensatedFindings` is called right after a commit (the engine's
 * after-commit hook) and, because a process may die between a commit and its hook, the worker
 * also closes whatever `listClosableResolutions` finds on every cycle. `listPendingReplacements`
 * finds REDISPATCHED findings whose replacement execution was opened but never dispatched
 * (the deciding process died in between), so the worker can carry out the recorded decision.
 *
 * A compensation and the close of the findings it compensates serialize on an advisory lock
 * keyed by the compensating effect: either the close sees the COMPENSATED edge, or the
 * compensation sees the commit and closes in its own transaction. Imports: core, db, ledger.
 */
import type { Db, Queryable } from "../db/db.js";
import { latestExecution } from "./read-records.js";
import { resolveIn } from "./resolve-finding.js";

/**
 * SQL: keeps the findings `f` whose current status (their newest resolution) is `status`, read
 * from the derived index of open findings (0061) instead of every finding's resolutions.
 */
const OPEN_AT = (status: "COMPENSATED" | "REDISPATCHED"): string =>
  `JOIN open_findings o ON o.finding_id = f.finding_id AND o.status = '${status}'`;

/**
 * The effect's latest execution and its frontier (what effect_frontiers holds for it), looked up
 * for one effect: joined to the effect_frontiers view instead, the planner computed every
 * effect's frontier in the ledger on every worker cycle that had such a finding to look at.
 */
const LATEST_FRONTIER_SQL = (effectId: string): string =>
  `SELECT x.frontier, x.opened_by FROM execution_frontiers x
    WHERE x.effect_id = ${effectId} ORDER BY x.step DESC LIMIT 1`;

/** Takes the transaction-scoped lock that serializes compensation of `compensatingEffectId`. */
export async function lockCompensation(q: Queryable, compensatingEffectId: string): Promise<void> {
  await q.query("SELECT pg_advisory_xact_lock(irrevon_lock_key($1))", [
    `irrevon:compensation:${compensatingEffectId}`,
  ]);
}

/**
 * Closes every COMPENSATED finding whose compensating effect is `compensatingEffectId`, if
 * that effect's latest execution is SETTLED_COMMITTED. Idempotent; returns the closed ids.
 */
export async function closeCompensatedFindings(
  db: Db,
  compensatingEffectId: string,
): Promise<number[]> {
  return db.transaction(async (tx) => {
    await lockCompensation(tx, compensatingEffectId);
    const latest = await latestExecution(tx, compensatingEffectId);
    if (latest?.frontier !== "SETTLED_COMMITTED") return [];
    const { rows } = await tx.query<{ finding_id: unknown }>(
      `SELECT f.finding_id FROM findings f ${OPEN_AT("COMPENSATED")}
        WHERE (SELECT r.evidence->>'compensating_effect_id' FROM finding_resolutions r
                WHERE r.finding_id = f.finding_id AND r.to_status = 'COMPENSATED'
                ORDER BY r.resolution_seq DESC LIMIT 1) = $1
        ORDER BY f.finding_id`,
      [compensatingEffectId],
    );
    const closed: number[] = [];
    for (const row of rows) {
      const findingId = Number(row.finding_id);
      await resolveIn(tx, findingId, {
        from: "COMPENSATED",
        to: "CLOSED",
        actor: "system",
        evidence: {
          compensating_effect_id: compensatingEffectId,
          compensating_operation_id: latest.operationId,
          compensating_execution_id: latest.executionId,
        },
      });
      closed.push(findingId);
    }
    return closed;
  });
}

/** Effects whose commit should close findings but may not have yet (worker catch-up). */
export interface ClosableResolutions {
  /** Compensating effects that are SETTLED_COMMITTED while a COMPENSATED finding cites them. */
  readonly compensatingEffects: readonly string[];
  /**
   * Effects with a REDISPATCHED finding that have committed since: by the replacement, or by a
   * retry after the replacement failed (any execution after the decision carries it out).
   */
  readonly replacedEffects: readonly string[];
}

/** Finds resolutions whose closing commit already happened. */
export async function listClosableResolutions(q: Queryable): Promise<ClosableResolutions> {
  const compensating = await q.query<{ effect_id: string }>(
    `SELECT DISTINCT c.effect_id FROM (
       SELECT (SELECT r.evidence->>'compensating_effect_id' FROM finding_resolutions r
                WHERE r.finding_id = f.finding_id AND r.to_status = 'COMPENSATED'
                ORDER BY r.resolution_seq DESC LIMIT 1) AS effect_id
         FROM findings f ${OPEN_AT("COMPENSATED")}) c
       JOIN LATERAL (${LATEST_FRONTIER_SQL("c.effect_id")}) e ON true
      WHERE e.frontier = 'SETTLED_COMMITTED' ORDER BY c.effect_id`,
  );
  const replaced = await q.query<{ effect_id: string }>(
    `SELECT DISTINCT f.effect_id FROM findings f ${OPEN_AT("REDISPATCHED")}
      WHERE f.effect_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM execution_frontiers x
                     WHERE x.effect_id = f.effect_id AND x.frontier = 'SETTLED_COMMITTED')
      ORDER BY f.effect_id`,
  );
  return {
    compensatingEffects: compensating.rows.map((r) => r.effect_id),
    replacedEffects: replaced.rows.map((r) => r.effect_id),
  };
}

/**
 * Effects with a REDISPATCHED finding whose replacement execution (their latest, opened by
 * resolve_redispatch) is still PERSISTED: the decision was recorded, the dispatch never ran.
 */
export async function listPendingReplacements(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ effect_id: string }>(
    `SELECT DISTINCT f.effect_id FROM findings f ${OPEN_AT("REDISPATCHED")}
       JOIN LATERAL (${LATEST_FRONTIER_SQL("f.effect_id")}) e ON true
      WHERE e.opened_by = 'resolve_redispatch' AND e.frontier = 'PERSISTED'
      ORDER BY f.effect_id`,
  );
  return rows.map((r) => r.effect_id);
}
