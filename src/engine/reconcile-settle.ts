/**
 * engine/reconcile-settle — the reconciler's writes: settle on presence (n=1 ⇒
 * CONFIRMED_UNIQUE, n>1 ⇒ DUPLICATE with excess n−1), settle on confirmed absence (LOST;
 * escalated to a human when the destination declares no lag), and escalations of parked
 * executions. Each settle is one transaction with its finding. Losing a settle race to
 * another writer (stale_state) is not an error: the caller re-reads. Imports: core, db,
 * ledger, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { StoredRecord } from "../ledger/types.js";
import { recordEscalation, type EscalationReason } from "../ledger/escalations.js";
import { settleAmbiguous } from "../ledger/settle-ambiguous.js";
import { emit, type EngineContext } from "./context.js";

/** Who settles: the online reconciler or recovery. */
export type SettleActor = "reconciler" | "recovery";

/** A settle that lost the race to another writer. */
export const LOST_RACE = "lost_race" as const;

async function guardedSettle<T>(fn: () => Promise<T>): Promise<T | typeof LOST_RACE> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof IrrevonError && e.code === ErrorCode.stale_state) return LOST_RACE;
    throw e;
  }
}

/** PRESENT: SETTLED_COMMITTED citing the probes, plus CONFIRMED_UNIQUE or DUPLICATE. */
export async function settlePresent(
  ctx: EngineContext,
  input: {
    record: StoredRecord;
    executionId: number;
    probeIds: number[];
    nFound: number;
    destinationRefs: readonly string[];
    actor: SettleActor;
  },
): Promise<
  { findingId: number | null; classification: "CONFIRMED_UNIQUE" | "DUPLICATE" } | typeof LOST_RACE
> {
  const classification = input.nFound > 1 ? "DUPLICATE" : "CONFIRMED_UNIQUE";
  await ctx.crash.hit("settle.pre_commit");
  const result = await guardedSettle(() =>
    settleAmbiguous(ctx.db, {
      executionId: input.executionId,
      to: "SETTLED_COMMITTED",
      cause: "reconciled_present",
      actor: input.actor,
      evidence: { probe_ids: input.probeIds },
      finding: {
        effectId: input.record.effectId,
        adapterId: input.record.adapterId,
        destinationRef: input.destinationRefs[0] ?? null,
        classification,
        ...(classification === "DUPLICATE" ? { excessEffectCount: input.nFound - 1 } : {}),
        createdBy: input.actor,
        evidence: {
          probe_ids: input.probeIds,
          n_found: input.nFound,
          destination_refs: input.destinationRefs,
        },
      },
    }),
  );
  if (result === LOST_RACE) return LOST_RACE;
  emit(ctx, "settled", "info", {
    effect_id: input.record.effectId,
    lifecycle: "SETTLED_COMMITTED",
    classification,
    probe_ids: input.probeIds,
  });
  return { findingId: result.findingId, classification };
}

/** Two ABSENT reads a gap apart: SETTLED_FAILED + LOST; no declared lag ⇒ LOST goes to a human. */
export async function settleAbsent(
  ctx: EngineContext,
  input: {
    record: StoredRecord;
    executionId: number;
    probeIds: number[];
    lagDeclared: boolean;
    actor: SettleActor;
  },
): Promise<{ findingId: number | null; escalated: boolean } | typeof LOST_RACE> {
  await ctx.crash.hit("settle.pre_commit");
  const escalate = input.lagDeclared
    ? undefined
    : {
        reason: "absence_without_declared_lag",
        auto_redispatch: "refused",
        probe_ids: input.probeIds,
      };
  const result = await guardedSettle(() =>
    settleAmbiguous(ctx.db, {
      executionId: input.executionId,
      to: "SETTLED_FAILED",
      cause: "reconciled_absent",
      actor: input.actor,
      evidence: { probe_ids: input.probeIds },
      finding: {
        effectId: input.record.effectId,
        adapterId: input.record.adapterId,
        destinationRef: null,
        classification: "LOST",
        createdBy: input.actor,
        evidence: { probe_ids: input.probeIds, lag_declared: input.lagDeclared },
        ...(escalate === undefined ? {} : { escalate }),
      },
    }),
  );
  if (result === LOST_RACE) return LOST_RACE;
  emit(ctx, "settled", "info", {
    effect_id: input.record.effectId,
    lifecycle: "SETTLED_FAILED",
    classification: "LOST",
    probe_ids: input.probeIds,
  });
  if (escalate !== undefined)
    emit(ctx, "escalated", "warn", { effect_id: input.record.effectId, reason: escalate.reason });
  return { findingId: result.findingId, escalated: escalate !== undefined };
}

/** Records (once) that a parked execution needs a human. Returns whether it is escalated. */
export async function escalateExecution(
  ctx: EngineContext,
  input: {
    effectId: string;
    executionId: number;
    reason: EscalationReason;
    evidence: Record<string, unknown>;
    actor: SettleActor;
  },
): Promise<boolean> {
  const isNew = await recordEscalation(ctx.db, {
    executionId: input.executionId,
    reason: input.reason,
    evidence: input.evidence,
    recordedBy: input.actor,
  });
  if (isNew)
    emit(ctx, "escalated", "warn", {
      effect_id: input.effectId,
      execution_id: input.executionId,
      reason: input.reason,
    });
  return true;
}
