/**
 * engine/late-results — keeping what an adapter answers after the engine stopped waiting for
 * it. A dispatch that outlived its deadline and the grace after its abort (call-adapter) was
 * recorded as TIMEOUT with `call_unsettled: true`; when it finally settles, its answer is
 * written as a late response (flagged when it contradicts the settlement, which queues an
 * audit). Until then the reconciler concludes nothing about the attempt. Imports: core, db,
 * ledger, engine.
 */
import { recordLateResult } from "../ledger/record-outcome.js";
import type { WorkerLease } from "../ledger/types.js";
import type { WireOutcome } from "./call-adapter.js";
import { emit, type EngineContext } from "./context.js";

/** Storage retries for a late result; the answer exists nowhere else. */
const LATE_WRITE_ATTEMPTS = 5;
const LATE_WRITE_PAUSE_MS = 500;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Records `wire.late` (if any) once it settles. Never throws; failures are events. */
export function keepLateResult(
  ctx: EngineContext,
  wire: WireOutcome,
  attempt: {
    readonly attemptId: number;
    readonly executionId: number;
    readonly effectId: string;
    readonly lease: WorkerLease;
    readonly recordedBy: "dispatcher" | "reconciler" | "recovery";
  },
): void {
  if (wire.late === undefined) return;
  void wire.late.then(async (late) => {
    for (let i = 1; ; i += 1) {
      try {
        const kept = await recordLateResult(ctx.db, {
          attemptId: attempt.attemptId,
          executionId: attempt.executionId,
          transportOutcome: late.transportOutcome,
          ...(late.failureKind === undefined ? {} : { failureKind: late.failureKind }),
          ...(late.destinationRef === undefined ? {} : { destinationRef: late.destinationRef }),
          ...(late.responseDigest === undefined ? {} : { responseDigest: late.responseDigest }),
          evidence: { ...late.evidence, settled_after_deadline: true },
          recordedBy: attempt.recordedBy,
          lease: attempt.lease,
        });
        emit(ctx, "late_response", "warn", {
          effect_id: attempt.effectId,
          attempt_id: attempt.attemptId,
          transport_outcome: late.transportOutcome,
          late_id: kept.lateId,
          contradicts_settle: kept.contradictsSettle,
        });
        return;
      } catch (e) {
        if (i >= LATE_WRITE_ATTEMPTS) {
          emit(ctx, "late_response", "error", {
            effect_id: attempt.effectId,
            attempt_id: attempt.attemptId,
            transport_outcome: late.transportOutcome,
            unrecorded: true,
            error: e instanceof Error ? e.name : typeof e,
          });
          return;
        }
        await pause(LATE_WRITE_PAUSE_MS * i);
      }
    }
  });
}
