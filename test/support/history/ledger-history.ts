/**
 * test/support/history/ledger-history — reads the facts the history checker needs straight
 * from the ledger tables (never through the engine), in one read-only transaction, and the
 * destination's side from a Refdest. Works on both backends (plain SQL, epoch-ms times).
 */
import type { Db } from "../../../src/db/db.js";
import type { Refdest } from "../../../src/refdest/index.js";
import {
  checkHistory,
  type DestinationHistory,
  type HistoryVerdict,
  type LedgerHistory,
  type ScenarioFacts,
} from "../../../src/testing/history-checker.js";

const ms = (column: string): string => `(extract(epoch FROM ${column}) * 1000)::float8`;

/** Reads one ledger's history (use a handle acting as irrevon_read or a superuser). */
export async function readLedgerHistory(db: Db): Promise<LedgerHistory> {
  return db.transaction(
    async (tx) => {
      const records = await tx.query<{
        effect_id: string;
        branch_ref: string | null;
        adapter_id: string;
      }>("SELECT effect_id, branch_ref, adapter_id FROM effect_records ORDER BY effect_id");
      const executions = await tx.query<{
        execution_id: number;
        effect_id: string;
        step: number;
        operation_id: string;
        frontier: string;
      }>(
        "SELECT execution_id, effect_id, step, operation_id, frontier FROM execution_frontiers ORDER BY execution_id",
      );
      const decisions = await tx.query<{
        decision_id: number;
        effect_id: string;
        execution_id: number | null;
        outcome: "ALLOW" | "DENY";
        created_ms: number;
      }>(
        `SELECT decision_id, effect_id, execution_id, outcome, ${ms("created_at")} AS created_ms
           FROM gate_decisions ORDER BY decision_id`,
      );
      const attempts = await tx.query<{
        attempt_id: number;
        execution_id: number;
        operation_id: string;
        kind: string;
        gate_decision_id: number | null;
        transport_outcome: string | null;
        destination_ref: string | null;
      }>(
        `SELECT a.attempt_id, a.execution_id, a.operation_id, a.kind, a.gate_decision_id,
                r.transport_outcome, r.destination_ref
           FROM dispatch_attempts a LEFT JOIN dispatch_receipts r ON r.attempt_id = a.attempt_id
          ORDER BY a.attempt_id`,
      );
      const findings = await tx.query<{
        finding_id: number;
        effect_id: string | null;
        destination_ref: string | null;
        classification: string;
      }>(
        "SELECT finding_id, effect_id, destination_ref, classification FROM findings ORDER BY finding_id",
      );
      const escalations = await tx.query<{ execution_id: number; reason: string }>(
        "SELECT execution_id, reason FROM execution_escalations ORDER BY escalation_id",
      );
      const branches = await tx.query<{ branch_ref: string; cancelled_ms: number }>(
        `SELECT branch_ref, ${ms("cancelled_at")} AS cancelled_ms FROM branch_cancellations`,
      );
      return {
        records: records.rows.map((r) => ({
          effectId: r.effect_id,
          branchRef: r.branch_ref,
          adapterId: r.adapter_id,
        })),
        executions: executions.rows.map((r) => ({
          executionId: Number(r.execution_id),
          effectId: r.effect_id,
          step: Number(r.step),
          operationId: r.operation_id,
          frontier: r.frontier,
        })),
        decisions: decisions.rows.map((r) => ({
          decisionId: Number(r.decision_id),
          effectId: r.effect_id,
          executionId: r.execution_id === null ? null : Number(r.execution_id),
          outcome: r.outcome,
          createdMs: Number(r.created_ms),
        })),
        attempts: attempts.rows.map((r) => ({
          attemptId: Number(r.attempt_id),
          executionId: Number(r.execution_id),
          operationId: r.operation_id,
          kind: r.kind,
          gateDecisionId: r.gate_decision_id === null ? null : Number(r.gate_decision_id),
          receipt:
            r.transport_outcome === null
              ? null
              : { transportOutcome: r.transport_outcome, destinationRef: r.destination_ref },
        })),
        findings: findings.rows.map((r) => ({
          findingId: Number(r.finding_id),
          effectId: r.effect_id,
          destinationRef: r.destination_ref,
          classification: r.classification,
        })),
        escalations: escalations.rows.map((r) => ({
          executionId: Number(r.execution_id),
          reason: r.reason,
        })),
        branchCancellations: branches.rows.map((r) => ({
          branchRef: r.branch_ref,
          cancelledMs: Number(r.cancelled_ms),
        })),
      };
    },
    { readOnly: true },
  );
}

/**
 * The destination's side of the history: its truth log and request log. Name the adapter that
 * lists it when the ledger dispatches through more than one destination.
 */
export function readDestinationHistory(refdest: Refdest, adapterId?: string): DestinationHistory {
  return {
    ...(adapterId === undefined ? {} : { adapterId }),
    effects: refdest.truthDump().effects.map((e) => ({
      destinationRef: e.destination_ref,
      clientRef: e.client_ref,
      idempotencyKey: e.idempotency_key,
      requestSeq: e.request_seq,
      via: e.via,
    })),
    requests: refdest.requestLog().map((r) => ({
      seq: r.seq,
      op: r.op,
      clientRef: r.client_ref,
      idempotencyKey: r.idempotency_key,
    })),
  };
}

/** Reads both sides and runs the checker. */
export async function checkRun(
  db: Db,
  refdest: Refdest,
  scenario: ScenarioFacts = {},
): Promise<HistoryVerdict> {
  return checkHistory(await readLedgerHistory(db), readDestinationHistory(refdest), scenario);
}
