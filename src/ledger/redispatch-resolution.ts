/**
 * ledger/redispatch-resolution — the crash-atomic half of a LOST → REDISPATCHED resolution
 * (§7): in ONE transaction the finding moves to REDISPATCHED (citing the absence evidence
 * and the authority), the fresh authority is appended, and a new execution is opened
 * (`resolve_redispatch`: new step, new key). The replacement is dispatched afterwards; when
 * it settles COMMITTED, `closeReplacedFindings` moves the finding to CLOSED. Never legal for
 * a DUPLICATE (the SQL cell check refuses it, I8). Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { ResolutionActor, ResolutionStatus } from "../core/state-tables.js";
import type { Db } from "../db/db.js";
import type { AuthorityInput } from "./append-authority.js";
import { openExecutionIn, type OpenedExecution } from "./open-retry-execution.js";
import { listExecutions } from "./read-records.js";
import { listFindings, readFinding, resolveIn } from "./resolve-finding.js";

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
 * Closes every REDISPATCHED finding of `effectId` whose replacement execution (an execution
 * opened by resolve_redispatch after the finding) settled COMMITTED. Idempotent.
 */
export async function closeReplacedFindings(db: Db, effectId: string): Promise<number[]> {
  return db.transaction(async (tx) => {
    const findings = (await listFindings(tx, effectId)).filter((f) => f.status === "REDISPATCHED");
    if (findings.length === 0) return [];
    const committed = (await listExecutions(tx, effectId)).filter(
      (e) => e.openedBy === "resolve_redispatch" && e.frontier === "SETTLED_COMMITTED",
    );
    const replacement = committed[committed.length - 1];
    if (replacement === undefined) return [];
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
