/**
 * engine/run — "do this irreversible thing once" in one call (issue 13): register the intent
 * (the adapter validates the payload first, so a refused payload writes nothing), pass the
 * commit gate, dispatch at most once, and after a lost response reconcile within a bounded
 * wait. Every expected outcome is a typed value (run-result): committed (with the original
 * destination ref and response when the call collapsed onto an earlier one), denied, failed,
 * or ambiguous with what happens next and when. Bad input throws (contract_invalid,
 * payload_invalid, ...) before anything is written.
 *
 * Decisions: a replay onto a settled effect never sends again, except a replay onto a
 * failure the destination cited as RETRYABLE, which opens a retry execution under this call's
 * authority (new step, new key) and dispatches it, gated like any other; the recorded
 * parameters are sent, a differing variant is reported, never silently applied. A reconciled
 * absence (LOST) is left to resolution. Imports: core, ledger, engine.
 */
import { performance } from "node:perf_hooks";
import { canonicalDigest } from "../core/canonical.js";
import type { IntentContractInput } from "../core/contract-input.js";
import { ContractInvalidError } from "../core/errors.js";
import type { LifecycleState } from "../core/state-tables.js";
import { readExecutionParameters } from "../ledger/claim-attempt.js";
import type { AuthorityInput } from "../ledger/append-authority.js";
import type { OpenedExecution } from "../ledger/open-retry-execution.js";
import { latestExecution } from "../ledger/read-records.js";
import type { RegisterResult } from "../ledger/register-intent.js";
import { readCommitEvidence, readFailureEvidence } from "../ledger/run-reads.js";
import { databaseNowMs } from "../ledger/sql-util.js";
import type { EngineContext } from "./context.js";
import type { DispatchOutcome } from "./dispatcher.js";
import { engineNowMs } from "./engine-time.js";
import type { ReconcileOutcome } from "./reconcile-types.js";
import {
  ambiguousMessage,
  committedMessage,
  deniedMessage,
  failedMessage,
  RUN_RECONCILE_DEFAULT_MS,
  RUN_RECONCILE_MAX_MS,
  type ParameterVariant,
  type RunAmbiguous,
  type RunRequest,
  type RunResult,
} from "./run-result.js";
import { pause } from "./pause.js";

/** The engine operations `run` composes (the Irrevon handle's own methods). */
export interface RunOps {
  /**
   * Registers and, for a new intent, dispatches now with the registration and the claim in
   * one transaction (engine/register-dispatch); a replay comes back undispatched (null).
   */
  registerThenDispatch(contract: IntentContractInput): Promise<{
    readonly registration: RegisterResult;
    readonly dispatch: DispatchOutcome | null;
  }>;
  dispatch(effectId: string): Promise<DispatchOutcome>;
  reconcile(effectId: string): Promise<ReconcileOutcome>;
  retry(
    effectId: string,
    authority: AuthorityInput,
    options: { readonly reason: string },
  ): Promise<OpenedExecution>;
}

/** How often an in-flight call (this process's own, past its deadline) is looked at again. */
const IN_FLIGHT_POLL_MS = 100;
/** Added to a due instant so the next reconcile is past it on the database clock too. */
const DUE_MARGIN_MS = 25;

interface Base {
  readonly effectId: string;
  operationId: string;
  readonly replayed: boolean;
  readonly variant: ParameterVariant | null;
}

function reconcileBudget(value: unknown): number {
  if (value === undefined) return RUN_RECONCILE_DEFAULT_MS;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < 0 ||
    value > RUN_RECONCILE_MAX_MS
  ) {
    throw new ContractInvalidError(
      `reconcileWithinMs must be an integer of 0..${RUN_RECONCILE_MAX_MS} milliseconds`,
      "$.reconcileWithinMs",
      "range",
      typeof value === "number" ? "number" : "other",
      { limit_value: `0..${RUN_RECONCILE_MAX_MS}` },
    );
  }
  return value;
}

function toContract(request: RunRequest, defaultStampMs: number): IntentContractInput {
  return {
    schema_version: "1",
    stable_ids: request.stableIds,
    effect_type: request.effectType,
    scope: request.scope,
    effect_class: request.effectClass ?? "IRREVERSIBLE",
    adapter_id: request.adapterId,
    parameters: request.parameters ?? {},
    authority_ref: request.authorityRef,
    stamped_at: request.stampedAt ?? new Date(defaultStampMs).toISOString(),
    ...(request.branchRef === undefined ? {} : { branch_ref: request.branchRef }),
  };
}

