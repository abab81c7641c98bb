/**
 * engine/gated-send — the only way the engine makes a request that can create an effect at a
 * destination. It takes a `GateAllowedClaim`, which only a gated claim hands out (ledger
 * claim-dispatch for a first send, retry or re-dispatch; claim-replay-probe for a C1 replay),
 * after an ALLOW decision and the attempt citing it were committed. A source scan
 * (test/unit/gate-send-sites.test.ts) checks that nothing else calls the adapter's dispatch.
 * Imports: core, ledger, adapters, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { GateAllowedClaim } from "../ledger/gate-decide.js";
import type { WorkerLease } from "../ledger/types.js";
import { callDispatch, type WireOutcome } from "./call-adapter.js";
import type { EngineContext } from "./context.js";

/**
 * Sends `order` under `claim`: one guarded adapter call. The order's operation id and key
 * must be the claimed attempt's; anything else is a broken invariant, refused before I/O.
 */
export async function sendGated(
  claim: GateAllowedClaim,
  ...call: Parameters<typeof callDispatch>
): Promise<WireOutcome> {
  const order = call[1];
  if (order.operationId !== claim.operationId || order.idempotencyKey !== claim.operationId) {
    throw new IrrevonError(ErrorCode.internal, "the order is not the one the gate allowed", {
      details: { attempt_id: claim.attemptId, decision_id: claim.decisionId },
    });
  }
  return callDispatch(...call);
}

/**
 * The outcome of a claimed call that must NOT be sent: the lease it was claimed under no
 * longer covers its deadline (too little of it left, or superseded since). Recovery dates the
 * absence of an attempt whose lease was released or superseded from the end of that lease's
 * cover, so a call sent past it could commit after the absence clock started. The attempt is
 * closed as LOST, `send_state: not_sent`, and reconciliation proves the absence. Null: send.
 */
export function uncoveredCall(
  ctx: Pick<EngineContext, "lease">,
  heldAs: WorkerLease,
  deadlineMs: number,
): WireOutcome | null {
  const heldMs = ctx.lease.remainingMs(heldAs);
  if (heldMs > deadlineMs) return null;
  const superseded = ctx.lease.remainingMs() > 0 && heldMs === 0;
  return {
    transportOutcome: "LOST",
    evidence: {
      send_state: "not_sent",
      engine: superseded ? "lease_superseded" : "lease_margin_exhausted",
    },
  };
}
