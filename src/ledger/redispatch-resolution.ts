/**
 * ledger/redispatch-resolution — the crash-atomic half of a LOST → REDISPATCHED resolution
 * (§7): in ONE transaction the finding moves to REDISPATCHED (citing the absence evidence
 * and the authority), the fresh authority is appended, and a new execution is opened
 * (`resolve_redispatch`: new step, new key). The replacement is dispatched afterwards; when
 * the effect settles COMMITTED, `closeReplacedFindings` moves the finding to CLOSED. Never
 * legal for a DUPLICATE (the SQL cell check refuses it, I8), nor while anything shows the
 * effect at the destination (`readRedispatchEvidence`; `ledger_resolve` refuses it too, and
 * requires the edge to cite the newest probe of the failed execution, ABSENT, as
 * `absent_probe_id`). Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { ProbeResult, ResolutionActor, ResolutionStatus } from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import type { AuthorityInput } from "./append-authority.js";
import { openExecutionIn, type OpenedExecution } from "./open-retry-execution.js";
import { latestExecution } from "./read-records.js";
import { listFindings, readFinding, resolveIn } from "./resolve-finding.js";
import { isoSql, toId, toIdOrNull } from "./sql-util.js";

/** Moves a LOST finding to REDISPATCHED and opens the replacement execution. */
export async function beginRedispatch(
  db: Db,
  input: {
    readonly findingId: number;
    readonly actor: Extract<ResolutionActor, "human" | "policy_auto">;
    readonly authority: AuthorityInput;
    readonly evidence: Readonly<Record<string, unknown>>;
    /** The status the caller saw; a different current status is stale_state (DT002). Default: current. */
    readonly from?: ResolutionStatus;
  },
): Promise<OpenedExecution> {
  return db.transaction(async (tx) => {
    const finding = await readFinding(tx, input.findingId);
    if (finding.effectId === null) {
      throw new IrrevonError(
        ErrorCode.resolution_invalid,
        "only a record-keyed finding can be re-dispatched",
        { details: { finding_id: input.findingId } },
      );
    }
    const from = input.from ?? finding.status;
    await resolveIn(tx, input.findingId, {
      from,
      to: "REDISPATCHED",
      actor: input.actor,
      evidence: { ...input.evidence, authority_ref: input.authority.authorityRef },
    });
    return openExecutionIn(tx, finding.effectId, "resolve_redispatch", input.authority);
  });
}

/**
 * What the ledger says about an effect that a re-dispatch must be decided on: anything that
 * shows the effect at the destination, and the newest probe of its latest execution (the
 * only one an absence may be cited from). Read in one statement.
 */
export interface RedispatchEvidence {
  /** Newest PRESENT probe of any execution of the effect. */
  readonly presentProbeId: number | null;
  /** Oldest CONTRADICTED finding of the effect that was never COMPENSATED. */
  readonly contradictedFindingId: number | null;
  /** Newest late OK response to any attempt of the effect. */
  readonly lateOkId: number | null;
  /** Newest probe of the effect's latest execution. */
  readonly newestProbe: {
    readonly probeId: number;
    readonly result: ProbeResult;
    readonly queriedAt: string;
  } | null;
}

/** Reads {@link RedispatchEvidence} for `effectId` (the same rule `ledger_resolve` enforces, 0045). */
export async function readRedispatchEvidence(
  q: Queryable,
  effectId: string,
): Promise<RedispatchEvidence> {
  const { rows } = await q.query<{
    present_probe_id: unknown;
    contradicted_finding_id: unknown;
    late_ok_id: unknown;
    newest_probe_id: unknown;
    newest_result: ProbeResult | null;
    newest_queried_at: string | null;
  }>(
    `SELECT
       (SELECT max(p.probe_id) FROM status_probes p JOIN effect_executions x ON x.execution_id = p.execution_id
         WHERE x.effect_id = $1 AND p.result = 'PRESENT') AS present_probe_id,
       (SELECT min(c.finding_id) FROM findings c
         WHERE c.effect_id = $1 AND c.classification = 'CONTRADICTED'
           AND NOT EXISTS (SELECT 1 FROM finding_resolutions r
                            WHERE r.finding_id = c.finding_id AND r.to_status = 'COMPENSATED')) AS contradicted_finding_id,
       (SELECT max(l.late_id) FROM late_responses l
          JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
          JOIN effect_executions x ON x.execution_id = a.execution_id
         WHERE x.effect_id = $1 AND l.transport_outcome = 'OK') AS late_ok_id,
       n.probe_id AS newest_probe_id, n.result AS newest_result,
       ${isoSql("n.queried_at")} AS newest_queried_at
     FROM (SELECT 1) one
     LEFT JOIN LATERAL (
       SELECT p.probe_id, p.result, p.queried_at FROM status_probes p
        WHERE p.execution_id = (SELECT x.execution_id FROM effect_executions x
                                 WHERE x.effect_id = $1 ORDER BY x.step DESC LIMIT 1)
        ORDER BY p.probe_id DESC LIMIT 1) n ON true`,
    [effectId],
  );
  const r = rows[0];
  return {
    presentProbeId: toIdOrNull(r?.present_probe_id),
    contradictedFindingId: toIdOrNull(r?.contradicted_finding_id),
    lateOkId: toIdOrNull(r?.late_ok_id),
    newestProbe:
      r === undefined || r.newest_probe_id === null || r.newest_result === null
        ? null
        : {
            probeId: toId(r.newest_probe_id),
            result: r.newest_result,
            queriedAt: r.newest_queried_at ?? "",
          },
  };
}

/**
 * Closes every REDISPATCHED finding of `effectId` once the effect has committed. Only an
 * execution opened after the re-dispatch decision can commit (a finding is re-dispatched only
 * while the latest execution is SETTLED_FAILED, and nothing follows a commit), so whichever
 * execution carried the decision out — the replacement, or a retry after the replacement
 * failed — closes it. Idempotent.
 */
export async function closeReplacedFindings(db: Db, effectId: string): Promise<number[]> {
  return db.transaction(async (tx) => {
    const findings = (await listFindings(tx, effectId)).filter((f) => f.status === "REDISPATCHED");
    if (findings.length === 0) return [];
    const replacement = await latestExecution(tx, effectId);
    if (replacement?.frontier !== "SETTLED_COMMITTED") return [];
    const closed: number[] = [];
    for (const f of findings) {
      await resolveIn(tx, f.findingId, {
        from: "REDISPATCHED",
        to: "CLOSED",
        actor: "system",
        evidence: {
          replacement_operation_id: replacement.operationId,
          replacement_execution_id: replacement.executionId,
        },
      });
      closed.push(f.findingId);
    }
    return closed;
  });
}
