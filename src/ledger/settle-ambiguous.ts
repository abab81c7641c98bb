/**
 * ledger/settle-ambiguous — the exit from AMBIGUOUS (I6): the transition (citing probe ids,
 * a receipt id or a human decision) and, optionally, the finding it implies and an
 * escalation of that finding, all in ONE transaction, so a crash can never leave a settled
 * execution without its classification. Imports: core, db, ledger.
 */
import { rejectAdvisory } from "../core/advisory-guard.js";
import type {
  Actor,
  Cause,
  Classification,
  FindingCreator,
  LifecycleState,
} from "../core/state-tables.js";
import type { Db } from "../db/db.js";
import { attachFindingIn } from "./attach-finding.js";
import { resolveIn } from "./resolve-finding.js";
import { jsonParam, toId } from "./sql-util.js";

/** A settle of one AMBIGUOUS execution, with the finding it implies. */
export interface SettleInput {
  readonly executionId: number;
  readonly to: Extract<LifecycleState, "SETTLED_COMMITTED" | "SETTLED_FAILED">;
  readonly cause: Cause;
  readonly actor: Actor;
  /** Must cite probe_ids, receipt_id, human or note (checked again in SQL). */
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly finding?: {
    readonly effectId: string;
    readonly adapterId: string;
    readonly destinationRef: string | null;
    readonly classification: Classification;
    readonly excessEffectCount?: number;
    readonly createdBy: FindingCreator;
    /** Defaults to the settle evidence. */
    readonly evidence?: Readonly<Record<string, unknown>>;
    /** Also moves the new finding OPEN → ESCALATED_HUMAN (actor system). */
    readonly escalate?: Readonly<Record<string, unknown>>;
  };
}

/** The settle's transition and finding ids. */
export interface SettleResult {
  readonly transitionSeq: number;
  readonly findingId: number | null;
}

/** Settles one AMBIGUOUS execution. DT002 (someone settled first) surfaces as stale_state. */
export async function settleAmbiguous(db: Db, input: SettleInput): Promise<SettleResult> {
  rejectAdvisory(input.evidence);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ seq: unknown }>(
      "SELECT ledger_transition($1, 'AMBIGUOUS', $2, $3, $4, $5::jsonb) AS seq",
      [input.executionId, input.to, input.cause, input.actor, jsonParam(input.evidence)],
    );
    const transitionSeq = toId(rows[0]?.seq);
    const f = input.finding;
    if (f === undefined) return { transitionSeq, findingId: null };
    const findingId = await attachFindingIn(tx, {
      effectId: f.effectId,
      adapterId: f.adapterId,
      destinationRef: f.destinationRef,
      classification: f.classification,
      ...(f.excessEffectCount === undefined ? {} : { excessEffectCount: f.excessEffectCount }),
      evidence: {
        execution_id: input.executionId,
        settle_transition_seq: transitionSeq,
        ...(f.evidence ?? input.evidence),
      },
      createdBy: f.createdBy,
    });
    if (f.escalate !== undefined) {
      await resolveIn(tx, findingId, {
        from: "OPEN",
        to: "ESCALATED_HUMAN",
        actor: "system",
        evidence: f.escalate,
      });
    }
    return { transitionSeq, findingId };
  });
}
