/**
 * ledger/open-retry-execution — "try again" after a clean failure is a NEW execution
 * (§5.1): new step, so a new operation id and idempotency key, under fresh authority. Only
 * when the latest execution is SETTLED_FAILED by a FAILED receipt; a reconciled absence
 * goes through resolution (LOST → REDISPATCHED) instead. Never while an unresolved (OPEN or
 * ESCALATED_HUMAN) CONTRADICTED or DUPLICATE finding says the destination holds the effect
 * after all: retrying then would create it a second time. One transaction.
 * Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { ExecutionOpener, LifecycleState } from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import { appendAuthorityIn, checkAuthorityInput, type AuthorityInput } from "./append-authority.js";
import { latestExecution, latestReceipt, requireRecord } from "./read-records.js";
import { listFindings } from "./resolve-finding.js";
import { toId } from "./sql-util.js";

/** A newly opened execution (new step, new operation id and key). */
export interface OpenedExecution {
  readonly executionId: number;
  readonly step: number;
  readonly operationId: string;
  readonly lifecycle: LifecycleState;
  readonly authorityId: number;
}

/** Opens an execution through `ledger_open_execution` after appending the authority. */
export async function openExecutionIn(
  q: Queryable,
  effectId: string,
  openedBy: Exclude<ExecutionOpener, "register">,
  authority: AuthorityInput,
): Promise<OpenedExecution> {
  const authorityId = await appendAuthorityIn(q, effectId, authority);
  const { rows } = await q.query<{
    execution_id: unknown;
    step: number;
    operation_id: string;
    state: LifecycleState;
  }>("SELECT execution_id, step, operation_id, state FROM ledger_open_execution($1, $2)", [
    effectId,
    openedBy,
  ]);
  const row = rows[0];
  if (row === undefined)
    throw new IrrevonError(ErrorCode.internal, "ledger_open_execution returned nothing", {
      details: { effect_id: effectId },
    });
  return {
    executionId: toId(row.execution_id),
    step: Number(row.step),
    operationId: row.operation_id,
    lifecycle: row.state,
    authorityId,
  };
}

/** Opens a retry execution after a clean FAILED receipt. Throws illegal_state otherwise. */
export async function openRetryExecution(
  db: Db,
  effectId: string,
  authority: Partial<AuthorityInput>,
): Promise<OpenedExecution> {
  const fresh = checkAuthorityInput(authority);
  return db.transaction(async (tx) => {
    await requireRecord(tx, effectId, true);
    const latest = await latestExecution(tx, effectId);
    const receipt = latest === null ? null : await latestReceipt(tx, latest.executionId);
    if (
      latest === null ||
      latest.frontier !== "SETTLED_FAILED" ||
      receipt?.transportOutcome !== "FAILED"
    ) {
      throw new IrrevonError(
        ErrorCode.illegal_state,
        "a retry needs the latest execution SETTLED_FAILED by a FAILED receipt",
        {
          details: {
            effect_id: effectId,
            frontier: latest?.frontier ?? null,
            latest_receipt_outcome: receipt?.transportOutcome ?? null,
            hint:
              latest?.frontier === "SETTLED_FAILED"
                ? "a reconciled absence is re-dispatched through resolve (LOST → REDISPATCHED)"
                : undefined,
          },
        },
      );
    }
    const blocking = (await listFindings(tx, effectId)).find(
      (f) =>
        (f.classification === "CONTRADICTED" || f.classification === "DUPLICATE") &&
        (f.status === "OPEN" || f.status === "ESCALATED_HUMAN"),
    );
    if (blocking !== undefined) {
      throw new IrrevonError(
        ErrorCode.illegal_state,
        "an unresolved finding says the destination holds this effect; resolve it before a retry",
        {
          details: {
            effect_id: effectId,
            finding_id: blocking.findingId,
            classification: blocking.classification,
            finding_status: blocking.status,
          },
        },
      );
    }
    return openExecutionIn(tx, effectId, "retry_after_failure", fresh);
  });
}
