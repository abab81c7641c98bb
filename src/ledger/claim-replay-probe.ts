/**
 * ledger/claim-replay-probe — the C1 idempotent replay probe (§3.8, §6): re-send the SAME
 * key with the execution's payload, inside the destination's declared idempotency window, so
 * the destination answers with the first outcome. A replay is a request that CAN create an
 * effect (the first create may never have arrived; a key the destination forgot is a new
 * create), so it passes the commit gate like a first send: the claim takes the slot and record
 * locks, needs the execution AMBIGUOUS, the slot free and the attempt cap not reached, then
 * the gate decides (variant c1_replay_probe; the replayed execution does not block itself)
 * and the decision is recorded, ALLOW or DENY. Only on ALLOW is an attempt of kind
 * c1_replay_probe written, citing the decision. The outcome and its settle (replay_ok ⇒
 * COMMITTED + CONFIRMED_UNIQUE; TERMINAL FAILED ⇒ replay_failed) are one transaction (the
 * reference split them, GAP 7). Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import type { Actor, GateCheck, LifecycleState } from "../core/state-tables.js";
import type { Db } from "../db/db.js";
import { attachFindingIn } from "./attach-finding.js";
import {
  insertAttempt,
  lockSlotAndRecord,
  openAttemptInSlot,
  readExecutionParameters,
} from "./claim-attempt.js";
import { decideGate, type GateAllowedClaim } from "./gate-decide.js";
import { findExecution, listExecutions, requireRecord } from "./read-records.js";
import { insertLateResponse, insertReceipt, type OutcomeInput } from "./record-outcome.js";
import { jsonParam, relabelLeaseLost, sqlStateOf, toId, withSavepoint } from "./sql-util.js";
import type { StoredRecord, WorkerLease } from "./types.js";

/** Outcome of claiming a C1 replay probe. */
export type ReplayClaim =
  | {
      readonly status: "claimed";
      /** What the replay is sent under (engine/gated-send accepts nothing else). */
      readonly allowed: GateAllowedClaim;
      readonly record: StoredRecord;
      readonly attemptId: number;
      readonly attemptNo: number;
      readonly operationId: string;
      /** The parameters of the execution's first send: a C1 destination compares them. */
      readonly parameters: Record<string, unknown>;
    }
  | {
      /** The gate denied the replay; nothing may be sent. */
      readonly status: "denied";
      readonly check: GateCheck;
      readonly cause: string;
      readonly decisionId: number;
      /** The same deny as the last recorded one: no new decision row was written. */
      readonly repeated: boolean;
    }
  | { readonly status: "not_ambiguous"; readonly frontier: LifecycleState | null }
  | { readonly status: "scope_busy"; readonly attemptId: number; readonly blockingEffectId: string }
  | { readonly status: "attempt_cap"; readonly attempts: number };

