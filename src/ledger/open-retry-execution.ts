/**
 * ledger/open-retry-execution — "try again" after a failure is a NEW execution (§5.1): new
 * step, so a new operation id and idempotency key, under fresh authority. Allowed when the
 * latest execution is SETTLED_FAILED
 *   - by a FAILED receipt (the destination said no), or
 *   - by a human's decision that it was not committed (`settleManually`, e.g. on a C3
 *     destination that can never be asked): the human's word is the evidence.
 * A reconciled absence goes through resolution instead (its LOST finding → REDISPATCHED, with
 * fresh ABSENT evidence); the refusal names that finding. Never while an unresolved (OPEN or
 * ESCALATED_HUMAN) CONTRADICTED or DUPLICATE finding says the destination holds the effect
 * after all; and whatever the findings say, the gate refuses to send an effect the destination
 * is known to hold. A corrected retry adopts a RECORDED parameter variant (registered through
 * the contract, so its digest is in parameter_variants) with a reason; the execution and the
 * later ones send it. Why the execution was opened (the reason, the settle it follows, the
 * adopted digest) is recorded on its transitions by `ledger_open_execution`. One transaction;
 * the dispatch that follows is gated like any other. Imports: core, db, ledger.
 */
import { checkCallerText } from "../core/caller-text.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { ExecutionOpener, LifecycleState } from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import {
  appendAuthorityIn,
  checkAuthorityInput,
  refuseExpiredAuthority,
  type AuthorityInput,
} from "./append-authority.js";
import { readExecutionParameters } from "./claim-attempt.js";
import { latestExecution, latestReceipt, requireRecord } from "./read-records.js";
import { listFindings } from "./resolve-finding.js";
import { jsonParam, toId } from "./sql-util.js";

/** A newly opened execution (new step, new operation id and key). */
export interface OpenedExecution {
  readonly executionId: number;
  readonly step: number;
  readonly operationId: string;
  readonly lifecycle: LifecycleState;
  readonly authorityId: number;
  /** The digest of the parameters this execution sends. */
  readonly parametersDigest?: string;
}

/** A corrected retry: a recorded parameter variant adopted for the new execution. */
export interface AdoptedVariant {
  readonly parameters: Record<string, unknown>;
  /** canonicalDigest(parameters), computed by the caller. */
  readonly parametersDigest: string;
}

/** What a retry records besides its authority. */
export interface RetryRecord {
  /** Why (recorded; required when adopting a variant), at most 2000 characters. */
  readonly reason?: string;
  readonly variant?: AdoptedVariant;
}

/** Opens an execution through `ledger_open_execution` after appending the authority. */
export async function openExecutionIn(
  q: Queryable,
  effectId: string,
  openedBy: Exclude<ExecutionOpener, "register">,
  authority: AuthorityInput,
  evidence: Readonly<Record<string, unknown>> = {},
): Promise<OpenedExecution> {
  const authorityId = await appendAuthorityIn(q, effectId, authority);
  const { rows } = await q.query<{
    execution_id: unknown;
    step: number;
    operation_id: string;
    state: LifecycleState;
  }>(
    "SELECT execution_id, step, operation_id, state FROM ledger_open_execution($1, $2, $3::jsonb)",
    [effectId, openedBy, jsonParam(evidence)],
  );
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

function invalid(message: string, details: Record<string, unknown>): IrrevonError {
  return new IrrevonError(ErrorCode.resolution_invalid, message, { details });
}

/** Validates the reason and the variant; throws resolution_invalid naming the field. */
function checkRetryRecord(record: RetryRecord): void {
  const reason = record.reason;
  checkCallerText(reason, "reason", ErrorCode.resolution_invalid, { optional: true });
  if (typeof reason === "string" && reason.trim() === "")
    throw invalid("reason must not be blank", { field: "reason" });
  if (record.variant !== undefined && reason === undefined)
    throw invalid("adopting a parameter variant needs a reason", { field: "reason" });
}

/** Who settled the execution FAILED: the transition's cause and actor. */
async function failedBy(
  q: Queryable,
  executionId: number,
): Promise<{ cause: string; actor: string } | null> {
  const { rows } = await q.query<{ cause: string; actor: string }>(
    `SELECT cause, actor FROM effect_transitions WHERE execution_id = $1 AND to_state = 'SETTLED_FAILED'
      ORDER BY transition_seq DESC LIMIT 1`,
    [executionId],
  );
  return rows[0] ?? null;
}

/**
 * Opens a retry execution after a FAILED receipt or a human's "not committed" (see the file
 * header). Throws illegal_state otherwise (naming the LOST finding to resolve when there is
 * one), resolution_invalid for a bad reason or an unrecorded variant.
 */
export async function openRetryExecution(
  db: Db,
  effectId: string,
  authority: Partial<AuthorityInput>,
  retry: RetryRecord = {},
): Promise<OpenedExecution> {
  const fresh = checkAuthorityInput(authority);
  checkRetryRecord(retry);
  return db.transaction(async (tx) => {
    const record = await requireRecord(tx, effectId, true);
    // Before anything is written: a retry under an expired authority would be denied at the gate.
    await refuseExpiredAuthority(tx, record.scope, fresh);
    const latest = await latestExecution(tx, effectId);
    const receipt = latest === null ? null : await latestReceipt(tx, latest.executionId);
    const settle =
      latest?.frontier === "SETTLED_FAILED" ? await failedBy(tx, latest.executionId) : null;
    const isHumanNo = settle?.actor === "human";
    if (
      latest === null ||
      latest.frontier !== "SETTLED_FAILED" ||
      (receipt?.transportOutcome !== "FAILED" && !isHumanNo)
    ) {
      const lost = (await listFindings(tx, effectId))
        .filter((f) => f.classification === "LOST" && f.status !== "CLOSED")
        .pop();
      throw new IrrevonError(
        ErrorCode.illegal_state,
        "a retry needs the latest execution SETTLED_FAILED by a FAILED receipt or a human's decision",
        {
          details: {
            effect_id: effectId,
            frontier: latest?.frontier ?? null,
            latest_receipt_outcome: receipt?.transportOutcome ?? null,
            settled_by: settle,
            lost_finding_id: lost?.findingId ?? null,
            next_action:
              latest?.frontier !== "SETTLED_FAILED"
                ? "reconcile"
                : lost !== undefined
                  ? "resolve_redispatch"
                  : "inspect",
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
    if (retry.variant !== undefined) {
      const known = await tx.query(
        "SELECT 1 FROM parameter_variants WHERE effect_id = $1 AND parameters_digest = $2 LIMIT 1",
        [effectId, retry.variant.parametersDigest],
      );
      if (known.rows.length === 0)
        throw invalid("only a recorded parameter variant can be adopted: register it first", {
          field: "parameters",
          parameters_digest: retry.variant.parametersDigest,
        });
    }
    const evidence = {
      ...(retry.reason === undefined ? {} : { reason: retry.reason }),
      ...(retry.variant === undefined
        ? {}
        : {
            parameters: retry.variant.parameters,
            parameters_digest: retry.variant.parametersDigest,
          }),
    };
    const opened = await openExecutionIn(tx, effectId, "retry_after_failure", fresh, evidence);
    const sent = await readExecutionParameters(tx, effectId, opened.step);
    return { ...opened, parametersDigest: sent.parametersDigest };
  });
}
