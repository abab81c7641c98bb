/**
 * engine/irrevon — the public entry point: `openIrrevon({ database, adapters })` returns the
 * handle an agent or program uses to register intents, dispatch them through the commit
 * gate, reconcile unknown outcomes, recover after a crash, and inspect what the ledger
 * knows. Imports: core, db, ledger, adapters, engine.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Adapter } from "../adapters/contract.js";
import { checkCallerText, DECIDED_BY_MAX_CHARS } from "../core/caller-text.js";
import { validateIntentContract } from "../core/contract.js";
import type { IntentContractInput, NoAdvisoryKeys } from "../core/contract-input.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { LifecycleState } from "../core/state-tables.js";
import type { Db } from "../db/db.js";
import { rejectAdvisory } from "../core/advisory-guard.js";
import { checkAuthorityStamp } from "../core/authority-stamp.js";
import { databaseNowMs } from "../ledger/sql-util.js";
import type { ResolutionAction } from "../core/state-tables.js";
import type { AuthorityInput } from "../ledger/append-authority.js";
import { appendAuthority } from "../ledger/append-authority.js";
import { prepareClaimInputs } from "../ledger/gate-inputs.js";
import { inspectEffect, type EffectInspection } from "../ledger/inspect-effect.js";
import { canonicalDigest } from "../core/canonical.js";
import { revealForAdapter } from "../core/taint.js";
import { openRetryExecution, type OpenedExecution } from "../ledger/open-retry-execution.js";
import {
  addDenyEntry,
  cancelBranch,
  liftDenyEntry,
  type CancelBranchOptions,
  type DenyEntryInput,
} from "../ledger/operator-controls.js";
import { latestExecution, requireRecord } from "../ledger/read-records.js";
import { registerIntent, type RegisterResult } from "../ledger/register-intent.js";
import { listFindingsFiltered, type FindingFilter } from "../ledger/resolution-list.js";
import { listFindings, type FindingState } from "../ledger/resolve-finding.js";
import { readLedgerGauges, type LedgerGauges } from "../ledger/worker-gauges.js";
import { settleAmbiguous } from "../ledger/settle-ambiguous.js";
import { buildAdapterRegistry } from "./adapter-registry.js";
import { auditSettledEffect, type AuditOutcome } from "./audit-settled.js";
import { systemClock, type Clock } from "./clock.js";
import { resolveEngineConfig, type EngineConfig } from "./config.js";
import { emit, type EngineContext } from "./context.js";
import { crashPointsFromEnv, type CrashPoints } from "./crash-points.js";
import { runDispatch, type DispatchOptions, type DispatchOutcome } from "./dispatcher.js";
import { discardEvents, type EngineEventSink } from "./events.js";
import { startLeaseKeeper } from "./lease-keeper.js";
import { openLedgerDatabase, type DatabaseOption } from "./open-database.js";
import { reconcileEffect } from "./reconciler.js";
import {
  registerAndDispatch,
  registerAndMaybeDispatch,
  type RegisterAndDispatchOutcome,
} from "./register-dispatch.js";
import type { ReconcileOutcome } from "./reconcile-types.js";
import { runRecovery, type RecoveryReport } from "./recovery.js";
import { runEffect } from "./run.js";
import type { RunRequest, RunResult } from "./run-result.js";
import { closeResolutionsAfterCommit } from "./resolution-hooks.js";
import {
  resolveFindingAction,
  type ResolveActor,
  type ResolveEvidence,
  type ResolveOutcome,
} from "./resolution.js";
import { sweepAdapter, type SweepReport } from "./sweep.js";
import type { SweepWindow } from "./sweep-window.js";
import { runCycle, type CycleOptions, type CycleReport } from "./worker-cycle.js";

/** Options of {@link openIrrevon}. */
export interface OpenIrrevonOptions {
  /** A Db handle (used as irrevon_app), a Postgres URL, an embedded data directory, or in-memory. */
  readonly database: DatabaseOption;
  /** The destination adapters; each declaration is validated at open (invalid ⇒ declaration_invalid). */
  readonly adapters: readonly Adapter[];
  /**
   * A TEST OFFSET for time-based decisions (lag, re-read, backoff, audit, freshness): decisions
   * use the database clock plus `clock.now() − host now`. Default: the system clock (offset 0,
   * pure database time). A skewed host clock is not an offset and changes nothing; a manual
   * clock moved forward makes the engine act as if that much time had passed.
   */
  readonly clock?: Clock;
  /** Tunables (D9); unspecified fields take the documented defaults. */
  readonly config?: Partial<EngineConfig>;
  /** This process's worker id; must be unique per live process (default: host:pid:random). */
  readonly workerId?: string;
  /** Structured event sink (default: discard). */
  readonly events?: EngineEventSink;
  /** Crash points (default: from IRREVON_TEST_HOOKS / IRREVON_CRASH_AT / IRREVON_SYNC_AT). */
  readonly crashPoints?: CrashPoints;
}

