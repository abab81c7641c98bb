/**
 * engine/abandoned-attempts — closing an open attempt whose owner is gone (D2, D8). An open
 * attempt is abandoned ONLY when the lease it was claimed under is no longer live (expired,
 * released, or superseded by a re-registration of the same worker id); an unowned attempt
 * (written outside the engine) counts as abandoned. It is closed as LOST — AMBIGUOUS, the
 * wire call may or may not have happened — with evidence naming the lease, and is then
 * reconciled before anything else may dispatch that operation. Never re-dispatch on belief.
 * Imports: core, db, ledger, engine.
 */
import { insertReceipt, recordOutcome } from "../ledger/record-outcome.js";
import type { OpenAttempt } from "../ledger/open-work.js";
import { leaseCoverEnd, leaseVerdict } from "../ledger/worker-leases.js";
import { sqlStateOf, withSavepoint } from "../ledger/sql-util.js";
import { emit, type EngineContext } from "./context.js";
import { engineTimeOf } from "./engine-time.js";

/** Result of trying to close one open attempt. */
export type CloseResult =
  | { readonly closed: true }
  | { readonly closed: false; readonly reason: "owner_live" | "already_closed" };

/** Closes `attempt` if its owner's lease is not live. Safe to race: the receipt is unique. */
export async function closeIfAbandoned(
  ctx: EngineContext,
  attempt: OpenAttempt,
): Promise<CloseResult> {
  // Lease first: if this process forfeited the lease the attempt was claimed under (its
  // receipt could not be recorded), this registers the new token that supersedes it, so the
  // verdict below already sees the old lease as not live.
  const lease = await ctx.lease.ensure(ctx.config.probeDeadlineMs);
  const verdict =
    attempt.ownerWorkerId === null || attempt.fencingToken === null
      ? { isLive: false, state: "unowned", expiresAt: null, latestToken: null }
      : await leaseVerdict(ctx.db, attempt.ownerWorkerId, attempt.fencingToken);
  if (verdict.isLive) return { closed: false, reason: "owner_live" };
  // A lease that is not live never becomes live again (renewal refuses it), so this verdict
  // cannot go stale between here and the write.
  // A lease released or superseded before it ran out (a close() with a call in flight, a
  // process gone, a forfeited lease) may still cover a call its holder sent: the destination
  // can commit that call until the lease's cover ends, so the absence rule counts from there
  // (the receipt's recorded_at would be too early: a false LOST, then a duplicate).
  const coverEnd =
    attempt.ownerWorkerId === null || attempt.fencingToken === null
      ? null
      : await leaseCoverEnd(ctx.db, attempt.ownerWorkerId, attempt.fencingToken);
  const evidence = {
    recovery: "abandoned open attempt",
    send_state: "unknown",
    owner_worker_id: attempt.ownerWorkerId,
    owner_fencing_token: attempt.fencingToken,
    lease_state: verdict.state,
    lease_expires_at: verdict.expiresAt,
    claimed_at: attempt.claimedAt,
    ...(coverEnd === null
      ? {}
      : {
          lease_cover_end: coverEnd,
          commit_horizon_at: new Date(engineTimeOf(ctx, Date.parse(coverEnd))).toISOString(),
        }),
  };
  const input = {
    attemptId: attempt.attemptId,
    executionId: attempt.executionId,
    transportOutcome: "LOST" as const,
    evidence,
    recordedBy: "recovery" as const,
    lease,
  };
  if (attempt.kind === "c1_replay_probe") {
    // A replay probe has no transition of its own: the execution is already AMBIGUOUS.
    const done = await ctx.db.transaction((tx) =>
      withSavepoint(tx, () => insertReceipt(tx, input)),
    );
    if (!done.ok) {
      if (sqlStateOf(done.error) === "23505") return { closed: false, reason: "already_closed" };
      throw done.error;
    }
  } else {
    const outcome = await recordOutcome(ctx.db, input);
    if (outcome.status === "late") return { closed: false, reason: "already_closed" };
  }
  emit(ctx, "attempt_abandoned", "warn", {
    effect_id: attempt.effectId,
    attempt_id: attempt.attemptId,
    lease_state: verdict.state,
  });
  return { closed: true };
}