/** Claims a replay probe for an AMBIGUOUS execution, through the commit gate. */
export async function claimReplayProbe(
  db: Db,
  input: {
    readonly executionId: number;
    readonly lease: WorkerLease;
    readonly maxAttempts: number;
  },
): Promise<ReplayClaim> {
  try {
    return await db.transaction(async (tx): Promise<ReplayClaim> => {
      const execution = await findExecution(tx, input.executionId);
      if (execution === null) return { status: "not_ambiguous", frontier: null };
      const record = await requireRecord(tx, execution.effectId);
      await lockSlotAndRecord(tx, record);
      const now = await findExecution(tx, input.executionId);
      if (now?.frontier !== "AMBIGUOUS")
        return { status: "not_ambiguous", frontier: now?.frontier ?? null };
      const busy = await openAttemptInSlot(tx, record);
      if (busy !== null) return { status: "scope_busy", ...busy };
      const count = await tx.query<{ n: unknown }>(
        "SELECT count(*) AS n FROM dispatch_attempts WHERE execution_id = $1",
        [input.executionId],
      );
      const attempts = Number(count.rows[0]?.n ?? 0);
      if (attempts >= input.maxAttempts) return { status: "attempt_cap", attempts };

      const { decision, decisionId, repeated } = await decideGate(tx, {
        record,
        executions: await listExecutions(tx, record.effectId),
        execution: now,
        variant: "c1_replay_probe",
        waiveExecutionId: now.executionId,
        suppressRepeatedDeny: true,
      });
      if (decision.outcome === "DENY") {
        return {
          status: "denied",
          check: decision.denyCheck ?? "dedup",
          cause: decision.cause ?? "denied",
          decisionId,
          repeated,
        };
      }
      const sent = await readExecutionParameters(tx, record.effectId, now.step);
      const allowed = await insertAttempt(tx, {
        record,
        executionId: input.executionId,
        operationId: now.operationId,
        kind: "c1_replay_probe",
        requestDigest: canonicalDigest({
          effect_type: record.effectType,
          payload_digest: sent.parametersDigest,
          replay_probe: true,
        }),
        decisionId,
        lease: input.lease,
      });
      return {
        status: "claimed",
        allowed,
        record,
        attemptId: allowed.attemptId,
        attemptNo: allowed.attemptNo,
        operationId: now.operationId,
        parameters: sent.parameters,
      };
    });
  } catch (e) {
    throw relabelLeaseLost(e);
  }
}

/** Outcome of recording a replay probe's answer. */
export type ReplayOutcomeResult =
  | {
      readonly status: "settled";
      readonly receiptId: number;
      readonly lifecycle: LifecycleState;
      readonly findingId: number | null;
    }
  | { readonly status: "unresolved"; readonly receiptId: number }
  | { readonly status: "late"; readonly lateId: number };

/** Records a replay probe's receipt and, when it is conclusive, settles — one transaction. */
export async function recordReplayOutcome(
  db: Db,
  input: OutcomeInput & {
    readonly effectId: string;
    readonly adapterId: string;
    readonly actor: Extract<Actor, "reconciler" | "recovery">;
  },
): Promise<ReplayOutcomeResult> {
  return db.transaction(async (tx): Promise<ReplayOutcomeResult> => {
    const done = await withSavepoint(tx, async (): Promise<ReplayOutcomeResult> => {
      const receiptId = await insertReceipt(tx, input);
      const conclusive =
        input.transportOutcome === "OK" ||
        (input.transportOutcome === "FAILED" && input.failureKind === "TERMINAL");
      if (!conclusive) return { status: "unresolved", receiptId };
      const to = input.transportOutcome === "OK" ? "SETTLED_COMMITTED" : "SETTLED_FAILED";
      const evidence = { receipt_id: receiptId, replay_probe: true };
      const seq = await tx.query<{ seq: unknown }>(
        "SELECT ledger_transition($1, 'AMBIGUOUS', $2, $3, $4, $5::jsonb) AS seq",
        [
          input.executionId,
          to,
          to === "SETTLED_COMMITTED" ? "replay_ok" : "replay_failed",
          input.actor,
          jsonParam(evidence),
        ],
      );
      let findingId: number | null = null;
      if (to === "SETTLED_COMMITTED") {
        findingId = await attachFindingIn(tx, {
          effectId: input.effectId,
          adapterId: input.adapterId,
          destinationRef: input.destinationRef ?? null,
          classification: "CONFIRMED_UNIQUE",
          evidence: {
            execution_id: input.executionId,
            settle_transition_seq: toId(seq.rows[0]?.seq),
            ...evidence,
          },
          createdBy: input.actor,
        });
      }
      return { status: "settled", receiptId, lifecycle: to, findingId };
    });
    if (done.ok) return done.value;
    const state = sqlStateOf(done.error);
    if (state !== "23505" && state !== "DT001" && state !== "DT002" && state !== "DT006")
      throw done.error;
    const frontier = (await findExecution(tx, input.executionId))?.frontier ?? null;
    const late = await insertLateResponse(tx, input, frontier, {
      late_reason: state === "DT006" ? "fenced" : "stale_state",
      replay_probe: true,
    });
    return { status: "late", lateId: late.lateId };
  });
}
