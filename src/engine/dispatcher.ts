/**
 * engine/dispatcher — one dispatch (§5.1): validate the payload with the adapter BEFORE the
 * claim (D6: a bad payload writes no attempt), claim (T-CLAIM commits before any I/O), call
 * the adapter exactly once with a deadline, record the receipt and transition in one
 * transaction. The wire call is never retried (I4); only the receipt write is, briefly, on a
 * retryable storage error, because its outcome is known here and nowhere else. If it still
 * fails, the claim's lease is forfeited so recovery — this process's own included — closes
 * the attempt as LOST and reconciles it from the destination. Crash seams: gate.post_allow, adapter.pre_call,
 * adapter.post_call, receipt.pre_commit, receipt.post_commit. Imports: core, db, ledger,
 * adapters, engine.
 */
import { performance } from "node:perf_hooks";
import type { DispatchOrder } from "../adapters/contract.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type {
  GateCheck,
  GateVariant,
  LifecycleState,
  TransportOutcome,
} from "../core/state-tables.js";
import {
  claimDispatch,
  requireClaimInputs,
  type ClaimRequest,
  type ClaimResult,
} from "../ledger/claim-dispatch.js";
import { recordEscalation } from "../ledger/escalations.js";
import type { GateCheckResult } from "../ledger/gate-evaluate.js";
import type { ClaimInputs } from "../ledger/gate-inputs.js";
import {
  recordReceiptOnce,
  type OutcomeInput,
  type ReceiptResult,
} from "../ledger/record-outcome.js";
import type { ReceiptRow, WorkerLease } from "../ledger/types.js";
import type { WireOutcome } from "./call-adapter.js";
import { emit, type EngineContext } from "./context.js";
import { sendGated, uncoveredCall } from "./gated-send.js";
import { callTimingEvidence, startWire, wireElapsedMs } from "./engine-time.js";
import { keepLateResult } from "./late-results.js";
import { nextSlotPause, usesScopeSlot } from "./scope-slot.js";

/** The dispatch went out (once); `lifecycle` is where the execution landed. */
export interface Dispatched {
  readonly status: "dispatched";
  readonly effectId: string;
  readonly operationId: string;
  readonly attemptId: number;
  readonly transportOutcome: TransportOutcome;
  /** SETTLED_COMMITTED, SETTLED_FAILED or AMBIGUOUS (or the frontier found if the receipt arrived late). */
  readonly lifecycle: LifecycleState;
  readonly receiptId: number | null;
}

/** The gate denied: which check, why, and the persisted decision. */
export interface Denied {
  readonly status: "denied";
  readonly effectId: string;
  readonly check: GateCheck;
  readonly cause: string;
  readonly decisionId: number;
  readonly checks: readonly GateCheckResult[];
  readonly evidence: Readonly<Record<string, unknown>>;
  /**
   * Automatic work only: the same deny as the last one recorded for this execution, so no new
   * decision row was written (the first one stands, and the execution is escalated).
   */
  readonly repeated: boolean;
}

/** An earlier dispatch is in flight or unresolved; nothing was sent. Reconcile instead. */
export interface PendingReconciliation {
  readonly status: "pending_reconciliation";
  readonly effectId: string;
  readonly operationId: string;
  readonly frontier: "DISPATCHED" | "AMBIGUOUS";
  readonly lastReceipt: ReceiptRow | null;
}

/** Another effect in the same (scope, effect_type) slot has an open attempt. Try later. */
export interface ScopeBusyResult {
  readonly status: "scope_busy";
  readonly effectId: string;
  readonly attemptId: number;
  readonly blockingEffectId: string;
  /** How long this dispatch waited for the slot first (config `scopeBusyWaitMs`). */
  readonly waitedMs: number;
}

/** What `dispatch` returns: expected outcomes are values, never exceptions. */
export type DispatchOutcome = Dispatched | Denied | PendingReconciliation | ScopeBusyResult;

/** Options of one dispatch. */
export interface DispatchOptions {
  /** Gate variant; default follows how the execution was opened. */
  readonly variant?: GateVariant;
  /**
   * Set by the worker for work nobody asked for right now (a resumed re-dispatch): a deny
   * escalates the execution once (`gate_denied`) and a deny identical to the last recorded
   * one writes no new decision row, so a standing deny entry is not re-decided every cycle.
   */
  readonly automatic?: { readonly actor: "reconciler" | "recovery" };
}

/** Wraps anything an adapter's validator throws as payload_invalid. */
export function validatePayload(
  ctx: EngineContext,
  adapterId: string,
  effectType: string,
  payload: Record<string, unknown>,
): void {
  const { adapter } = ctx.adapters.require(adapterId);
  try {
    adapter.validatePayload(effectType, payload);
  } catch (e) {
    if (e instanceof IrrevonError && e.code === ErrorCode.payload_invalid) throw e;
    throw new IrrevonError(ErrorCode.payload_invalid, "the adapter rejected the stored payload", {
      details: { adapter_id: adapterId, effect_type: effectType },
      cause: e,
    });
  }
}

