/**
 * engine/audit-settled — re-asks the destination about a SETTLED effect (§6 audit_effect):
 * COMMITTED with n>1 ⇒ DUPLICATE (once); COMMITTED but absent once the declared lag has
 * passed ⇒ CONTRADICTED (committed_then_vanished); FAILED but present ⇒ CONTRADICTED
 * (failed_but_present). An absence on a destination without a declared lag proves nothing
 * and writes no finding. C3 or non-queryable ⇒ capability_unsupported. One `audit` probe
 * per call. Imports: core, db, ledger, adapters, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { attachFinding } from "../ledger/attach-finding.js";
import {
  latestDestinationRef,
  latestExecution,
  listAttempts,
  requireRecord,
} from "../ledger/read-records.js";
import { recordProbe } from "../ledger/record-probe.js";
import { listFindings } from "../ledger/resolve-finding.js";
import { callStatusQuery } from "./call-adapter.js";
import { emit, type EngineContext } from "./context.js";
import { engineNowMs } from "./engine-time.js";
import { strongestKey } from "./reconcile-keys.js";

/** What one audit found: nothing new, nothing provable, or a new finding. */
export type AuditOutcome =
  | { readonly status: "consistent"; readonly probeId: number }
  | {
      readonly status: "inconclusive";
      readonly probeId: number;
      readonly reason: "indeterminate" | "lag_not_elapsed" | "lag_unbounded";
    }
  | {
      readonly status: "finding";
      readonly probeId: number;
      readonly findingId: number;
      readonly classification: "DUPLICATE" | "CONTRADICTED";
      readonly direction?: string;
    };

/** Audits the latest execution of a settled effect. */
export async function auditSettledEffect(
  ctx: EngineContext,
  effectId: string,
): Promise<AuditOutcome> {
  const record = await requireRecord(ctx.db, effectId);
  const entry = ctx.adapters.require(record.adapterId);
  const execution = await latestExecution(ctx.db, effectId);
  if (
    execution === null ||
    (execution.frontier !== "SETTLED_COMMITTED" && execution.frontier !== "SETTLED_FAILED")
  ) {
    throw new IrrevonError(ErrorCode.illegal_state, "only a settled execution can be audited", {
      details: { effect_id: effectId, frontier: execution?.frontier ?? null },
    });
  }
  const key =
    entry.declaration.tier === "C3"
      ? null
      : strongestKey(
          entry.declaration,
          execution.operationId,
          await latestDestinationRef(ctx.db, execution.executionId),
          record.stableIds,
        );
  if (key === null) {
    throw new IrrevonError(
      ErrorCode.capability_unsupported,
      "the destination cannot be queried for this effect",
      { details: { effect_id: effectId, tier: entry.declaration.tier } },
    );
  }
  const answer = await callStatusQuery(entry.adapter, key.key, ctx.config.probeDeadlineMs);
  // Database time (plus a test offset), like the claimed_at the lag is measured from.
  const nowMs = await engineNowMs(ctx);
  const probeId = await recordProbe(ctx.db, {
    executionId: execution.executionId,
    adapterId: record.adapterId,
    declarationDigest: entry.declarationDigest,
    probeKind: "audit",
    queryKeys: [key.stored],
    result: answer.result,
    nFound: answer.nFound,
    destinationRefs: answer.destinationRefs,
    ...(answer.responseDigest === undefined ? {} : { responseDigest: answer.responseDigest }),
    queriedAt: new Date(nowMs).toISOString(),
    evidence: { key_strength: key.strength, adapter_evidence: answer.evidence },
  });
  if (answer.result === "INDETERMINATE")
    return { status: "inconclusive", probeId, reason: "indeterminate" };

  const findings = await listFindings(ctx.db, effectId);
  const base = { execution_id: execution.executionId, probe_ids: [probeId] };
  if (execution.frontier === "SETTLED_COMMITTED") {
    if (answer.result === "PRESENT" && (answer.nFound ?? 1) > 1) {
      if (findings.some((f) => f.classification === "DUPLICATE"))
        return { status: "consistent", probeId };
      const findingId = await attachFinding(ctx.db, {
        effectId,
        adapterId: record.adapterId,
        destinationRef: answer.destinationRefs[0] ?? null,
        classification: "DUPLICATE",
        excessEffectCount: (answer.nFound ?? 2) - 1,
        evidence: {
          ...base,
          n_found: answer.nFound,
          destination_refs: answer.destinationRefs,
          audit: true,
        },
        createdBy: "reconciler",
      });
      emit(ctx, "finding_created", "warn", {
        effect_id: effectId,
        classification: "DUPLICATE",
        finding_id: findingId,
      });
      return { status: "finding", probeId, findingId, classification: "DUPLICATE" };
    }
    if (answer.result === "PRESENT") return { status: "consistent", probeId };
    // ABSENT after a commit: only meaningful once the destination's reads have caught up.
    if (entry.statusLagSeconds === null)
      return { status: "inconclusive", probeId, reason: "lag_unbounded" };
    const attempts = await listAttempts(ctx.db, execution.executionId);
    const lastClaim = attempts[attempts.length - 1];
    if (
      lastClaim !== undefined &&
      entry.statusLagSeconds > 0 &&
      nowMs - Date.parse(lastClaim.claimedAt) < entry.statusLagSeconds * 1000
    ) {
      return { status: "inconclusive", probeId, reason: "lag_not_elapsed" };
    }
    const findingId = await attachFinding(ctx.db, {
      effectId,
      adapterId: record.adapterId,
      destinationRef: null,
      classification: "CONTRADICTED",
      evidence: {
        ...base,
        settle_execution_id: execution.executionId,
        direction: "committed_then_vanished",
      },
      createdBy: "reconciler",
    });
    emit(ctx, "finding_created", "warn", {
      effect_id: effectId,
      classification: "CONTRADICTED",
      finding_id: findingId,
    });
    return {
      status: "finding",
      probeId,
      findingId,
      classification: "CONTRADICTED",
      direction: "committed_then_vanished",
    };
  }
  if (answer.result === "ABSENT") return { status: "consistent", probeId };
  const findingId = await attachFinding(ctx.db, {
    effectId,
    adapterId: record.adapterId,
    destinationRef: answer.destinationRefs[0] ?? null,
    classification: "CONTRADICTED",
    evidence: {
      ...base,
      n_found: answer.nFound,
      destination_refs: answer.destinationRefs,
      direction: "failed_but_present",
    },
    createdBy: "reconciler",
  });
  emit(ctx, "finding_created", "warn", {
    effect_id: effectId,
    classification: "CONTRADICTED",
    finding_id: findingId,
  });
  return {
    status: "finding",
    probeId,
    findingId,
    classification: "CONTRADICTED",
    direction: "failed_but_present",
  };
}
