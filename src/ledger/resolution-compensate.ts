/**
 * ledger/resolution-compensate — a COMPENSATED resolution in ONE transaction (§2.3, §7): the
 * compensating effect must be a registered record whose stable_ids carry
 * `compensates_finding_id = "<finding id>"` (so the compensation is itself an identified,
 * deduplicated, gated effect), the finding moves to COMPENSATED citing it, and if that effect
 * has already settled COMMITTED the finding is CLOSED (actor system) in the same transaction.
 * Otherwise it closes later, when the compensating effect commits (resolution-close).
 * Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { ResolutionActor, ResolutionStatus } from "../core/state-tables.js";
import type { Db } from "../db/db.js";
import { findRecord, latestExecution } from "./read-records.js";
import { lockCompensation } from "./resolution-close.js";
import { readFinding, resolveIn } from "./resolve-finding.js";

/** The stable-id name that ties a compensating effect to the finding it compensates. */
export const COMPENSATES_FINDING_ID = "compensates_finding_id";

/** What a compensation wrote. */
export interface CompensationResult {
  readonly resolutionSeqs: readonly number[];
  /** True when the compensating effect had already committed (finding CLOSED now). */
  readonly closed: boolean;
  readonly compensatingOperationId: string | null;
}

/** Moves `findingId` from `from` to COMPENSATED (and to CLOSED if the compensation committed). */
export async function compensateFinding(
  db: Db,
  input: {
    readonly findingId: number;
    readonly from: ResolutionStatus;
    readonly actor: ResolutionActor;
    readonly compensatingEffectId: string;
    readonly evidence: Readonly<Record<string, unknown>>;
  },
): Promise<CompensationResult> {
  const { findingId, compensatingEffectId } = input;
  return db.transaction(async (tx) => {
    await lockCompensation(tx, compensatingEffectId);
    const finding = await readFinding(tx, findingId);
    const record = await findRecord(tx, compensatingEffectId);
    if (record === null) {
      throw new IrrevonError(
        ErrorCode.resolution_invalid,
        "the compensating effect is not registered; register it first",
        { details: { finding_id: findingId, compensating_effect_id: compensatingEffectId } },
      );
    }
    if (
      finding.effectId === compensatingEffectId ||
      record.stableIds[COMPENSATES_FINDING_ID] !== String(findingId)
    ) {
      throw new IrrevonError(
        ErrorCode.resolution_invalid,
        `the compensating effect's stable_ids must include ${COMPENSATES_FINDING_ID} = "${findingId}"`,
        {
          details: {
            finding_id: findingId,
            compensating_effect_id: compensatingEffectId,
            field: `stable_ids.${COMPENSATES_FINDING_ID}`,
          },
        },
      );
    }
    const seqs = [
      await resolveIn(tx, findingId, {
        from: input.from,
        to: "COMPENSATED",
        actor: input.actor,
        evidence: { ...input.evidence, compensating_effect_id: compensatingEffectId },
      }),
    ];
    const latest = await latestExecution(tx, compensatingEffectId);
    if (latest?.frontier !== "SETTLED_COMMITTED") {
      return { resolutionSeqs: seqs, closed: false, compensatingOperationId: null };
    }
    seqs.push(
      await resolveIn(tx, findingId, {
        from: "COMPENSATED",
        to: "CLOSED",
        actor: "system",
        evidence: {
          compensating_effect_id: compensatingEffectId,
          compensating_operation_id: latest.operationId,
          compensating_execution_id: latest.executionId,
        },
      }),
    );
    return { resolutionSeqs: seqs, closed: true, compensatingOperationId: latest.operationId };
  });
}