/** First pause between receipt retries; doubles each time. */
const RECEIPT_RETRY_FIRST_MS = 250;
/** Lease kept back from the retries: the last write must commit while the claim's lease is live. */
const RECEIPT_RETRY_MARGIN_MS = 500;

const isRetryableStorage = (e: unknown): boolean =>
  e instanceof IrrevonError && e.code === ErrorCode.storage_unavailable && e.retryable;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records the receipt, retrying a retryable storage error with a doubling backoff for no longer
 * than the dispatch deadline and what is left of the claim's lease (minus a margin). When it
 * still fails, the claim's lease is forfeited before the error is rethrown: otherwise the
 * keeper would renew it once the database returns and the attempt would stay "in flight"
 * for as long as this process lives.
 */
async function recordReceipt(
  ctx: EngineContext,
  input: OutcomeInput,
  lease: WorkerLease,
): Promise<ReceiptResult> {
  const budgetMs = Math.min(
    ctx.config.dispatchDeadlineMs,
    ctx.lease.remainingMs(lease) - RECEIPT_RETRY_MARGIN_MS,
  );
  const giveUpAt = performance.now() + budgetMs;
  let delayMs = RECEIPT_RETRY_FIRST_MS;
  for (;;) {
    try {
      return await recordReceiptOnce(ctx.db, input);
    } catch (e) {
      if (!isRetryableStorage(e)) throw e;
      const keptMs = ctx.lease.remainingMs(lease) - RECEIPT_RETRY_MARGIN_MS;
      if (performance.now() + delayMs > giveUpAt || delayMs >= keptMs) {
        ctx.lease.forfeit(lease);
        emit(ctx, "lease_error", "warn", {
          reason: "lease_forfeited_receipt_unrecorded",
          attempt_id: input.attemptId,
          fencing_token: lease.fencingToken,
        });
        throw e;
      }
      await pause(delayMs);
      delayMs *= 2;
    }
  }
}

/** A dispatch's outcome, and whether a finding waits on its commit to close. */
export interface DispatchRun {
  readonly outcome: DispatchOutcome;
  /** The receipt transaction saw a finding that this commit closes (engine/resolution-hooks). */
  readonly closesResolutions: boolean;
}

/** Dispatches one registered effect. Throws only for bad input and infrastructure. */
export async function dispatchEffect(
  ctx: EngineContext,
  effectId: string,
  options: DispatchOptions = {},
): Promise<DispatchOutcome> {
  return (await runDispatch(ctx, effectId, options)).outcome;
}

const pauseFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The claim request of one dispatch (the slot decided by the destination's attribution). */
export function claimRequestFor(
  ctx: EngineContext,
  inputs: ClaimInputs,
  lease: WorkerLease,
  options: DispatchOptions,
): ClaimRequest {
  const entry = ctx.adapters.require(inputs.record.adapterId);
  return {
    effectId: inputs.record.effectId,
    lease,
    useSlot: usesScopeSlot(ctx.config, entry.declaration),
    ...(options.variant === undefined ? {} : { variant: options.variant }),
    ...(options.automatic === undefined ? {} : { suppressRepeatedDeny: true }),
  };
}

/**
 * {@link dispatchEffect}, also telling whether resolutions wait on the commit. Hot path: one
 * read of the claim inputs (record, execution, payload, gate inputs), the payload check, one
 * locked claim call, the wire call, one receipt call (docs/architecture.md "Hot path").
 */
export async function runDispatch(
  ctx: EngineContext,
  effectId: string,
  options: DispatchOptions = {},
): Promise<DispatchRun> {
  const started = performance.now();
  for (let step = 0; ; step++) {
    const inputs = await requireClaimInputs(ctx.db, effectId);
    const check = (i: ClaimInputs): void =>
      validatePayload(ctx, i.record.adapterId, i.record.effectType, i.sent.parameters); // D6
    check(inputs);
    // The lease must outlive the call, or recovery could take a live call for abandoned.
    const lease = await ctx.lease.ensure(ctx.config.dispatchDeadlineMs * 2);
    const claim = await claimDispatch(ctx.db, claimRequestFor(ctx, inputs, lease, options), {
      first: inputs,
      check,
    });
    const waitedMs = Math.round(performance.now() - started);
    if (claim.status === "scope_busy") {
      const pauseMs = nextSlotPause(waitedMs, ctx.config.scopeBusyWaitMs, step);
      if (pauseMs !== null) {
        await pauseFor(pauseMs);
        continue;
      }
    }
    return finishClaim(ctx, effectId, claim, lease, options, waitedMs);
  }
}

/**
 * What follows a claim: a deny, pending or busy answer, or — claimed — the wire call under
 * the claim and its receipt. Shared by `runDispatch` and the fused register-and-dispatch.
 */
export async function finishClaim(
  ctx: EngineContext,
  effectId: string,
  claim: ClaimResult,
  lease: WorkerLease,
  options: DispatchOptions,
  waitedMs = 0,
): Promise<DispatchRun> {
  const deadlineMs = ctx.config.dispatchDeadlineMs;
  const none = (outcome: DispatchOutcome): DispatchRun => ({ outcome, closesResolutions: false });
  switch (claim.status) {
    case "denied":
      if (options.automatic !== undefined) {
        const isNew = await recordEscalation(ctx.db, {
          executionId: claim.executionId,
          reason: "gate_denied",
          evidence: { decision_id: claim.decisionId, check: claim.check, cause: claim.cause },
          recordedBy: options.automatic.actor,
        });
        if (isNew)
          emit(ctx, "escalated", "warn", {
            effect_id: effectId,
            execution_id: claim.executionId,
            reason: "gate_denied",
          });
      }
      if (!claim.repeated)
        emit(ctx, "gate_decision", "info", {
          effect_id: effectId,
          outcome: "DENY",
          check: claim.check,
          cause: claim.cause,
          decision_id: claim.decisionId,
        });
      return none({
        status: "denied",
        effectId,
        check: claim.check,
        cause: claim.cause,
        decisionId: claim.decisionId,
        checks: claim.checks,
        evidence: claim.evidence,
        repeated: claim.repeated,
      });
    case "pending_reconciliation":
      return none({
        status: "pending_reconciliation",
        effectId,
        operationId: claim.operationId,
        frontier: claim.frontier,
        lastReceipt: claim.lastReceipt,
      });
    case "scope_busy":
      return none({
        status: "scope_busy",
        effectId,
        attemptId: claim.attemptId,
        blockingEffectId: claim.blockingEffectId,
        waitedMs,
      });
    case "claimed":
      break;
  }
  emit(ctx, "gate_decision", "info", {
    effect_id: effectId,
    outcome: "ALLOW",
    decision_id: claim.decisionId,
    attempt_id: claim.attemptId,
  });
  await ctx.crash.hit("gate.post_allow");

  const record = claim.record;
  const entry = ctx.adapters.require(record.adapterId);
  const order: DispatchOrder = {
    operationId: claim.operationId,
    effectType: record.effectType,
    payload: claim.parameters,
    clientRef: claim.operationId,
    idempotencyKey: claim.operationId,
    stableIds: record.stableIds,
  };
  await ctx.crash.hit("adapter.pre_call");
  const wireStart = startWire(ctx);
  // The lease that matters is the one the attempt was CLAIMED under: if the keeper re-registered
  // meanwhile (the old lease lapsed), recovery may already have closed this attempt.
  const wire: WireOutcome =
    uncoveredCall(ctx, lease, deadlineMs) ??
    (await sendGated(claim.allowed, entry.adapter, order, deadlineMs));
  const elapsedMs = wireElapsedMs(ctx, wireStart);
  await ctx.crash.hit("adapter.post_call");
  // An unknown outcome carries the instant the absence rule counts read lag from.
  const timing = await callTimingEvidence(
    ctx,
    wire.transportOutcome,
    wireStart,
    deadlineMs,
    elapsedMs,
  );

  // Kept whatever happens to the receipt below: the answer exists nowhere else.
  keepLateResult(ctx, wire, {
    attemptId: claim.attemptId,
    executionId: claim.executionId,
    effectId,
    lease,
    recordedBy: "dispatcher",
  });
  await ctx.crash.hit("receipt.pre_commit");
  const outcome = await recordReceipt(
    ctx,
    {
      attemptId: claim.attemptId,
      executionId: claim.executionId,
      transportOutcome: wire.transportOutcome,
      ...(wire.failureKind === undefined ? {} : { failureKind: wire.failureKind }),
      ...(wire.destinationRef === undefined ? {} : { destinationRef: wire.destinationRef }),
      ...(wire.responseDigest === undefined ? {} : { responseDigest: wire.responseDigest }),
      evidence: {
        ...wire.evidence,
        ...timing,
      },
      recordedBy: "dispatcher",
      lease,
    },
    lease,
  );
  await ctx.crash.hit("receipt.post_commit");

  const lifecycle =
    outcome.status === "recorded" ? outcome.lifecycle : (outcome.frontier ?? "DISPATCHED");
  emit(ctx, lifecycle === "AMBIGUOUS" ? "ambiguous_parked" : "dispatched", "info", {
    effect_id: effectId,
    operation_id: claim.operationId,
    transport_outcome: wire.transportOutcome,
    lifecycle,
  });
  return {
    outcome: {
      status: "dispatched",
      effectId,
      operationId: claim.operationId,
      attemptId: claim.attemptId,
      transportOutcome: wire.transportOutcome,
      lifecycle,
      receiptId: outcome.status === "recorded" ? outcome.receiptId : null,
    },
    closesResolutions: outcome.closesResolutions,
  };
}
