/**
 * ledger/claim-replay-probe — the C1 idempotent replay probe (§3.8, §6): re-send the SAME
 * key with the stored payload, inside the destination's declared idempotency window, so
 * the destination answers with the first outcome. The claim takes the slot and record
 * locks, needs the execution AMBIGUOUS and the slot free, and writes an attempt of kind
 * c1_replay_probe (no gate decision: it cannot create a second effect). The outcome and its
 * settle (replay_ok ⇒ COMMITTED + CONFIRMED_UNIQUE; TERMINAL FAILED ⇒ replay_failed) are
 * one transaction (the reference split them, GAP 7). Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import type { Actor, LifecycleState } from "../core/state-tables.js";
import type { Db } from "../db/db.js";
import { attachFindingIn } from "./attach-finding.js";
import { findExecution, requireRecord } from "./read-records.js";
import { insertLateResponse, insertReceipt, type OutcomeInput } from "./record-outcome.js";
import { jsonParam, relabelLeaseLost, sqlStateOf, toId, withSavepoint } from "./sql-util.js";
import type { StoredRecord, WorkerLease } from "./types.js";

/** Outcome of claiming a C1 replay probe. */
export type ReplayClaim =
  | {
      readonly status: "claimed";
      readonly record: StoredRecord;
      readonly attemptId: number;
      readonly attemptNo: number;
      readonly operationId: string;
    }
  | { readonly status: "not_ambiguous"; readonly frontier: LifecycleState | null }
  | { readonly status: "scope_busy"; readonly attemptId: number; readonly blockingEffectId: string }
  | { readonly status: "attempt_cap"; readonly attempts: number };

/** Claims a replay probe for an AMBIGUOUS execution. */
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
      await tx.query(
        "INSERT INTO scope_slots (scope, effect_type) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [record.scope, record.effectType],
      );
      await tx.query("SELECT 1 FROM scope_slots WHERE scope = $1 AND effect_type = $2 FOR UPDATE", [
        record.scope,
        record.effectType,
      ]);
      await tx.query("SELECT 1 FROM effect_records WHERE effect_id = $1 FOR UPDATE", [
        record.effectId,
      ]);
      const now = await findExecution(tx, input.executionId);
      if (now?.frontier !== "AMBIGUOUS")
        return { status: "not_ambiguous", frontier: now?.frontier ?? null };
      const open = await tx.query<{ attempt_id: unknown; effect_id: string }>(
        "SELECT attempt_id, effect_id FROM open_attempts WHERE scope = $1 AND effect_type = $2 ORDER BY attempt_id LIMIT 1",
        [record.scope, record.effectType],
      );
      const busy = open.rows[0];
      if (busy !== undefined)
        return {
          status: "scope_busy",
          attemptId: toId(busy.attempt_id),
          blockingEffectId: busy.effect_id,
        };
      const count = await tx.query<{ n: unknown }>(
        "SELECT count(*) AS n FROM dispatch_attempts WHERE execution_id = $1",
        [input.executionId],
      );
      const attempts = Number(count.rows[0]?.n ?? 0);
      if (attempts >= input.maxAttempts) return { status: "attempt_cap", attempts };
      const inserted = await tx.query<{ attempt_id: unknown; attempt_no: number }>(
        `INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest,
                                        idempotency_key, request_digest, gate_decision_id, owner_worker_id, fencing_token)
         SELECT $1, $2, COALESCE(MAX(attempt_no), 0) + 1, 'c1_replay_probe', $3, $4, $2, $5, NULL, $6, $7
           FROM dispatch_attempts WHERE execution_id = $1
         RETURNING attempt_id, attempt_no`,
        [
          input.executionId,
          now.operationId,
          record.adapterId,
          record.declarationDigest,
          canonicalDigest({ replay_probe: now.operationId }),
          input.lease.workerId,
          input.lease.fencingToken,
        ],
      );
      return {
        status: "claimed",
        record,
        attemptId: toId(inserted.rows[0]?.attempt_id),
        attemptNo: Number(inserted.rows[0]?.attempt_no),
        operationId: now.operationId,
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
