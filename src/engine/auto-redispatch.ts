/**
 * engine/auto-redispatch — re-dispatch of a confirmed-LOST effect without a human, ONLY
 * under an explicit per-effect-type policy grant (D8; default: none) and only when the
 * destination declares a finite lag (absence without a bound goes to a human). It takes the
 * SAME path as a human re-dispatch (`resolve(…, "REDISPATCHED", …, "policy_auto")`, §7): the
 * grant reference is the fresh authority (stamped with database now), and the absence it cites
 * must be fresh — the newest ABSENT probe at most `redispatchAbsenceMaxAgeSeconds` old, else a
 * new probe that must answer ABSENT. A LOST finding that sat OPEN for days is therefore
 * re-checked before anything is sent again. If the destination now shows the effect, the audit
 * records a CONTRADICTED finding and the LOST finding goes to a human (so no later pass probes
 * it again); if no fresh ABSENT can be had, it stays OPEN for the next pass. Losing a race to
 * another writer surfaces as `stale_state`. The replacement's dispatch passes the commit gate
 * like any other: if the gate denies it (a deny entry, a cancelled branch), nothing is sent,
 * the result says `denied` (never counted as re-dispatched) and the replacement execution is
 * escalated once (`gate_denied`); the worker's resume pass then re-asks the gate without
 * recording the same deny again, and sends as soon as the deny is lifted.
 * Imports: core, db, ledger, engine.
 */
import { ErrorCode, IrrevonError, isIrrevonError } from "../core/errors.js";
import { recordEscalation } from "../ledger/escalations.js";
import { requireRecord } from "../ledger/read-records.js";
import { readFinding } from "../ledger/resolve-finding.js";
import { isoSql } from "../ledger/sql-util.js";
import { emit, type EngineContext } from "./context.js";
import type { DispatchOutcome } from "./dispatcher.js";
import { resolveFindingAction } from "./resolution.js";

/** Whether a LOST finding was re-dispatched under a policy grant, and why not. */
export type AutoRedispatchResult =
  | {
      readonly status: "not_granted";
      readonly reason: "no_grant" | "lag_unbounded" | "not_open_lost";
    }
  | {
      /** The fresh-absence check said no; nothing was sent. */
      readonly status: "refused";
      /**
       * present_at_destination: the destination shows the effect (a CONTRADICTED finding was
       * recorded and the LOST finding escalated to a human). absence_unconfirmed: the new
       * probe was inconclusive; the finding stays OPEN and a later pass tries again.
       */
      readonly reason: "present_at_destination" | "absence_unconfirmed";
      readonly details: Readonly<Record<string, unknown>>;
    }
  | {
      /** The replacement went out (whatever its transport outcome). */
      readonly status: "redispatched";
      readonly operationId: string;
      readonly dispatch: DispatchOutcome;
    }
  | {
      /**
       * The decision is recorded (finding REDISPATCHED, replacement opened) but nothing was
       * sent: the gate denied it (`dispatch.status` "denied", escalated once), or the slot was
       * busy. The worker's resume pass tries again.
       */
      readonly status: "not_sent";
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
  const stampedAt = now.rows[0]?.now ?? new Date().toISOString();
  try {
    const outcome = await resolveFindingAction(
      ctx,
      findingId,
      "REDISPATCHED",
      {
        note: `re-dispatched under policy grant ${grant.grantRef}`,
        fresh_authority_ref: grant.grantRef,
        stamped_at: stampedAt,
        policy_grant: grant.grantRef,
        effect_type: record.effectType,
        absence: finding.evidence,
      },
      "policy_auto",
    );
    if (outcome.redispatch === undefined)
      throw new IrrevonError(ErrorCode.internal, "a re-dispatch resolution did not dispatch", {
        details: { finding_id: findingId },
      });
    const { dispatch, operationId, executionId } = outcome.redispatch;
    if (dispatch.status === "dispatched") return { status: "redispatched", operationId, dispatch };
    if (dispatch.status === "denied") {
      const isNew = await recordEscalation(ctx.db, {
        executionId,
        reason: "gate_denied",
        evidence: {
          decision_id: dispatch.decisionId,
          check: dispatch.check,
          cause: dispatch.cause,
          finding_id: findingId,
        },
        recordedBy: "recovery",
      });
      if (isNew)
        emit(ctx, "escalated", "warn", {
          effect_id: record.effectId,
          execution_id: executionId,
          reason: "gate_denied",
        });
    }
    return { status: "not_sent", operationId, dispatch };
  } catch (e) {
    if (!isIrrevonError(e) || e.code !== ErrorCode.resolution_invalid) throw e;
    return refusedOrRaced(ctx, findingId, e);
  }
}

/** Turns a refused policy re-dispatch into a value; a refusal caused by a race is stale_state. */
async function refusedOrRaced(
  ctx: EngineContext,
  findingId: number,
  e: IrrevonError,
): Promise<AutoRedispatchResult> {
  const refusal = e.details["refusal"];
  if (refusal === "present_at_destination") {
    // The effect exists after all: a human decides (the CONTRADICTED finding says why).
    await resolveFindingAction(
      ctx,
      findingId,
      "ESCALATED_HUMAN",
      {
        note: "policy re-dispatch refused: the destination shows the effect",
        reason: "present_at_destination",
        probe_id: e.details["probe_id"],
        contradicted_finding_id: e.details["new_finding_id"],
      },
      "policy_auto",
    );
    return { status: "refused", reason: "present_at_destination", details: e.details };
  }
  if (refusal === "absence_unconfirmed")
    return { status: "refused", reason: "absence_unconfirmed", details: e.details };
  // Any other refusal after the finding was read OPEN means another writer moved it first.
  const current = await readFinding(ctx.db, findingId);
  if (current.status !== "OPEN") {
    throw new IrrevonError(ErrorCode.stale_state, "another writer resolved the finding first", {
      details: { finding_id: findingId, current: current.status },
      cause: e,
    });
  }
  throw e;
}
