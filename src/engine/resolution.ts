/**
 * engine/resolution — what a human (or a policy) decides about a finding (§2.3, §7):
 *   ACCEPTED_AS_IS  ⇒ current → ACCEPTED_AS_IS → CLOSED, one transaction;
 *   ESCALATED_HUMAN ⇒ one edge;
 *   COMPENSATED     ⇒ cites a registered compensating effect (stable id
 *                     `compensates_finding_id`); closes when that effect commits — at once if
 *                     it already has (resolution-compensate);
 *   REDISPATCHED    ⇒ LOST only; fresh authority, fresh ABSENT evidence, a new step; closes
 *                     when the replacement commits (resolution-redispatch).
 * Legality (status edge and class × action cell, so a DUPLICATE is never re-dispatched, also
 * after escalation) is checked before anything is read from the destination, and again by
 * `ledger_resolve` in SQL. Every multi-edge change is one transaction. The caller's view of the
 * current status is the expected from-status: a concurrent resolution of the same finding
 * makes the loser fail with `stale_state`, writing nothing. Advisory proposals are refused at
 * run time (I9). Imports: core, db, ledger, adapters, engine.
 */
import { checkCallerEvidenceSize, checkCallerText } from "../core/caller-text.js";
import { rejectAdvisory } from "../core/advisory-guard.js";
import type { NoAdvisoryKeys } from "../core/contract-input.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import {
  RESOLUTION_ACTIONS,
  isLegalResolution,
  type Classification,
  type ResolutionAction,
  type ResolutionStatus,
} from "../core/state-tables.js";
import { compensateFinding } from "../ledger/resolution-compensate.js";
import { readFinding, resolveChain } from "../ledger/resolve-finding.js";
import { emit, type EngineContext } from "./context.js";
import { redispatchFinding, type RedispatchResult } from "./resolution-redispatch.js";

/** Who resolves through the public API (system and recovery write only automatic edges). */
export type ResolveActor = "human" | "policy_auto";

/**
 * Evidence of a resolution: free-form JSON object, recorded verbatim on the edge. A human
 * resolution needs `note`; COMPENSATED needs `compensating_effect_id`; REDISPATCHED needs
 * `fresh_authority_ref` and `stamped_at` (RFC 3339).
 */
export interface ResolveEvidence extends NoAdvisoryKeys {
  readonly note?: string;
  readonly compensating_effect_id?: string;
  readonly fresh_authority_ref?: string;
  readonly stamped_at?: string;
  readonly [field: string]: unknown;
}

/** What a resolution did (the loser of a race gets `stale_state` instead). */
export interface ResolveOutcome {
  readonly status: "resolved";
  readonly findingId: number;
  readonly classification: Classification;
  readonly action: ResolutionAction;
  /** The status the finding had before. */
  readonly from: ResolutionStatus;
  /** The status it has now (CLOSED when the resolution completed at once). */
  readonly current: ResolutionStatus;
  readonly closed: boolean;
  readonly resolutionSeqs: readonly number[];
  readonly compensatingEffectId?: string;
  readonly redispatch?: RedispatchResult;
}

const EFFECT_ID = /^[0-9a-f]{64}$/;

function invalid(message: string, details: Record<string, unknown>): IrrevonError {
  return new IrrevonError(ErrorCode.resolution_invalid, message, { details });
}