/** Top-level keys added, removed or changed between two parameter objects, sorted. */
export function changedFields(
  recorded: Readonly<Record<string, unknown>>,
  incoming: Readonly<Record<string, unknown>>,
): string[] {
  const keys = new Set([...Object.keys(recorded), ...Object.keys(incoming)]);
  const changed: string[] = [];
  for (const key of keys) {
    const inA = Object.hasOwn(recorded, key);
    const inB = Object.hasOwn(incoming, key);
    if (
      inA !== inB ||
      canonicalDigest(recorded[key] ?? null) !== canonicalDigest(incoming[key] ?? null)
    )
      changed.push(key);
  }
  return changed.sort();
}

async function variantOf(
  ctx: EngineContext,
  registered: RegisterResult,
  parameters: Readonly<Record<string, unknown>>,
): Promise<ParameterVariant | null> {
  if (!registered.replayed) return null;
  const latest = await latestExecution(ctx.db, registered.effectId);
  const recorded = await readExecutionParameters(ctx.db, registered.effectId, latest?.step ?? 0);
  const digest = canonicalDigest(parameters);
  if (digest === recorded.parametersDigest) return null;
  return { digest, changedFields: changedFields(recorded.parameters, parameters) };
}

/** A settled (or cancelled) execution as a result; null while it is still open. */
async function settledResult(ctx: EngineContext, base: Base): Promise<RunResult | null> {
  const latest = await latestExecution(ctx.db, base.effectId);
  const frontier: LifecycleState = latest?.frontier ?? "INTENDED";
  const b = { ...base, operationId: latest?.operationId ?? base.operationId };
  switch (frontier) {
    case "SETTLED_COMMITTED": {
      const ev = latest === null ? null : await readCommitEvidence(ctx.db, latest.executionId);
      return {
        ...b,
        status: "committed",
        destinationRef: ev?.destinationRef ?? null,
        response: ev?.response ?? null,
        evidence:
          ev?.cause === "receipt_ok"
            ? "receipt"
            : ev?.cause === "replay_ok"
              ? "replay"
              : "reconciled",
        modelMessage: committedMessage(b.replayed, b.variant),
      };
    }
    case "SETTLED_FAILED": {
      const ev = latest === null ? null : await readFailureEvidence(ctx.db, latest.executionId);
      const reason = ev?.failureKind ?? ev?.cause ?? "failed";
      const retryable = ev?.failureKind === "RETRYABLE";
      return {
        ...b,
        status: "failed",
        retryable,
        reason,
        modelMessage: failedMessage(retryable, reason, b.variant),
      };
    }
    case "CANCELLED":
      return {
        ...b,
        status: "denied",
        check: "branch_lineage",
        reason: "branch_cancelled",
        modelMessage: deniedMessage("branch_lineage", "branch_cancelled"),
      };
    case "INTENDED":
    case "PERSISTED":
    case "DISPATCHED":
    case "AMBIGUOUS":
      return null;
  }
}

function ambiguous(
  base: Base,
  action: "reconcile" | "human",
  notBefore: string | null,
): RunAmbiguous {
  return {
    ...base,
    status: "ambiguous",
    next: { action, notBefore },
    modelMessage: ambiguousMessage(action),
  };
}

/** When the next reconcile step is due (epoch ms), or "human" when no query can settle it. */
function nextDue(outcome: ReconcileOutcome, nowMs: number): number | "human" {
  switch (outcome.status) {
    case "awaiting_lag":
      return Date.parse(outcome.notBefore);
    case "reread_scheduled":
      return Date.parse(outcome.rereadNotBefore);
    case "parked":
      if (
        outcome.escalated ||
        outcome.reason === "opaque_destination" ||
        outcome.reason === "no_covering_key"
      )
        return "human";
      return outcome.nextDueAt === null ? nowMs + IN_FLIGHT_POLL_MS : Date.parse(outcome.nextDueAt);
    case "in_flight":
    case "committed":
    case "failed":
    case "settled":
      // In flight: look again shortly. Settled ones never get here (the caller reads the state first).
      return nowMs + IN_FLIGHT_POLL_MS;
  }
}

/** Reconciles until settled, a human is needed, the budget is spent or the signal aborts. */
async function reconcileWithin(
  ctx: EngineContext,
  ops: RunOps,
  base: Base,
  budgetMs: number,
  signal: AbortSignal | undefined,
): Promise<RunResult> {
  const giveUpAt = performance.now() + budgetMs;
  for (;;) {
    const outcome = await ops.reconcile(base.effectId);
    const settled = await settledResult(ctx, base);
    if (settled !== null) return settled;
    const nowMs = await engineNowMs(ctx);
    const due = nextDue(outcome, nowMs);
    if (due === "human") return ambiguous(base, "human", null);
    const waitMs = Math.max(0, due - nowMs) + DUE_MARGIN_MS;
    if (signal?.aborted === true || performance.now() + waitMs > giveUpAt)
      return ambiguous(base, "reconcile", new Date(Math.max(due, nowMs)).toISOString());
    await pause(waitMs, signal);
  }
}