/** The three dimensions of one effect, at a glance. */
export interface EffectStatus {
  readonly effectId: string;
  readonly lifecycle: LifecycleState;
  readonly operationId: string;
  readonly step: number;
  /** Latest finding's classification, or UNRECONCILED. */
  readonly classification: string;
  /** Latest finding's resolution status, or null. */
  readonly resolution: string | null;
}

/** Options of {@link Irrevon.retry}. */
export interface RetryOptions extends NoAdvisoryKeys {
  /** Why the effect is tried again (recorded on the new execution); required with `parameters`. */
  readonly reason?: string;
  /**
   * A corrected retry: parameters to send instead of the record's. They must be a RECORDED
   * variant (register the contract again with them first: same identity, new parameters);
   * the new execution and later ones send them. Else `resolution_invalid`.
   */
  readonly parameters?: Record<string, unknown>;
}

/** A human decision about an AMBIGUOUS execution (e.g. on a C3 destination). */
export interface ManualSettlement extends NoAdvisoryKeys {
  readonly committed: boolean;
  readonly decidedBy: string;
  readonly note: string;
}

/** Operator controls of the commit gate. */
export interface OperatorControls {
  /** Adds a deny-list entry; returns its id. */
  addDenyEntry(input: DenyEntryInput): Promise<number>;
  /** Lifts a deny-list entry; returns the lift id. */
  liftDenyEntry(denyId: number): Promise<number>;
  /** Cancels a branch; returns executions moved to CANCELLED (with `cancelPersisted`). */
  cancelBranch(branchRef: string, reason: string, options?: CancelBranchOptions): Promise<number[]>;
  /** Appends a new current authority for an effect; returns its id. */
  appendAuthority(effectId: string, authority: AuthorityInput): Promise<number>;
}

