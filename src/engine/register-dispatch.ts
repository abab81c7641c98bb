/**
 * engine/register-dispatch — register an intent and dispatch it now, with the registration
 * and the claim in ONE transaction (two durable commits per clean effect: register+claim,
 * then the receipt). Statements: `ledger_register` (which also returns the claim inputs),
 * the gate decided in the engine (gate-decide → gate-evaluate, the gate's one home),
 * `ledger_claim`, COMMIT; the wire call; `ledger_record_receipt`. The payload is checked
 * (D6) inside the transaction before the claim: a payload the adapter refuses rolls the
 * registration back, so nothing is written. A replay, a claim that found its inputs changed,
 * or a busy slot with a wait configured commits the registration and continues as a plain
 * dispatch (engine/dispatcher). Crash seams: persist.pre_commit (after the registration, inside
 * the transaction), persist.post_commit, then the dispatcher's. Imports: core, ledger, engine.
 */
import type { IntentContractInput } from "../core/contract-input.js";
import { validateIntentContract } from "../core/contract.js";
import { revealForAdapter } from "../core/taint.js";
import { claimOnInputs, type ClaimResult, type StaleClaim } from "../ledger/claim-dispatch.js";
import { registerIn, type RegisterResult } from "../ledger/register-intent.js";
import { emit, type EngineContext } from "./context.js";
import {
  claimRequestFor,
  finishClaim,
  runDispatch,
  validatePayload,
  type DispatchOptions,
  type DispatchOutcome,
} from "./dispatcher.js";
import { usesScopeSlot } from "./scope-slot.js";

/** What `registerAndDispatch` returns: the registration and the dispatch that followed. */
export interface RegisterAndDispatchOutcome {
  readonly registration: RegisterResult;
  readonly dispatch: DispatchOutcome;
}

/** The outcome, and whether a finding waits on the commit to close (engine/resolution-hooks). */
export interface RegisterAndDispatchRun {
  readonly outcome: RegisterAndDispatchOutcome;
  readonly closesResolutions: boolean;
}

/** Registers `contract` and dispatches it now (see the file header). */
export async function registerAndDispatch(
  ctx: EngineContext,
  contract: IntentContractInput,
  options: DispatchOptions = {},
): Promise<RegisterAndDispatchRun> {
  const run = await registerAndMaybeDispatch(ctx, contract, options, "dispatch");
  // "dispatch" never leaves the dispatch out.
  if (run.dispatch === null) throw new Error("registerAndDispatch: no dispatch after register");
  return {
    outcome: { registration: run.registration, dispatch: run.dispatch },
    closesResolutions: run.closesResolutions,
  };
}

/** {@link registerAndMaybeDispatch}'s result: `dispatch` is null for a replay left to the caller. */
export interface FusedRun {
  readonly registration: RegisterResult;
  readonly dispatch: DispatchOutcome | null;
  readonly closesResolutions: boolean;
}

/**
 * The fused path with a choice for a replay: `"dispatch"` continues it as a plain dispatch
 * (`registerAndDispatch`), `"return"` commits the registration and hands the replay back
 * undispatched (`run()`, which answers a replay from the record instead of asking the gate).
 * The payload is checked before anything is written, replays included (as `register` does).
 */
export async function registerAndMaybeDispatch(
  ctx: EngineContext,
  contract: IntentContractInput,
  options: DispatchOptions,
  onReplay: "dispatch" | "return",
): Promise<FusedRun> {
  const intent = validateIntentContract(contract);
  const entry = ctx.adapters.require(intent.adapterId);
  validatePayload(ctx, intent.adapterId, intent.effectType, revealForAdapter(intent.parameters));
  const useSlot = usesScopeSlot(ctx.config, entry.declaration);
  // The lease must outlive the call, or recovery could take a live call for abandoned.
  const lease = await ctx.lease.ensure(ctx.config.dispatchDeadlineMs * 2);
  const fused = await ctx.db.transaction(
    async (tx) => {
      const registered = await registerIn(tx, intent, entry.declarationDigest, {
        maxClockSkewMs: ctx.config.maxClockSkewMs,
        lockSlot: useSlot,
        withInputs: true,
      });
      await ctx.crash.hit("persist.pre_commit");
      // Nothing is written between the two calls: the claim decides on the registration's read
      // of the inputs, made under the locks it holds (migration 0053).
      const inputs = registered.inputs;
      if (registered.replayed || inputs === null) return { registered, claim: null };
      validatePayload(
        ctx,
        inputs.record.adapterId,
        inputs.record.effectType,
        inputs.sent.parameters,
      );
      // The claim is the transaction's last statement: COMMIT goes with it.
      const claim: ClaimResult | StaleClaim = await claimOnInputs(
        tx,
        inputs,
        claimRequestFor(ctx, inputs, lease, options),
        true,
      );
      return { registered, claim };
    },
    { beginWithFirstStatement: true },
  );
  await ctx.crash.hit("persist.post_commit");
  const { inputs: _inputs, ...registration } = fused.registered;
  emit(ctx, "intent_registered", "info", {
    effect_id: registration.effectId,
    replayed: registration.replayed,
    lifecycle: registration.lifecycle,
  });
  const claim = fused.claim;
  if (claim === null && registration.replayed && onReplay === "return")
    return { registration, dispatch: null, closesResolutions: false };
  if (
    claim === null ||
    claim.status === "stale" ||
    (claim.status === "scope_busy" && ctx.config.scopeBusyWaitMs > 0)
  ) {
    const run = await runDispatch(ctx, registration.effectId, options);
    return { registration, dispatch: run.outcome, closesResolutions: run.closesResolutions };
  }
  const run = await finishClaim(ctx, registration.effectId, claim, lease, options);
  return { registration, dispatch: run.outcome, closesResolutions: run.closesResolutions };
}
