/**
 * engine/reconcile-absence — the absence rule's clock. An ABSENT read proves nothing about an
 * attempt the destination could still commit, or could have committed less than the declared
 * read lag ago. So absence counts only from
 *
 *     absence_clock_from = max over the execution's attempts of that attempt's commit horizon
 *     counts_from        = absence_clock_from + declared status lag (PT0S and undeclared ⇒ 0)
 *
 * An attempt's commit horizon is the latest instant the destination could still commit it:
 *   - `commit_horizon_at` from its receipt evidence (when present it is used as is), stamped by
 *     the dispatcher (or the replay probe) when the call ended: max(end of the wire call, start of the call + its deadline) —
 *     a dropped connection or a 5xx does not end the destination's work; stamped by recovery
 *     when it closes an abandoned attempt whose owner's lease was released or superseded before
 *     it ran out: the end of that lease's cover (a call is sent only while the lease covers
 *     its deadline, ledger/worker-leases `leaseCoverEnd`);
 *   - for a receipt without it (recovery closed an abandoned attempt whose lease had run out;
 *     the database could not be read when the call ended; an older ledger): receipt recorded_at
 *     + deadline_ms when the evidence has it (the receipt is written after the call ended, the
 *     call started before it). Recovery writes its own only after the lease ran out, and the
 *     lease covered the call;
 *   - a late response (the call settled after the engine stopped waiting) moves it to the
 *     late response's recorded_at.
 * A receipt marked `call_unsettled` (the call outlived its deadline and the grace after the
 * abort) has NO horizon while the call may still run: while this process still tracks the call
 * or the receipt writer's lease is live, the execution is in flight and nothing is probed. Once
 * that lease is gone, the horizon is the lease's expiry.
 * Every input is in the ledger, so any process applies the same rule later. Imports: core, db,
 * ledger, adapters, engine.
 */
import type { AttemptHorizon } from "../ledger/commit-horizons.js";
import { judgeLease } from "../ledger/worker-leases.js";
import { hasUnsettledCall } from "./call-adapter.js";
import type { ReconcileStep } from "./reconcile-types.js";

/** Where the absence clock of an execution stands. */
export type AbsenceClock =
  | { readonly kind: "unsettled"; readonly attemptId: number }
  | { readonly kind: "clock"; readonly fromMs: number; readonly attemptId: number | null };

function parsed(iso: string | null): number {
  if (iso === null) return Number.NEGATIVE_INFINITY;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY;
}

/** The horizon of one attempt with a receipt, or "unsettled". */
function horizonOf(step: ReconcileStep, a: AttemptHorizon): number | "unsettled" {
  // The stamped horizon is the engine's own measure (engine time) and wins when present.
  // Unstamped: the receipt was written after the call ended, and the call started after its
  // claim — but maybe long after (`claimed_at` is its transaction's start), so the deadline is
  // counted from the receipt, never from the claim.
  const stamped =
    a.commitHorizonAt === null
      ? Math.max(parsed(a.receiptRecordedAt), parsed(a.claimedAt)) + (a.deadlineMs ?? 0)
      : parsed(a.commitHorizonAt);
  let horizon = Math.max(stamped, parsed(a.lastLateAt));
  if (hasUnsettledCall(step.entry.adapter, a.operationId)) return "unsettled";
  if (a.callUnsettled && a.lastLateAt === null) {
    if (a.receiptWorkerId === null || a.receiptFencingToken === null) return horizon;
    const verdict = judgeLease(a.receiptLease, a.receiptFencingToken);
    if (verdict.isLive) return "unsettled";
    horizon = Math.max(horizon, parsed(verdict.expiresAt));
  }
  return horizon;
}

/**
 * The execution's absence clock (see the file header) from its attempts' horizon facts, read
 * by the caller with the database clock in one statement (ledger/reconcile-inputs).
 */
export function absenceClock(step: ReconcileStep, horizons: readonly AttemptHorizon[]): AbsenceClock {
  let fromMs = Number.NEGATIVE_INFINITY;
  let attemptId: number | null = null;
  for (const a of horizons) {
    if (a.receiptRecordedAt === null) return { kind: "unsettled", attemptId: a.attemptId };
    const h = horizonOf(step, a);
    if (h === "unsettled") return { kind: "unsettled", attemptId: a.attemptId };
    if (h > fromMs) {
      fromMs = h;
      attemptId = a.attemptId;
    }
  }
  return { kind: "clock", fromMs: Number.isFinite(fromMs) ? fromMs : 0, attemptId };
}
