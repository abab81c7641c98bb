/**
 * engine/recovery — adjudicate before re-dispatch (§7, D2, D8). At start and on every worker
 * cycle: close every open attempt whose owner's lease is no longer live (LOST ⇒ AMBIGUOUS,
 * evidence names the lease), then reconcile every open execution — before anything may
 * dispatch that operation again (the gate's frontier rule already refuses DISPATCHED and
 * AMBIGUOUS). Only LOST findings of effect types with a policy grant are re-dispatched
 * automatically. Re-entrant: a crash anywhere leaves work the next run finishes.
 * Crash seam: recovery.after_record. Imports: core, db, ledger, engine.
 */
import { listOpenAttempts, listOpenExecutions, recordRecoveryRun } from "../ledger/open-work.js";
import { closeIfAbandoned } from "./abandoned-attempts.js";
import { autoRedispatchLost } from "./auto-redispatch.js";
import { emit, type EngineContext } from "./context.js";
import { reconcileEffect } from "./reconciler.js";
import type { ReconcileOutcome } from "./reconcile-types.js";

/** What one recovery run did. */
export interface RecoveryReport {
  /** Effects with an open execution that were examined. */
  readonly scanned: number;
  /** Of those, settled by this run (or found settled). */
  readonly adjudicated: number;
  /** Still AMBIGUOUS (scheduled re-read, backoff, lag, escalated). */
  readonly parked: number;
  /** Open attempts whose owner is still live: left alone. */
  readonly inFlight: number;
  /** Open attempts closed as LOST because their owner's lease was gone. */
  readonly closedAttempts: number;
  /** LOST effects re-dispatched under a policy grant. */
  readonly redispatched: number;
  readonly runId: number;
  readonly outcomes: readonly ReconcileOutcome[];
}

/** Runs one recovery pass (see the file header). */
export async function runRecovery(ctx: EngineContext): Promise<RecoveryReport> {
  let closedAttempts = 0;
  for (const attempt of await listOpenAttempts(ctx.db)) {
    if (attempt.isOwnerLive) continue;
    const closed = await closeIfAbandoned(ctx, attempt);
    if (closed.closed) closedAttempts += 1;
  }

  const outcomes: ReconcileOutcome[] = [];
  const lostFindings: number[] = [];
  const seen = new Set<string>();
  let adjudicated = 0;
  let parked = 0;
  let inFlight = 0;
  for (const execution of await listOpenExecutions(ctx.db)) {
    if (seen.has(execution.effectId)) continue;
    seen.add(execution.effectId);
    const outcome = await reconcileEffect(ctx, execution.effectId, "recovery");
    outcomes.push(outcome);
    switch (outcome.status) {
      case "settled":
      case "committed":
        adjudicated += 1;
        break;
      case "failed":
        adjudicated += 1;
        if (outcome.findingId !== null && !outcome.escalated) lostFindings.push(outcome.findingId);
        break;
      case "in_flight":
        inFlight += 1;
        break;
      case "awaiting_lag":
      case "reread_scheduled":
      case "parked":
        parked += 1;
        break;
    }
    await ctx.crash.hit("recovery.after_record");
  }

  // Drained after the whole scan, so a re-dispatch never overtakes an unadjudicated record.
  let redispatched = 0;
  for (const findingId of lostFindings) {
    const result = await autoRedispatchLost(ctx, findingId);
    if (result.status === "redispatched") redispatched += 1;
  }

  const runId = await recordRecoveryRun(ctx.db, {
    scanned: seen.size,
    adjudicated,
    parked,
    queuedRedispatches: redispatched,
  });
  const report = {
    scanned: seen.size,
    adjudicated,
    parked,
    inFlight,
    closedAttempts,
    redispatched,
    runId,
    outcomes,
  };
  emit(ctx, "recovery_completed", "info", {
    scanned: seen.size,
    adjudicated,
    parked,
    in_flight: inFlight,
    closed_attempts: closedAttempts,
    redispatched,
  });
  return report;
}
