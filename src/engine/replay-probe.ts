/**
 * engine/replay-probe — C1 reconciliation by idempotent replay (§6): inside the declared
 * idempotency window, re-send the SAME key with the execution's payload; the destination
 * answers with the first outcome. OK ⇒ replay_ok (COMMITTED + CONFIRMED_UNIQUE), TERMINAL
 * FAILED ⇒ replay_failed, in one transaction. Anything else (TIMEOUT, LOST, RETRYABLE: the
 * replay itself was not processed) is unresolved and the caller falls back to a status query.
 *
 * A replay can create an effect (the first create may never have arrived; a key the
 * destination has forgotten is a new create), so:
 *   - it is sent only while it will ARRIVE inside the window: engine now + probe deadline +
 *     `replayWindowMarginSeconds` must not pass first claim + window; otherwise the window
 *     counts as closed (status query instead);
 *   - it passes the commit gate like a first send (claim-replay-probe). A denied replay sends
 *     nothing, leaves the execution AMBIGUOUS, escalates it once (`gate_denied`) with the
 *     deny on record, and the caller asks by status query, which can never create anything.
 * Imports: core, db, ledger, adapters, engine.
 */
import type { DispatchOrder } from "../adapters/contract.js";
import { claimReplayProbe, recordReplayOutcome } from "../ledger/claim-replay-probe.js";
import { listAttempts } from "../ledger/read-records.js";
import { emit } from "./context.js";
import { callTimingEvidence, engineNowMs, startWire, wireElapsedMs } from "./engine-time.js";
import { sendGated, uncoveredCall } from "./gated-send.js";
import { keepLateResult } from "./late-results.js";
import type { ReconcileOutcome, ReconcileStep } from "./reconcile-types.js";
import { escalateExecution } from "./reconcile-settle.js";

/**
 * Whether a replay sent now would arrive inside the declared window, with the margin. The
 * window is counted from the execution's FIRST claim: the destination saw the key no earlier.
 */
export async function isReplayWindowOpen(step: ReconcileStep): Promise<boolean> {
  const windowSeconds = step.entry.idempotencyWindowSeconds;
  if (windowSeconds === null) return false;
  const first = (await listAttempts(step.ctx.db, step.execution.executionId))[0];
  if (first === undefined) return false;
  const closesAtMs = Date.parse(first.claimedAt) + windowSeconds * 1000;
  const arrivesByMs =
    (await engineNowMs(step.ctx)) +
    step.ctx.config.probeDeadlineMs +
    step.ctx.config.replayWindowMarginSeconds * 1000;
  return arrivesByMs <= closesAtMs;
}

/** Runs one replay probe; null means "not sent or unresolved, query instead". */
export async function replayProbe(step: ReconcileStep): Promise<ReconcileOutcome | null> {
  const { ctx, record, execution, entry } = step;
  const effectId = record.effectId;
  const deadlineMs = ctx.config.probeDeadlineMs;
  if (!(await isReplayWindowOpen(step))) return null;
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
    case "denied":
      // Nothing is sent; the deny is on record and a human hears of it once.
      await escalateExecution(ctx, {
        effectId,
        executionId: execution.executionId,
        reason: "gate_denied",
        evidence: {
          decision_id: claim.decisionId,
          variant: "c1_replay_probe",
          check: claim.check,
          cause: claim.cause,
        },
        actor: step.actor,
      });
      if (!claim.repeated)
        emit(ctx, "gate_decision", "info", {
          effect_id: effectId,
          outcome: "DENY",
          variant: "c1_replay_probe",
          check: claim.check,
          cause: claim.cause,
          decision_id: claim.decisionId,
        });
      return null;
    case "claimed":
      break;
  }
  const order: DispatchOrder = {
    operationId: claim.operationId,
    effectType: record.effectType,
    payload: claim.parameters,
    clientRef: claim.operationId,
    idempotencyKey: claim.operationId,
    stableIds: record.stableIds,
  };
  const wireStart = startWire(ctx);
  // As for a first send: not past the cover of the lease the replay was claimed under.
  const wire =
    uncoveredCall(ctx, lease, deadlineMs) ??
    (await sendGated(claim.allowed, entry.adapter, order, deadlineMs));
  const elapsedMs = wireElapsedMs(ctx, wireStart);
  keepLateResult(ctx, wire, {
    attemptId: claim.attemptId,
    executionId: execution.executionId,
    effectId,
    lease,
    recordedBy: step.actor,
  });
  // A replay that reached a destination which had forgotten the key creates the effect: the
  // absence rule counts read lag from this call's horizon too.
  const timing = await callTimingEvidence(
    ctx,
    wire.transportOutcome,
    wireStart,
    deadlineMs,
    elapsedMs,
  );
  const result = await recordReplayOutcome(ctx.db, {
    attemptId: claim.attemptId,
    executionId: execution.executionId,
    transportOutcome: wire.transportOutcome,
    ...(wire.failureKind === undefined ? {} : { failureKind: wire.failureKind }),
    ...(wire.destinationRef === undefined ? {} : { destinationRef: wire.destinationRef }),
    ...(wire.responseDigest === undefined ? {} : { responseDigest: wire.responseDigest }),
    evidence: {
      ...wire.evidence,
      replay_probe: true,
      ...timing,
    },
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
