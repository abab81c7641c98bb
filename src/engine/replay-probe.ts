/**
 * engine/replay-probe — C1 reconciliation by idempotent replay (§6): inside the declared
 * idempotency window, re-send the SAME key with the stored payload; the destination
 * answers with the first outcome and cannot create a second effect. OK ⇒ replay_ok
 * (COMMITTED + CONFIRMED_UNIQUE), TERMINAL FAILED ⇒ replay_failed, in one transaction.
 * Anything else (TIMEOUT, LOST, RETRYABLE: the replay itself was not processed) is
 * unresolved and the caller falls back to a status query. Imports: core, db, ledger,
 * adapters, engine.
 */
import type { DispatchOrder } from "../adapters/contract.js";
import { claimReplayProbe, recordReplayOutcome } from "../ledger/claim-replay-probe.js";
import { readParameters } from "../ledger/read-records.js";
import { callDispatch } from "./call-adapter.js";
import { emit } from "./context.js";
import { commitHorizonMs, startWire } from "./engine-time.js";
import { keepLateResult } from "./late-results.js";
import type { ReconcileOutcome, ReconcileStep } from "./reconcile-types.js";
import { escalateExecution } from "./reconcile-settle.js";

/** Runs one replay probe; null means "unresolved, query instead". */
export async function replayProbe(step: ReconcileStep): Promise<ReconcileOutcome | null> {
  const { ctx, record, execution, entry } = step;
  const effectId = record.effectId;
  const deadlineMs = ctx.config.probeDeadlineMs;
  const lease = await ctx.lease.ensure(deadlineMs * 2);
  const claim = await claimReplayProbe(ctx.db, {
    executionId: execution.executionId,
    lease,
    maxAttempts: ctx.config.maxAttemptsPerExecution,
  });
  switch (claim.status) {
    case "not_ambiguous":
      return null;
    case "scope_busy":
      return {
        status: "parked",
        effectId,
        reason: "scope_busy",
        nextDueAt: null,
        escalated: false,
        probeId: null,
      };
    case "attempt_cap":
      await escalateExecution(ctx, {
        effectId,
        executionId: execution.executionId,
        reason: "attempt_cap",
        evidence: { attempts: claim.attempts, max: ctx.config.maxAttemptsPerExecution },
        actor: step.actor,
      });
      return null;
    case "claimed":
      break;
  }
  const order: DispatchOrder = {
    operationId: claim.operationId,
    effectType: record.effectType,
    payload: await readParameters(ctx.db, effectId),
    clientRef: claim.operationId,
    idempotencyKey: claim.operationId,
    stableIds: record.stableIds,
  };
  const wireStart = startWire(ctx);
  const wire = await callDispatch(entry.adapter, order, deadlineMs);
  keepLateResult(ctx, wire, {
    attemptId: claim.attemptId,
    executionId: execution.executionId,
    effectId,
    lease,
    recordedBy: step.actor,
  });
  // A replay that reached a destination which had forgotten the key creates the effect: the
  // absence rule counts read lag from this call's horizon too.
  const horizon =
    wire.transportOutcome === "TIMEOUT" || wire.transportOutcome === "LOST"
      ? { commit_horizon_at: new Date(await commitHorizonMs(ctx, wireStart, deadlineMs)).toISOString() }
      : {};
  const result = await recordReplayOutcome(ctx.db, {
    attemptId: claim.attemptId,
    executionId: execution.executionId,
    transportOutcome: wire.transportOutcome,
    ...(wire.failureKind === undefined ? {} : { failureKind: wire.failureKind }),
    ...(wire.destinationRef === undefined ? {} : { destinationRef: wire.destinationRef }),
    ...(wire.responseDigest === undefined ? {} : { responseDigest: wire.responseDigest }),
    evidence: { ...wire.evidence, replay_probe: true, deadline_ms: deadlineMs, ...horizon },
    recordedBy: step.actor,
    lease,
    effectId,
    adapterId: record.adapterId,
    actor: step.actor,
  });
  if (result.status !== "settled") return null;
  emit(ctx, "settled", "info", {
    effect_id: effectId,
    lifecycle: result.lifecycle,
    cause: "replay",
    receipt_id: result.receiptId,
  });
  if (result.lifecycle === "SETTLED_COMMITTED") {
    return {
      status: "committed",
      effectId,
      classification: "CONFIRMED_UNIQUE",
      cause: "replay_ok",
      probeIds: [],
      findingId: result.findingId,
    };
  }
  return {
    status: "failed",
    effectId,
    cause: "replay_failed",
    probeIds: [],
    findingId: null,
    escalated: false,
  };
}
