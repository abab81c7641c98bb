/**
 * engine/worker-cycle — one background pass of the worker (§8, D2, D3, D8, D9):
 *   0. on the embedded database, reclaim the rows the derived indexes of open work dropped
 *      (db.maintain: VACUUM, which PGlite never runs on its own);
 *   1. reconcile every open execution online, one step each (due re-reads are taken, backoff
 *      and lag respected; nothing sleeps). An attempt whose owner's lease expired is closed as
 *      LOST first (recovery of abandoned attempts, D8); a live owner's is left in flight;
 *   2. re-dispatch LOST effects covered by a policy grant (D8; default: none);
 *   3. carry out REDISPATCHED decisions whose dispatch never ran; close COMPENSATED and
 *      REDISPATCHED findings whose carrying-out effect committed;
 *   4. audit effects a contradicting late response flagged, and a bounded number of recently
 *      settled effects (`auditPerCycle`);
 *   5. sweep every list-queryable adapter when asked (the worker decides when it is due).
 * A failure on one effect or adapter is reported through `onError` and the pass goes on; many
 * workers may run the same pass at once on one Postgres (claims, row locks, unique keys and
 * compare-and-set transitions decide, never a single-writer lock). Imports: core, db, ledger,
 * adapters, engine.
 */
import { ErrorCode, isIrrevonError } from "../core/errors.js";
import { listAuditDue, listOpenExecutions, listOpenLostFindings } from "../ledger/open-work.js";
import { listAuditCandidates } from "../ledger/worker-gauges.js";
import { auditSettledEffect } from "./audit-settled.js";
import { autoRedispatchLost } from "./auto-redispatch.js";
import type { EngineContext } from "./context.js";
import { reconcileEffect } from "./reconciler.js";
import {
  closeResolutionsAfterCommit,
  closeSettledResolutions,
  resumePendingRedispatches,
} from "./resolution-hooks.js";
import { sweepAdapter, type SweepReport } from "./sweep.js";

/** Which step of a cycle failed. */
export type CycleStep =
  | "maintain"
  | "reconcile"
  | "redispatch"
  | "resume"
  | "close"
  | "audit"
  | "sweep";

/** A failure inside a cycle (reported, not thrown). */
export interface CycleError {
  readonly step: CycleStep;
  readonly effectId?: string;
  readonly adapterId?: string;
  readonly code: string;
  readonly message: string;
}

/** What one cycle did. */
export interface CycleReport {
  /** Effects with an open execution that were reconciled. */
  readonly reconciled: number;
  /** Of those, settled now. */
  readonly adjudicated: number;
  /** Outcomes that handed an execution or finding to a human. */
  readonly escalated: number;
  readonly inFlight: number;
  readonly parked: number;
  readonly redispatched: number;
  readonly resumed: number;
  readonly closedFindings: number;
  readonly audited: number;
  readonly sweeps: readonly SweepReport[];
  readonly errors: readonly CycleError[];
}

/** Options of {@link runCycle}. */
export interface CycleOptions {
  /** Sweep the list-queryable adapters in this cycle. */
  readonly sweep: boolean;
  /** Called for each failure as it happens (the worker logs it). */
  readonly onError?: (error: CycleError) => void;
}

function describe(step: CycleStep, e: unknown, where: Partial<CycleError>): CycleError {
  return {
    step,
    ...where,
    code: isIrrevonError(e) ? e.code : "internal",
    message: e instanceof Error ? e.message : String(e),
  };
}

