/**
 * engine/reconcile-settle — the reconciler's writes: settle on presence (n=1 ⇒
 * CONFIRMED_UNIQUE, n>1 ⇒ DUPLICATE with excess n−1), settle on confirmed absence (LOST;
 * escalated to a human when the destination declares no lag), and escalations of parked
 * executions. Each settle is one transaction with its finding; given the settling probe
 * itself, the probe is written in that same statement (ledger/settle-ambiguous
 * settleWithProbe). The finding and escalation evidence are built here once for either
 * form. Losing a settle race to
 * another writer (stale_state) is not an error: the caller re-reads. Imports: core, db,
 * ledger, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { StoredRecord } from "../ledger/types.js";
import { recordEscalation, type EscalationReason } from "../ledger/escalations.js";
import {
  settleAmbiguous,
  settleWithProbe,
  type SettlingProbe,
} from "../ledger/settle-ambiguous.js";
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

/**
 * What a settle cites: probes already recorded, or the probe that settles, written with the
 * settle in one statement (after `priorProbeIds`, which it cites too).
 */
export type SettleCitation =
  | { readonly probeIds: readonly number[] }
  | { readonly probe: SettlingProbe; readonly priorProbeIds: readonly number[] };

/** The exit and its finding, however the citation is written. */
interface SettleWrite {
  readonly executionId: number;
  readonly to: "SETTLED_COMMITTED" | "SETTLED_FAILED";
  readonly cause: "reconciled_present" | "reconciled_absent";
  readonly actor: SettleActor;
  readonly finding: {
    readonly effectId: string;
    readonly adapterId: string;
    readonly destinationRef: string | null;
    readonly classification: "CONFIRMED_UNIQUE" | "DUPLICATE" | "LOST";
    readonly excessEffectCount?: number;
    /** Finding evidence besides probe_ids (and execution_id, settle_transition_seq). */
    readonly evidence: Readonly<Record<string, unknown>>;
    /** Escalation evidence besides probe_ids. */
    readonly escalate?: Readonly<Record<string, unknown>>;
  };
}

/** Writes the settle; returns the finding and every probe id cited, or LOST_RACE. */
async function writeSettle(
  ctx: EngineContext,
  cite: SettleCitation,
  w: SettleWrite,
): Promise<{ findingId: number | null; probeIds: number[] } | typeof LOST_RACE> {
  const f = w.finding;
  const common = {
    effectId: f.effectId,
    adapterId: f.adapterId,
    destinationRef: f.destinationRef,
    classification: f.classification,
    ...(f.excessEffectCount === undefined ? {} : { excessEffectCount: f.excessEffectCount }),
    createdBy: w.actor,
  };
  if ("probeIds" in cite) {
    const probeIds = [...cite.probeIds];
    const result = await guardedSettle(() =>
      settleAmbiguous(ctx.db, {
        executionId: w.executionId,
        to: w.to,
        cause: w.cause,
        actor: w.actor,
        evidence: { probe_ids: probeIds },
        finding: {
          ...common,
          evidence: { probe_ids: probeIds, ...f.evidence },
          ...(f.escalate === undefined ? {} : { escalate: { ...f.escalate, probe_ids: probeIds } }),
        },
      }),
    );
    return result === LOST_RACE ? LOST_RACE : { findingId: result.findingId, probeIds };
  }
  const result = await settleWithProbe(ctx.db, {
    probe: cite.probe,
    priorProbeIds: cite.priorProbeIds,
    to: w.to,
    cause: w.cause,
    actor: w.actor,
    finding: {
      ...common,
      evidence: f.evidence,
      ...(f.escalate === undefined ? {} : { escalate: f.escalate }),
    },
  });
  if (result.status === "refused") {
    if (result.error.code === ErrorCode.stale_state) return LOST_RACE;
    throw result.error;
  }
  return { findingId: result.findingId, probeIds: [...cite.priorProbeIds, result.probeId] };
}

/** PRESENT: SETTLED_COMMITTED citing the probes, plus CONFIRMED_UNIQUE or DUPLICATE. */
export async function settlePresent(
  ctx: EngineContext,
  input: {
    record: StoredRecord;
    executionId: number;
    cite: SettleCitation;
    nFound: number;
    destinationRefs: readonly string[];
    actor: SettleActor;
  },
): Promise<
  | {
      findingId: number | null;
      classification: "CONFIRMED_UNIQUE" | "DUPLICATE";
      probeIds: number[];
    }
  | typeof LOST_RACE
> {
  const classification = input.nFound > 1 ? "DUPLICATE" : "CONFIRMED_UNIQUE";
  await ctx.crash.hit("settle.pre_commit");
  const result = await writeSettle(ctx, input.cite, {
    executionId: input.executionId,
    to: "SETTLED_COMMITTED",
    cause: "reconciled_present",
    actor: input.actor,
    finding: {
      effectId: input.record.effectId,
      adapterId: input.record.adapterId,
      destinationRef: input.destinationRefs[0] ?? null,
      classification,
      ...(classification === "DUPLICATE" ? { excessEffectCount: input.nFound - 1 } : {}),
      evidence: { n_found: input.nFound, destination_refs: input.destinationRefs },
    },
  });
  if (result === LOST_RACE) return LOST_RACE;
  emit(ctx, "settled", "info", {
    effect_id: input.record.effectId,
    lifecycle: "SETTLED_COMMITTED",
    classification,
    probe_ids: result.probeIds,
  });
  return { findingId: result.findingId, classification, probeIds: result.probeIds };
}

/** Two ABSENT reads a gap apart: SETTLED_FAILED + LOST; no declared lag ⇒ LOST goes to a human. */
export async function settleAbsent(
  ctx: EngineContext,
  input: {
    record: StoredRecord;
    executionId: number;
    cite: SettleCitation;
    lagDeclared: boolean;
    actor: SettleActor;
  },
): Promise<
  { findingId: number | null; escalated: boolean; probeIds: number[] } | typeof LOST_RACE
> {
  await ctx.crash.hit("settle.pre_commit");
  const escalate = input.lagDeclared
    ? undefined
    : { reason: "absence_without_declared_lag", auto_redispatch: "refused" };
  const result = await writeSettle(ctx, input.cite, {
    executionId: input.executionId,
    to: "SETTLED_FAILED",
    cause: "reconciled_absent",
    actor: input.actor,
    finding: {
      effectId: input.record.effectId,
      adapterId: input.record.adapterId,
      destinationRef: null,
      classification: "LOST",
      evidence: { lag_declared: input.lagDeclared },
      ...(escalate === undefined ? {} : { escalate }),
    },
  });
  if (result === LOST_RACE) return LOST_RACE;
  emit(ctx, "settled", "info", {
    effect_id: input.record.effectId,
    lifecycle: "SETTLED_FAILED",
    classification: "LOST",
    probe_ids: result.probeIds,
  });
  if (escalate !== undefined)
    emit(ctx, "escalated", "warn", { effect_id: input.record.effectId, reason: escalate.reason });
  return {
    findingId: result.findingId,
    escalated: escalate !== undefined,
    probeIds: result.probeIds,
  };
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