function checkInput(
  action: unknown,
  evidence: unknown,
  actor: unknown,
): asserts evidence is ResolveEvidence {
  rejectAdvisory(evidence);
  if (typeof action !== "string" || !RESOLUTION_ACTIONS.includes(action as ResolutionAction))
    throw invalid("unknown resolution action", { field: "action", known: RESOLUTION_ACTIONS });
  if (actor !== "human" && actor !== "policy_auto")
    throw invalid("a resolution is decided by a human or a policy", { field: "actor" });
  if (typeof evidence !== "object" || evidence === null || Array.isArray(evidence))
    throw invalid("resolution evidence must be a JSON object", { field: "evidence" });
  const note = (evidence as ResolveEvidence).note;
  checkCallerText(note, "evidence.note", ErrorCode.resolution_invalid, { min: 0, optional: true });
  if (actor === "human" && (typeof note !== "string" || note.trim() === ""))
    throw invalid("a human resolution says why: evidence.note is required", {
      field: "evidence.note",
    });
  checkCallerEvidenceSize(evidence, "evidence", ErrorCode.resolution_invalid);
}

/** Resolves finding `findingId` with `action` (see the file header). */
export async function resolveFindingAction(
  ctx: EngineContext,
  findingId: number,
  action: ResolutionAction,
  evidence: ResolveEvidence,
  actor: ResolveActor = "human",
): Promise<ResolveOutcome> {
  checkInput(action, evidence, actor);
  if (!Number.isSafeInteger(findingId) || findingId < 1)
    throw invalid("finding id must be a positive integer", { field: "finding_id" });
  let recorded: Record<string, unknown>;
  try {
    recorded = JSON.parse(JSON.stringify(evidence)) as Record<string, unknown>;
  } catch {
    throw invalid("resolution evidence must be plain JSON", { field: "evidence" });
  }
  const finding = await readFinding(ctx.db, findingId);
  const from = finding.status;
  if (!isLegalResolution(finding.classification, from, action)) {
    throw invalid(
      `${action} is not a legal resolution of a ${from} ${finding.classification} finding`,
      {
        finding_id: findingId,
        classification: finding.classification,
        from,
        to: action,
      },
    );
  }
  const base = {
    status: "resolved" as const,
    findingId,
    classification: finding.classification,
    action,
    from,
  };
  let outcome: ResolveOutcome;
  switch (action) {
    case "ACCEPTED_AS_IS": {
      const seqs = await resolveChain(ctx.db, findingId, [
        { from, to: "ACCEPTED_AS_IS", actor, evidence: recorded },
        { from: "ACCEPTED_AS_IS", to: "CLOSED", actor: "system", evidence: { accepted_by: actor } },
      ]);
      outcome = { ...base, current: "CLOSED", closed: true, resolutionSeqs: seqs };
      break;
    }
    case "ESCALATED_HUMAN": {
      const seqs = await resolveChain(ctx.db, findingId, [
        { from, to: "ESCALATED_HUMAN", actor, evidence: recorded },
      ]);
      outcome = { ...base, current: "ESCALATED_HUMAN", closed: false, resolutionSeqs: seqs };
      break;
    }
    case "COMPENSATED": {
      const compensatingEffectId = recorded["compensating_effect_id"];
      if (typeof compensatingEffectId !== "string" || !EFFECT_ID.test(compensatingEffectId))
        throw invalid("COMPENSATED needs compensating_effect_id (64 lowercase hex)", {
          field: "evidence.compensating_effect_id",
        });
      const result = await compensateFinding(ctx.db, {
        findingId,
        from,
        actor,
        compensatingEffectId,
        evidence: recorded,
      });
      outcome = {
        ...base,
        current: result.closed ? "CLOSED" : "COMPENSATED",
        closed: result.closed,
        resolutionSeqs: result.resolutionSeqs,
        compensatingEffectId,
      };
      break;
    }
    case "REDISPATCHED": {
      const redispatch = await redispatchFinding(ctx, finding, from, actor, recorded);
      outcome = {
        ...base,
        current: redispatch.closed ? "CLOSED" : "REDISPATCHED",
        closed: redispatch.closed,
        resolutionSeqs: [],
        redispatch,
      };
      break;
    }
  }
  emit(ctx, "finding_resolved", "info", {
    finding_id: findingId,
    classification: finding.classification,
    from,
    to: action,
    current: outcome.current,
    actor,
  });
  return outcome;
}
