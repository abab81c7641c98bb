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
import { callDispatch, type WireOutcome } from "./call-adapter.js";

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
