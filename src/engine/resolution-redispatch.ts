/**
 * engine/resolution-redispatch — LOST → REDISPATCHED (§2.3, §7, I8): only for a record-keyed
 * LOST finding (a DUPLICATE never: the class × action cell is illegal before and after
 * escalation, checked here and again in SQL). Needs
 *   - fresh authority (`fresh_authority_ref` + `stamped_at`), appended as the new current one;
 *   - the newest evidence about the effect: nothing may show it at the destination (a
 *     PRESENT probe of any execution, a CONTRADICTED finding never compensated, a late OK
 *     response ⇒ `resolution_invalid`, refusal `present_at_destination`), and the newest
 *     probe of the failed execution must be ABSENT and at most
 *     `redispatchAbsenceMaxAgeSeconds` old (database clock, engine-time), else a new audit
 *     probe must answer ABSENT (recorded either way); `ledger_resolve` checks the same;
 *   - a new step: the finding edge, the authority and the new execution (`resolve_redispatch`,
 *     new operation id = new idempotency key) are ONE transaction; the dispatch follows.
 * If the process dies between that transaction and the dispatch, the worker finds the
 * PERSISTED replacement and carries out the recorded decision. The finding closes when the
 * replacement commits. `policy_auto` additionally needs a grant for the effect type and a
 * finite declared lag (D8). Imports: core, db, ledger, adapters, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { ResolutionStatus } from "../core/state-tables.js";
import { checkAuthorityInput, refuseExpiredAuthority } from "../ledger/append-authority.js";
import { latestExecution, requireRecord } from "../ledger/read-records.js";
import {
  beginRedispatch,
  readRedispatchEvidence,
  type RedispatchEvidence,
} from "../ledger/redispatch-resolution.js";
import type { FindingState } from "../ledger/resolve-finding.js";
import { auditSettledEffect } from "./audit-settled.js";
import type { EngineContext } from "./context.js";
import { dispatchEffect, type DispatchOutcome } from "./dispatcher.js";
import { engineNowMs } from "./engine-time.js";
import { closeResolutionsAfterCommit } from "./resolution-hooks.js";

/** What a re-dispatch resolution did. */
export interface RedispatchResult {
  readonly operationId: string;
  readonly executionId: number;
  /** The ABSENT probe the decision cites. */
  readonly absentProbeId: number;
  /** True when that probe was taken now (the stored one was missing or too old). */
  readonly freshProbe: boolean;
  readonly dispatch: DispatchOutcome;
  /** The finding closed because the replacement committed at once. */
  readonly closed: boolean;
}

function invalid(message: string, details: Record<string, unknown>): IrrevonError {
  return new IrrevonError(ErrorCode.resolution_invalid, message, { details });
}

/** Refuses the re-dispatch when anything in the ledger shows the effect at the destination. */
function refuseOnPresence(evidence: RedispatchEvidence, findingId: number): void {
  const shown = {
    ...(evidence.presentProbeId === null ? {} : { probe_id: evidence.presentProbeId }),
    ...(evidence.contradictedFindingId === null
      ? {}
      : { contradicted_finding_id: evidence.contradictedFindingId }),
    ...(evidence.lateOkId === null ? {} : { late_response_id: evidence.lateOkId }),
  };
  if (Object.keys(shown).length === 0) return;
  throw invalid("the ledger shows the effect at the destination; it must not be re-sent", {
    finding_id: findingId,
    refusal: "present_at_destination",
    ...shown,
  });
}

/**
 * The ABSENT probe a re-dispatch may cite. The decision is taken on the NEWEST evidence about
 * the effect: any presence (a PRESENT probe of any execution, a CONTRADICTED finding never
 * compensated, a late OK response) refuses it; otherwise the newest probe of the failed
 * execution is cited if it is ABSENT and fresh, else a new probe is taken and must answer
 * ABSENT. An older ABSENT probe behind a newer read of any result is never cited.
 */
async function freshAbsence(
  ctx: EngineContext,
  effectId: string,
  findingId: number,
): Promise<{ probeId: number; fresh: boolean }> {
  const evidence = await readRedispatchEvidence(ctx.db, effectId);
  refuseOnPresence(evidence, findingId);
  const newest = evidence.newestProbe;
  if (newest?.result === "ABSENT") {
    const ageSeconds = ((await engineNowMs(ctx)) - Date.parse(newest.queriedAt)) / 1000;
    if (ageSeconds <= ctx.config.redispatchAbsenceMaxAgeSeconds)
      return { probeId: newest.probeId, fresh: false };
  }
  const audit = await auditSettledEffect(ctx, effectId);
  if (audit.status === "consistent") return { probeId: audit.probeId, fresh: true };
  if (audit.status === "finding") {
    throw invalid("the destination now shows the effect; it must not be re-sent", {
      finding_id: findingId,
      refusal: "present_at_destination",
      probe_id: audit.probeId,
      new_finding_id: audit.findingId,
      classification: audit.classification,
    });
  }
  throw invalid("fresh ABSENT evidence could not be obtained; try again later", {
    finding_id: findingId,
    refusal: "absence_unconfirmed",
    probe_id: audit.probeId,
    reason: audit.reason,
  });
}

/** Carries out a REDISPATCHED resolution of `finding` (legality already checked). */
export async function redispatchFinding(
  ctx: EngineContext,
  finding: FindingState,
  from: ResolutionStatus,
  actor: "human" | "policy_auto",
  evidence: Readonly<Record<string, unknown>>,
): Promise<RedispatchResult> {
  const findingId = finding.findingId;
  if (finding.effectId === null)
    throw invalid("only a record-keyed finding can be re-dispatched", { finding_id: findingId });
  const authority = checkAuthorityInput({
    authorityRef: evidence["fresh_authority_ref"] as string,
    stampedAt: evidence["stamped_at"] as string,
  });
  const record = await requireRecord(ctx.db, finding.effectId);
  // Before the fresh probe and every write: an expired authority would be denied at the gate.
  await refuseExpiredAuthority(ctx.db, record.scope, authority);
  if (actor === "policy_auto") {
    if (ctx.config.autoRedispatch[record.effectType] === undefined)
      throw invalid("no policy grant covers this effect type", {
        finding_id: findingId,
        effect_type: record.effectType,
      });
    if (ctx.adapters.require(record.adapterId).statusLagSeconds === null)
      throw invalid("absence without a declared lag goes to a human", { finding_id: findingId });
  }
  const latest = await latestExecution(ctx.db, record.effectId);
  if (latest?.frontier !== "SETTLED_FAILED") {
    throw invalid("a re-dispatch follows a SETTLED_FAILED execution", {
      finding_id: findingId,
      frontier: latest?.frontier ?? null,
    });
  }
  const absence = await freshAbsence(ctx, record.effectId, findingId);
  const opened = await beginRedispatch(ctx.db, {
    findingId,
    actor,
    from,
    authority,
    evidence: {
      ...evidence,
      absent_probe_id: absence.probeId,
      failed_execution_id: latest.executionId,
    },
  });
  const dispatch = await dispatchEffect(ctx, record.effectId, { variant: "resolve_redispatch" });
  const closed =
    dispatch.status === "dispatched" &&
    dispatch.lifecycle === "SETTLED_COMMITTED" &&
    (await closeResolutionsAfterCommit(ctx.db, record.effectId)).includes(findingId);
  return {
    operationId: opened.operationId,
    executionId: opened.executionId,
    absentProbeId: absence.probeId,
    freshProbe: absence.fresh,
    dispatch,
    closed,
  };
}