/**
 * The result of the execution another call of the same intent opened (committed, or still open
 * and reconciled within the budget); null when it is neither, so the deny stands.
 */
async function collapsedOnto(
  ctx: EngineContext,
  ops: RunOps,
  base: Base,
  budgetMs: number,
  signal: AbortSignal | undefined,
): Promise<RunResult | null> {
  const latest = await latestExecution(ctx.db, base.effectId);
  switch (latest?.frontier) {
    case "SETTLED_COMMITTED":
      return settledResult(ctx, base);
    case "DISPATCHED":
    case "AMBIGUOUS":
      return reconcileWithin(ctx, ops, base, budgetMs, signal);
    case "SETTLED_FAILED":
    case "CANCELLED":
    case "INTENDED":
    case "PERSISTED":
    case undefined:
      return null;
  }
}

async function afterDispatch(
  ctx: EngineContext,
  ops: RunOps,
  base: Base,
  outcome: DispatchOutcome,
  budgetMs: number,
  signal: AbortSignal | undefined,
): Promise<RunResult> {
  switch (outcome.status) {
    case "denied":
      // A concurrent call of the same intent got there first: its execution is the answer.
      if (outcome.check === "dedup" && outcome.cause === "duplicate_intent") {
        const collapsed = await collapsedOnto(ctx, ops, base, budgetMs, signal);
        if (collapsed !== null) return collapsed;
      }
      return {
        ...base,
        status: "denied",
        check: outcome.check,
        reason: outcome.cause,
        modelMessage: deniedMessage(outcome.check, outcome.cause),
      };
    case "scope_busy":
      if (outcome.blockingEffectId === base.effectId) {
        const collapsed = await collapsedOnto(ctx, ops, base, budgetMs, signal);
        if (collapsed !== null) return collapsed;
      }
      return {
        ...base,
        status: "denied",
        check: "scope_busy",
        reason: "scope_busy",
        modelMessage: deniedMessage("scope_busy", "scope_busy"),
      };
    case "dispatched":
    case "pending_reconciliation": {
      const settled = await settledResult(ctx, base);
      return settled ?? reconcileWithin(ctx, ops, base, budgetMs, signal);
    }
  }
}

/** Runs one request (see the file header). */
export async function runEffect(
  ctx: EngineContext,
  ops: RunOps,
  request: RunRequest,
): Promise<RunResult> {
  request.signal?.throwIfAborted();
  const budgetMs = reconcileBudget(request.reconcileWithinMs);
  // No stamp given: the database clock's now, the clock the gate's expiry and the future-stamp
  // check read (the host's may be minutes off it: refused as a future stamp, or expiring early).
  const contract = toContract(
    request,
    request.stampedAt === undefined ? await databaseNowMs(ctx.db) : 0,
  );
  const fused = await ops.registerThenDispatch(contract);
  const registered = fused.registration;
  const base: Base = {
    effectId: registered.effectId,
    operationId: registered.operationId,
    replayed: registered.replayed,
    variant: await variantOf(ctx, registered, contract.parameters),
  };
  const signal = request.signal;
  if (fused.dispatch !== null)
    return afterDispatch(ctx, ops, base, fused.dispatch, budgetMs, signal);
  switch (registered.lifecycle) {
    case "DISPATCHED":
    case "AMBIGUOUS":
      return reconcileWithin(ctx, ops, base, budgetMs, signal);
    case "SETTLED_FAILED": {
      const failure = await settledResult(ctx, base);
      if (failure?.status !== "failed" || !failure.retryable)
        return failure ?? ambiguous(base, "reconcile", null);
      const opened = await ops.retry(
        base.effectId,
        { authorityRef: contract.authority_ref, stampedAt: contract.stamped_at },
        { reason: "run: a replayed call after a failure the destination cited as retryable" },
      );
      base.operationId = opened.operationId;
      const outcome = await ops.dispatch(base.effectId);
      return afterDispatch(ctx, ops, base, outcome, budgetMs, signal);
    }
    case "SETTLED_COMMITTED":
    case "CANCELLED":
      return (await settledResult(ctx, base)) ?? ambiguous(base, "reconcile", null);
    case "INTENDED":
    case "PERSISTED": {
      const outcome = await ops.dispatch(base.effectId);
      return afterDispatch(ctx, ops, base, outcome, budgetMs, signal);
    }
  }
}
