/**
 * ledger/run-reads — the reads `run()` turns into a result: how an execution came to
 * SETTLED_COMMITTED (receipt, reconciliation or C1 replay) with the destination ref and the
 * destination's answer as recorded, and why one ended SETTLED_FAILED. Plain SELECTs; nothing
 * here writes. Imports: core, db, ledger.
 */
import type { FailureKind } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";

/** What the ledger holds about a committed execution. */
export interface CommitEvidence {
  /** The cause of the transition into SETTLED_COMMITTED. */
  readonly cause: "receipt_ok" | "reconciled_present" | "replay_ok";
  readonly destinationRef: string | null;
  /** The recorded evidence of the receipt or probe that proved the commit, or null. */
  readonly response: Readonly<Record<string, unknown>> | null;
}

/** What the ledger holds about a failed execution. */
export interface FailureEvidence {
  /** The cause of the transition into SETTLED_FAILED (receipt_failed, reconciled_absent, replay_failed). */
  readonly cause: string;
  /** The failure kind the destination cited (null when the failure was reconciled). */
  readonly failureKind: FailureKind | null;
}

async function settleCause(
  q: Queryable,
  executionId: number,
  toState: "SETTLED_COMMITTED" | "SETTLED_FAILED",
): Promise<string | null> {
  const { rows } = await q.query<{ cause: string }>(
    `SELECT cause FROM effect_transitions WHERE execution_id = $1 AND to_state = $2
      ORDER BY transition_seq DESC LIMIT 1`,
    [executionId, toState],
  );
  return rows[0]?.cause ?? null;
}

/**
 * The execution's newest receipt matching `where` (a condition on `d`), as one row of
 * `columns` (of `r`). Found as max(receipt_id) over the execution's attempts (each has at most
 * one receipt), never as ORDER BY receipt_id DESC LIMIT 1 over a join, which the planner may
 * answer by walking every receipt in the ledger newest-first (migration 0054).
 */
async function newestReceipt<Row extends Record<string, unknown>>(
  q: Queryable,
  executionId: number,
  columns: string,
  where: string,
): Promise<Row | undefined> {
  const { rows } = await q.query<Row>(
    `SELECT ${columns} FROM dispatch_receipts r
      WHERE r.receipt_id = (SELECT max(d.receipt_id) FROM dispatch_attempts a
                              JOIN dispatch_receipts d ON d.attempt_id = a.attempt_id
                             WHERE a.execution_id = $1 AND ${where})`,
    [executionId],
  );
  return rows[0];
}

/** How the execution was proven committed; null when it is not SETTLED_COMMITTED. */
export async function readCommitEvidence(
  q: Queryable,
  executionId: number,
): Promise<CommitEvidence | null> {
  const cause = await settleCause(q, executionId, "SETTLED_COMMITTED");
  if (cause === null) return null;
  const ok = await newestReceipt<{
    destination_ref: string | null;
    evidence: Record<string, unknown>;
  }>(q, executionId, "r.destination_ref, r.evidence", "d.transport_outcome = 'OK'");
  if (cause === "receipt_ok" || (cause === "replay_ok" && ok !== undefined)) {
    return {
      cause: cause === "receipt_ok" ? "receipt_ok" : "replay_ok",
      destinationRef: ok?.destination_ref ?? null,
      response: ok?.evidence ?? null,
    };
  }
  const probe = await q.query<{
    destination_refs: string[] | null;
    evidence: Record<string, unknown>;
  }>(
    `SELECT destination_refs, evidence FROM status_probes
      WHERE execution_id = $1 AND result = 'PRESENT' ORDER BY probe_id DESC LIMIT 1`,
    [executionId],
  );
  const present = probe.rows[0];
  const anyRef = await newestReceipt<{ destination_ref: string }>(
    q,
    executionId,
    "r.destination_ref",
    "d.destination_ref IS NOT NULL",
  );
  return {
    cause: cause === "replay_ok" ? "replay_ok" : "reconciled_present",
    destinationRef: present?.destination_refs?.[0] ?? anyRef?.destination_ref ?? null,
    response: present?.evidence ?? null,
  };
}

/** Why the execution failed; null when it is not SETTLED_FAILED. */
export async function readFailureEvidence(
  q: Queryable,
  executionId: number,
): Promise<FailureEvidence | null> {
  const cause = await settleCause(q, executionId, "SETTLED_FAILED");
  if (cause === null) return null;
  const failed = await newestReceipt<{ failure_kind: FailureKind | null }>(
    q,
    executionId,
    "r.failure_kind",
    "d.transport_outcome = 'FAILED'",
  );
  return {
    cause,
    failureKind: cause === "receipt_failed" ? (failed?.failure_kind ?? null) : null,
  };
}
