/**
 * engine/auto-redispatch — re-dispatch of a confirmed-LOST effect without a human, ONLY
 * under an explicit per-effect-type policy grant (D8; default: none) and only when the
 * destination declares a finite lag (absence without a bound goes to a human). The grant
 * reference is recorded as the authority of the new execution, so the gate checks it like
 * any other authority and the ledger shows who allowed the re-send. Imports: core, db,
 * ledger, engine.
 */
import { isoSql } from "../ledger/sql-util.js";
import { beginRedispatch, closeReplacedFindings } from "../ledger/redispatch-resolution.js";
import { requireRecord } from "../ledger/read-records.js";
import { readFinding } from "../ledger/resolve-finding.js";
import { emit, type EngineContext } from "./context.js";
import { dispatchEffect, type DispatchOutcome } from "./dispatcher.js";

/** Whether a LOST finding was re-dispatched under a policy grant, and why not. */
export type AutoRedispatchResult =
  | {
      readonly status: "not_granted";
      readonly reason: "no_grant" | "lag_unbounded" | "not_open_lost";
    }
  | {
      readonly status: "redispatched";
      readonly operationId: string;
      readonly dispatch: DispatchOutcome;
    };

/** Re-dispatches the effect of a LOST finding if a policy grant covers its effect type. */
export async function autoRedispatchLost(
  ctx: EngineContext,
  findingId: number,
): Promise<AutoRedispatchResult> {
  const finding = await readFinding(ctx.db, findingId);
  if (finding.classification !== "LOST" || finding.status !== "OPEN" || finding.effectId === null) {
    return { status: "not_granted", reason: "not_open_lost" };
  }
  const record = await requireRecord(ctx.db, finding.effectId);
  const grant = ctx.config.autoRedispatch[record.effectType];
  if (grant === undefined) return { status: "not_granted", reason: "no_grant" };
  if (ctx.adapters.require(record.adapterId).statusLagSeconds === null)
    return { status: "not_granted", reason: "lag_unbounded" };

  const now = await ctx.db.query<{ now: string }>(`SELECT ${isoSql("now()")} AS now`);
  const opened = await beginRedispatch(ctx.db, {
    findingId,
    actor: "policy_auto",
    authority: {
      authorityRef: grant.grantRef,
      stampedAt: now.rows[0]?.now ?? new Date().toISOString(),
    },
    evidence: {
      policy_grant: grant.grantRef,
      effect_type: record.effectType,
      absence: finding.evidence,
    },
  });
  emit(ctx, "finding_resolved", "info", {
    finding_id: findingId,
    to: "REDISPATCHED",
    actor: "policy_auto",
    operation_id: opened.operationId,
  });
  const dispatch = await dispatchEffect(ctx, record.effectId, { variant: "resolve_redispatch" });
  await closeReplacedFindings(ctx.db, record.effectId);
  return { status: "redispatched", operationId: opened.operationId, dispatch };
}