/** An open Irrevon engine. */
export interface Irrevon {
  readonly workerId: string;
  /** The ledger handle (irrevon_app). */
  readonly db: Db;
  /**
   * Validates and persists an intent contract (INTENDED→PERSISTED) or adjudicates a replay.
   * The adapter validates the payload first: a refused payload is `payload_invalid` and
   * nothing is written.
   */
  register(contract: IntentContractInput): Promise<RegisterResult>;
  /**
   * "Do this irreversible thing once": register, gate, dispatch at most once and, after a lost
   * response, reconcile within `reconcileWithinMs`. Returns committed, denied, failed or
   * ambiguous as a value; bad input throws before anything is written.
   */
  run(request: RunRequest): Promise<RunResult>;
  /** Runs the commit gate and, if allowed, exactly one wire call. */
  dispatch(effectId: string, options?: DispatchOptions): Promise<DispatchOutcome>;
  /**
   * `register` then `dispatch` now, with the registration and the claim in one transaction
   * (two durable commits per clean effect). A refused payload writes nothing; a replay
   * continues as a plain dispatch. See engine/register-dispatch.
   */
  registerAndDispatch(
    contract: IntentContractInput,
    options?: DispatchOptions,
  ): Promise<RegisterAndDispatchOutcome>;
  /** One reconciliation step for an effect (never sleeps). */
  reconcile(effectId: string): Promise<ReconcileOutcome>;
  /** Closes abandoned attempts and reconciles every open execution. Call at start. */
  recover(): Promise<RecoveryReport>;
  /** Re-asks the destination about a settled effect (DUPLICATE / CONTRADICTED). */
  audit(effectId: string): Promise<AuditOutcome>;
  /** The three dimensions of one effect. */
  status(effectId: string): Promise<EffectStatus>;
  /** Everything the ledger knows about one effect (`irrevon inspect --json`). */
  inspect(effectId: string): Promise<EffectInspection>;
  /**
   * A new execution after a FAILED receipt or a human's "not committed": new step, new key,
   * fresh authority, optionally a recorded parameter variant (a corrected retry). The dispatch
   * that follows passes the gate like any other.
   */
  retry(
    effectId: string,
    authority: AuthorityInput,
    options?: RetryOptions,
  ): Promise<OpenedExecution>;
  /** A human settles an AMBIGUOUS execution (cites the decision). */
  settleManually(effectId: string, decision: ManualSettlement): Promise<void>;
  /**
   * Lists one adapter's destination effects in a window (destination time; default: since the
   * previous run's high-water mark) and records ORPHANED findings for effects no record
   * explains after ≥ 2 runs and the grace period. Never creates records.
   */
  sweep(adapterId: string, window?: SweepWindow): Promise<SweepReport>;
  /**
   * Resolves a finding: ACCEPTED_AS_IS, ESCALATED_HUMAN, COMPENSATED (evidence
   * `compensating_effect_id`) or REDISPATCHED (LOST only; evidence `fresh_authority_ref`,
   * `stamped_at`). A human resolution needs `evidence.note`.
   */
  resolve(
    findingId: number,
    action: ResolutionAction,
    evidence: ResolveEvidence,
    actor?: ResolveActor,
  ): Promise<ResolveOutcome>;
  /** Findings across the ledger, filtered by class, current status, effect. */
  findings(filter?: FindingFilter): Promise<FindingState[]>;
  /** One background pass (reconcile, grants, resolutions, audits, optional sweep); see runWorker. */
  cycle(options: CycleOptions): Promise<CycleReport>;
  /** Health gauges of the ledger (open and ambiguous executions, oldest open age, open findings). */
  gauges(): Promise<LedgerGauges>;
  /** A human re-dispatches a LOST effect: fresh authority, fresh ABSENT evidence, new step. */
  redispatchLost(
    findingId: number,
    authority: AuthorityInput,
    note: string,
  ): Promise<DispatchOutcome>;
  readonly operator: OperatorControls;
  /** Releases the worker lease and closes what `openIrrevon` opened. */
  close(): Promise<void>;
}

function defaultWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * Opens the engine: connects (and for embedded ledgers migrates) the database, validates
 * every adapter declaration, and registers this process's worker lease. Does not run
 * recovery by itself: call `recover()` before dispatching after a restart.
 */