/** Runs one cycle (see the file header). */
export async function runCycle(ctx: EngineContext, options: CycleOptions): Promise<CycleReport> {
  const errors: CycleError[] = [];
  const fail = (error: CycleError): void => {
    errors.push(error);
    options.onError?.(error);
  };
  let reconciled = 0;
  let adjudicated = 0;
  let escalated = 0;
  let inFlight = 0;
  let parked = 0;
  // The embedded database has no autovacuum: the rows the derived indexes of open work dropped
  // are reclaimed here (a no-op on a server).
  try {
    await ctx.db.maintain?.();
  } catch (e) {
    fail(describe("maintain", e, {}));
  }
  const seen = new Set<string>();
  for (const execution of await listOpenExecutions(ctx.db)) {
    if (seen.has(execution.effectId)) continue;
    seen.add(execution.effectId);
    try {
      const outcome = await reconcileEffect(ctx, execution.effectId, "online");
      reconciled += 1;
      switch (outcome.status) {
        case "committed":
          adjudicated += 1;
          await closeResolutionsAfterCommit(ctx.db, execution.effectId);
          break;
        case "failed":
          adjudicated += 1;
          if (outcome.escalated) escalated += 1;
          break;
        case "settled":
          break;
        case "in_flight":
          inFlight += 1;
          break;
        case "parked":
          parked += 1;
          if (outcome.escalated) escalated += 1;
          break;
        case "awaiting_lag":
        case "reread_scheduled":
          parked += 1;
          break;
      }
    } catch (e) {
      fail(describe("reconcile", e, { effectId: execution.effectId }));
    }
  }

  let redispatched = 0;
  const granted = Object.keys(ctx.config.autoRedispatch);
  for (const findingId of await listOpenLostFindings(ctx.db, granted)) {
    try {
      if ((await autoRedispatchLost(ctx, findingId)).status === "redispatched") redispatched += 1;
    } catch (e) {
      // stale_state: another process resolved this finding first; it is done, not failed.
      if (!isIrrevonError(e) || e.code !== ErrorCode.stale_state)
        fail(describe("redispatch", e, {}));
    }
  }

  let resumed = 0;
  try {
    resumed = (await resumePendingRedispatches(ctx)).length;
  } catch (e) {
    fail(describe("resume", e, {}));
  }
  let closedFindings = 0;
  try {
    closedFindings = (await closeSettledResolutions(ctx)).length;
  } catch (e) {
    fail(describe("close", e, {}));
  }

  let audited = 0;
  // Audits a contradicting late response queued come first (they are rare); then a bounded
  // number of recently settled effects, each once, no earlier than its declared lag allows.
  const queue = new Set(await listAuditDue(ctx.db));
  const queued = new Set(queue);
  let room = ctx.config.auditPerCycle;
  for (const entry of ctx.adapters.list()) {
    if (room <= 0) break;
    if (entry.declaration.tier === "C3" || !entry.declaration.queryable.supported) continue;
    const picked = await listAuditCandidates(ctx.db, {
      adapterIds: [entry.adapter.adapterId],
      lookbackSeconds: ctx.config.auditLookbackSeconds,
      minAgeSeconds: entry.statusLagSeconds ?? 0,
      limit: room,
    });
    for (const effectId of picked) {
      if (queue.has(effectId)) continue;
      queue.add(effectId);
      room -= 1;
    }
  }
  for (const effectId of queue) {
    try {
      await auditSettledEffect(ctx, effectId);
      audited += 1;
    } catch (e) {
      // A queued audit of a destination that cannot be asked stays flagged, as in recovery.
      const notAuditable =
        queued.has(effectId) &&
        isIrrevonError(e) &&
        (e.code === ErrorCode.capability_unsupported || e.code === ErrorCode.illegal_state);
      if (!notAuditable) fail(describe("audit", e, { effectId }));
    }
  }

  const sweeps: SweepReport[] = [];
  if (options.sweep) {
    const listable = ctx.adapters
      .list()
      .filter((a) => a.declaration.list_queryable)
      .map((a) => a.adapter.adapterId)
      .sort();
    for (const adapterId of listable) {
      try {
        sweeps.push(await sweepAdapter(ctx, adapterId));
      } catch (e) {
        fail(describe("sweep", e, { adapterId }));
      }
    }
  }
  return {
    reconciled,
    adjudicated,
    escalated,
    inFlight,
    parked,
    redispatched,
    resumed,
    closedFindings,
    audited,
    sweeps,
    errors,
  };
}