export async function openIrrevon(options: OpenIrrevonOptions): Promise<Irrevon> {
  const crash = options.crashPoints ?? crashPointsFromEnv();
  const config = resolveEngineConfig(options.config);
  const adapters = buildAdapterRegistry(options.adapters);
  const opened = await openLedgerDatabase(options.database);
  const events = options.events ?? discardEvents;
  const workerId = options.workerId ?? defaultWorkerId();
  let lease;
  try {
    lease = await startLeaseKeeper(opened.db, {
      workerId,
      ttlMs: config.leaseTtlMs,
      onError: (e) =>
        events({
          event_name: "lease_error",
          severity: "warn",
          ts: new Date().toISOString(),
          error: String(e),
        }),
    });
  } catch (e) {
    await opened.close();
    throw e;
  }
  // The hot path's largest statement, planned once before the first claim needs it.
  await prepareClaimInputs(opened.db).catch(() => undefined);
  const ctx: EngineContext = {
    db: opened.db,
    adapters,
    config,
    clock: options.clock ?? systemClock,
    crash,
    lease,
    events,
  };
  const db = opened.db;

  /**
   * A stamp further ahead of the database clock (the clock the gate's freshness check uses)
   * than `maxClockSkewMs` would never expire: refused wherever a stamp is accepted.
   */
  async function refuseFutureStamp(
    stampedAt: unknown,
    code: "contract_invalid" | "resolution_invalid",
  ): Promise<void> {
    if (typeof stampedAt !== "string") return; // absent or malformed: the caller's own check names it
    const clock = { nowMs: await databaseNowMs(db), maxClockSkewMs: config.maxClockSkewMs };
    checkAuthorityStamp(stampedAt, clock, code);
  }

  async function afterCommit(effectId: string, lifecycle: LifecycleState): Promise<void> {
    if (lifecycle === "SETTLED_COMMITTED") await closeResolutionsAfterCommit(db, effectId);
  }

  const irrevon: Irrevon = {
    workerId,
    db,
    async register(contract) {
      const intent = validateIntentContract(contract);
      const entry = adapters.require(intent.adapterId);
      // Before anything is written: a payload the adapter refuses never becomes a record.
      validatePayloadFor(
        entry.adapter,
        intent.adapterId,
        intent.effectType,
        revealForAdapter(intent.parameters),
      );
      // One statement (stamp check included); an explicit transaction only when crash hooks
      // are armed, so the persist.pre_commit seam sits between the writes and COMMIT.
      const result = await registerIntent(db, intent, entry.declarationDigest, {
        maxClockSkewMs: config.maxClockSkewMs,
        ...(crash.armed ? { beforeCommit: () => crash.hit("persist.pre_commit") } : {}),
      });
      await crash.hit("persist.post_commit");
      emit(ctx, "intent_registered", "info", {
        effect_id: result.effectId,
        replayed: result.replayed,
        lifecycle: result.lifecycle,
      });
      return result;
    },
    run: (request) =>
      runEffect(
        ctx,
        {
          async registerThenDispatch(contract) {
            const run = await registerAndMaybeDispatch(ctx, contract, {}, "return");
            if (run.closesResolutions)
              await closeResolutionsAfterCommit(db, run.registration.effectId);
            return run;
          },
          dispatch: (effectId) => irrevon.dispatch(effectId),
          reconcile: (effectId) => irrevon.reconcile(effectId),
          retry: (effectId, authority, options) => irrevon.retry(effectId, authority, options),
        },
        request,
      ),
    async dispatch(effectId, dispatchOptions) {
      const run = await runDispatch(ctx, effectId, dispatchOptions);
      // Only when the receipt saw a finding waiting on this commit; else the worker's cycle.
      if (run.closesResolutions) await closeResolutionsAfterCommit(db, effectId);
      return run.outcome;
    },
    async registerAndDispatch(contract, dispatchOptions) {
      const run = await registerAndDispatch(ctx, contract, dispatchOptions);
      if (run.closesResolutions)
        await closeResolutionsAfterCommit(db, run.outcome.registration.effectId);
      return run.outcome;
    },
    async reconcile(effectId) {
      const outcome = await reconcileEffect(ctx, effectId, "online");
      if (outcome.status === "committed") await afterCommit(effectId, "SETTLED_COMMITTED");
      return outcome;
    },
    recover: () => runRecovery(ctx),
    audit: (effectId) => auditSettledEffect(ctx, effectId),
    async status(effectId) {
      await requireRecord(db, effectId);
      const latest = await latestExecution(db, effectId);
      const findings = await listFindings(db, effectId);
      const last = findings[findings.length - 1];
      return {
        effectId,
        lifecycle: latest?.frontier ?? "INTENDED",
        operationId: latest?.operationId ?? `${effectId}:0`,
        step: latest?.step ?? 0,
        classification: last?.classification ?? "UNRECONCILED",
        resolution: last?.status ?? null,
      };
    },
    inspect: (effectId) => inspectEffect(db, effectId),
    async retry(effectId, authority, retryOptions = {}) {
      rejectAdvisory(retryOptions);
      await refuseFutureStamp(authority?.stampedAt, "resolution_invalid");
      const parameters = retryOptions.parameters;
      if (parameters !== undefined) {
        if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
          throw new IrrevonError(ErrorCode.resolution_invalid, "parameters must be a JSON object", {
            details: { field: "parameters" },
          });
        // A bad payload is refused before anything is written (as for a dispatch).
        const record = await requireRecord(db, effectId);
        const { adapter } = adapters.require(record.adapterId);
        try {
          adapter.validatePayload(record.effectType, parameters);
        } catch (e) {
          throw new IrrevonError(ErrorCode.payload_invalid, "the adapter rejected the variant", {
            details: { adapter_id: record.adapterId, effect_type: record.effectType },
            cause: e,
          });
        }
      }
      return openRetryExecution(db, effectId, authority, {
        ...(retryOptions.reason === undefined ? {} : { reason: retryOptions.reason }),
        ...(parameters === undefined
          ? {}
          : { variant: { parameters, parametersDigest: canonicalDigest(parameters) } }),
      });
    },
    async settleManually(effectId, decision) {
      rejectAdvisory(decision);
      if (
        typeof decision.decidedBy !== "string" ||
        decision.decidedBy === "" ||
        typeof decision.note !== "string" ||
        decision.note === ""
      ) {
        throw new IrrevonError(
          ErrorCode.resolution_invalid,
          "a human settlement names who decided and why",
          { details: { field: "decidedBy/note" } },
        );
      }
      checkCallerText(decision.decidedBy, "decidedBy", ErrorCode.resolution_invalid, {
        max: DECIDED_BY_MAX_CHARS,
      });
      checkCallerText(decision.note, "note", ErrorCode.resolution_invalid);
      const latest = await latestExecution(db, effectId);
      if (latest?.frontier !== "AMBIGUOUS") {
        throw new IrrevonError(
          ErrorCode.illegal_state,
          "only an AMBIGUOUS execution can be settled by hand",
          { details: { effect_id: effectId, frontier: latest?.frontier ?? null } },
        );
      }
      await settleAmbiguous(db, {
        executionId: latest.executionId,
        to: decision.committed ? "SETTLED_COMMITTED" : "SETTLED_FAILED",
        cause: decision.committed ? "reconciled_present" : "reconciled_absent",
        actor: "human",
        evidence: { human: { decided_by: decision.decidedBy, note: decision.note } },
      });
    },
    async redispatchLost(findingId, authority, note) {
      const outcome = await resolveFindingAction(ctx, findingId, "REDISPATCHED", {
        note,
        fresh_authority_ref: authority.authorityRef,
        stamped_at: authority.stampedAt,
      });
      if (outcome.redispatch === undefined)
        throw new IrrevonError(ErrorCode.internal, "a re-dispatch resolution did not dispatch", {
          details: { finding_id: findingId },
        });
      return outcome.redispatch.dispatch;
    },
    sweep: (adapterId, window) => sweepAdapter(ctx, adapterId, window),
    async resolve(findingId, action, evidence, actor) {
      await refuseFutureStamp(evidence?.stamped_at, "resolution_invalid");
      // A re-dispatch without a stamp is stamped now by the ledger's clock, the one the gate's
      // expiry and the future-stamp check read (not this host's).
      const stamped =
        action === "REDISPATCHED" &&
        typeof evidence === "object" &&
        evidence !== null &&
        evidence.stamped_at === undefined
          ? { ...evidence, stamped_at: new Date(await databaseNowMs(db)).toISOString() }
          : evidence;
      return resolveFindingAction(ctx, findingId, action, stamped, actor);
    },
    findings: (filter) => listFindingsFiltered(db, filter),
    cycle: (cycleOptions) => runCycle(ctx, cycleOptions),
    gauges: () => readLedgerGauges(db),
    operator: {
      addDenyEntry: (input) => addDenyEntry(db, input),
      liftDenyEntry: (denyId) => liftDenyEntry(db, denyId),
      cancelBranch: (branchRef, reason, cancelOptions) =>
        cancelBranch(db, branchRef, reason, cancelOptions),
      appendAuthority: async (effectId, authority) => {
        await refuseFutureStamp(authority?.stampedAt, "contract_invalid");
        return appendAuthority(db, effectId, authority);
      },
    },
    async close() {
      await lease.release();
      await opened.close();
    },
  };
  return irrevon;
}

/** Runs the adapter's payload check; anything it throws becomes payload_invalid naming the adapter. */
function validatePayloadFor(
  adapter: Adapter,
  adapterId: string,
  effectType: string,
  payload: Readonly<Record<string, unknown>>,
): void {
  try {
    adapter.validatePayload(effectType, payload);
  } catch (e) {
    if (e instanceof IrrevonError && e.code === ErrorCode.payload_invalid) throw e;
    throw new IrrevonError(ErrorCode.payload_invalid, "the adapter rejected the payload", {
      details: { adapter_id: adapterId, effect_type: effectType, field: "parameters" },
      cause: e,
    });
  }
}
