/**
 * ledger/auditor — a read-only invariant checker over a whole ledger. It trusts nothing in
 * the database: legality comes from src/core/state-tables.ts (so tampered seed tables are
 * caught, not consulted). Runs after every integration test (test/support/audit.ts) and can
 * be run against a live ledger by an operator. Imports: core, db.
 */
import {
  CLASSIFICATION_ATTACHMENTS,
  TERMINAL_STATES,
  isLegalLifecycleEdge,
  isLegalResolution,
  type Classification,
  type LifecycleState,
  type ResolutionStatus,
} from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import { AuditRule, type Violation } from "./audit-violation.js";
import { checkAppendOnlyTriggers, checkDerivedIndexes, checkSeedTables } from "./auditor-catalog.js";
import { checkEvidenceCitations } from "./auditor-evidence.js";

export { AUDIT_RULES, AuditRule, type Violation } from "./audit-violation.js";

/**
 * Evidence keys that count as a citation when leaving AMBIGUOUS (every exit cites its evidence).
 * A bare `note` stopped counting with sql/migrations/0044; what the keys cite is checked by the
 * `evidence_citation` rule (auditor-evidence).
 */
export const AMBIGUOUS_EXIT_CITATIONS = ["probe_ids", "receipt_id", "human"] as const;

interface TransitionRow {
  transition_seq: number;
  execution_id: number;
  from_state: LifecycleState | null;
  to_state: LifecycleState;
  cause: string;
  actor: string;
  evidence: Record<string, unknown>;
}

function hasCitation(evidence: Record<string, unknown>): boolean {
  return AMBIGUOUS_EXIT_CITATIONS.some((k) => evidence[k] !== undefined && evidence[k] !== null);
}

async function checkLifecycle(tx: Queryable, out: Violation[]): Promise<void> {
  const executions = await tx.query<{ execution_id: number }>(
    "SELECT execution_id FROM effect_executions ORDER BY execution_id",
  );
  const { rows } = await tx.query<TransitionRow>(
    "SELECT transition_seq, execution_id, from_state, to_state, cause, actor, evidence FROM effect_transitions ORDER BY execution_id, transition_seq",
  );
  const byExecution = new Map<number, TransitionRow[]>();
  for (const r of rows) {
    const list = byExecution.get(Number(r.execution_id)) ?? [];
    list.push(r);
    byExecution.set(Number(r.execution_id), list);
  }
  const ambiguousReceipts = new Set(
    (
      await tx.query<{ execution_id: number }>(
        `SELECT DISTINCT a.execution_id FROM dispatch_receipts d JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
         WHERE d.transport_outcome IN ('TIMEOUT', 'LOST')`,
      )
    ).rows.map((r) => Number(r.execution_id)),
  );
  const allowed = new Set(
    (
      await tx.query<{ execution_id: number }>(
        // A replay probe's ALLOW (0040) never stands in for the ALLOW of the dispatch itself.
        "SELECT DISTINCT execution_id FROM gate_decisions WHERE outcome = 'ALLOW' AND execution_id IS NOT NULL AND variant <> 'c1_replay_probe'",
      )
    ).rows.map((r) => Number(r.execution_id)),
  );
  const attempted = new Set(
    (
      await tx.query<{ execution_id: number }>(
        "SELECT DISTINCT execution_id FROM dispatch_attempts WHERE kind <> 'c1_replay_probe'",
      )
    ).rows.map((r) => Number(r.execution_id)),
  );

  for (const { execution_id } of executions.rows) {
    const id = Number(execution_id);
    const chain = byExecution.get(id) ?? [];
    if (chain.length === 0) {
      out.push({
        rule: AuditRule.contiguity,
        detail: `execution ${id} has no transitions (no genesis)`,
        subject: { execution_id: id },
      });
      continue;
    }
    let previous: LifecycleState | null = null;
    chain.forEach((t, i) => {
      const subject = { execution_id: id, transition_seq: Number(t.transition_seq) };
      if (
        !isLegalLifecycleEdge({
          from: t.from_state,
          to: t.to_state,
          cause: t.cause as never,
          actor: t.actor as never,
        })
      ) {
        out.push({
          rule: AuditRule.state_legality,
          detail: `illegal edge ${t.from_state ?? "∅"} -> ${t.to_state} (${t.cause}, ${t.actor})`,
          subject,
        });
      }
      if (i === 0 ? t.from_state !== null : t.from_state !== previous) {
        out.push({
          rule: AuditRule.contiguity,
          detail:
            i === 0
              ? `chain starts at ${t.from_state ?? "∅"}, not at genesis`
              : `from ${t.from_state ?? "∅"} does not continue ${previous ?? "∅"}`,
          subject,
        });
      }
      if (previous !== null && TERMINAL_STATES.includes(previous)) {
        out.push({
          rule: AuditRule.terminality,
          detail: `transition after terminal ${previous}`,
          subject,
        });
      }
      if (t.to_state === "AMBIGUOUS" && !ambiguousReceipts.has(id)) {
        out.push({
          rule: AuditRule.ambiguous_evidence,
          detail: "AMBIGUOUS entered without a TIMEOUT/LOST receipt on the execution",
          subject,
        });
      }
      if (t.from_state === "AMBIGUOUS" && !hasCitation(t.evidence)) {
        out.push({
          rule: AuditRule.ambiguous_evidence,
          detail: `AMBIGUOUS exit cites none of ${AMBIGUOUS_EXIT_CITATIONS.join(", ")}`,
          subject,
        });
      }
      if (t.to_state === "DISPATCHED") {
        if (!allowed.has(id))
          out.push({
            rule: AuditRule.gate,
            detail: "DISPATCHED without an ALLOW gate decision for the execution",
            subject,
          });
        if (!attempted.has(id))
          out.push({
            rule: AuditRule.gate,
            detail: "DISPATCHED without a dispatch attempt for the execution",
            subject,
          });
      }
      previous = t.to_state;
    });
  }
}

async function checkAttempts(tx: Queryable, out: Violation[]): Promise<void> {
  const { rows } = await tx.query<{ attempt_id: number }>(
    `SELECT a.attempt_id FROM dispatch_attempts a JOIN effect_executions x ON x.execution_id = a.execution_id
     WHERE a.idempotency_key <> x.operation_id OR a.operation_id <> x.operation_id`,
  );
  for (const r of rows)
    out.push({
      rule: AuditRule.attempt_key,
      detail: "attempt key is not its execution's operation id",
      subject: { attempt_id: Number(r.attempt_id) },
    });
}

async function checkFindings(tx: Queryable, out: Violation[]): Promise<void> {
  // The frontier a finding attached to: the latest execution (by step) that existed when the
  // finding was created, at its latest transition up to that moment.
  const { rows } = await tx.query<{
    finding_id: number;
    effect_id: string | null;
    classification: Classification;
    excess_effect_count: number | null;
    frontier: LifecycleState | null;
  }>(
    `SELECT f.finding_id, f.effect_id, f.classification, f.excess_effect_count,
            (SELECT t.to_state FROM effect_executions x JOIN effect_transitions t ON t.execution_id = x.execution_id
             WHERE x.effect_id = f.effect_id AND x.created_at <= f.created_at AND t.created_at <= f.created_at
             ORDER BY x.step DESC, t.transition_seq DESC LIMIT 1) AS frontier
     FROM findings f ORDER BY f.finding_id`,
  );
  for (const f of rows) {
    const subject = { finding_id: Number(f.finding_id) };
    if ((f.classification === "ORPHANED") !== (f.effect_id === null)) {
      out.push({
        rule: AuditRule.classification,
        detail: "ORPHANED findings, and only they, have no effect record",
        subject,
      });
    }
    if (
      f.classification === "DUPLICATE" &&
      (f.excess_effect_count === null || f.excess_effect_count < 1)
    ) {
      out.push({
        rule: AuditRule.classification,
        detail: "DUPLICATE without excess_effect_count >= 1",
        subject,
      });
    }
    if (f.effect_id !== null && f.classification !== "ORPHANED") {
      const frontier = f.frontier ?? "INTENDED";
      if (
        !CLASSIFICATION_ATTACHMENTS.some(
          (c) => c.frontier === frontier && c.classification === f.classification,
        )
      ) {
        out.push({
          rule: AuditRule.classification,
          detail: `${f.classification} attached at ${frontier}`,
          subject,
        });
      }
    }
  }
}

async function checkResolutions(tx: Queryable, out: Violation[]): Promise<void> {
  const { rows } = await tx.query<{
    finding_id: number;
    classification: Classification;
    resolution_seq: number;
    from_status: ResolutionStatus;
    to_status: ResolutionStatus;
  }>(
    `SELECT r.finding_id, f.classification, r.resolution_seq, r.from_status, r.to_status
     FROM finding_resolutions r JOIN findings f ON f.finding_id = r.finding_id ORDER BY r.finding_id, r.resolution_seq`,
  );
  let finding = -1;
  let current: ResolutionStatus = "OPEN";
  for (const r of rows) {
    const id = Number(r.finding_id);
    if (id !== finding) {
      finding = id;
      current = "OPEN";
    }
    const subject = { finding_id: id, resolution_seq: Number(r.resolution_seq) };
    if (r.from_status !== current) {
      out.push({
        rule: AuditRule.resolution,
        detail: `resolution from ${r.from_status} does not continue ${current}`,
        subject,
      });
    }
    if (!isLegalResolution(r.classification, r.from_status, r.to_status)) {
      out.push({
        rule: AuditRule.resolution,
        detail: `illegal resolution ${r.from_status} -> ${r.to_status} for ${r.classification}`,
        subject,
      });
    }
    current = r.to_status;
  }
}

/** Checks every invariant in one read-only transaction; an empty list means clean. */
export async function auditLedger(db: Db): Promise<Violation[]> {
  return db.transaction(
    async (tx) => {
      const out: Violation[] = [];
      await checkAppendOnlyTriggers(tx, out);
      await checkSeedTables(tx, out);
      await checkDerivedIndexes(tx, out);
      await checkLifecycle(tx, out);
      await checkAttempts(tx, out);
      await checkFindings(tx, out);
      await checkResolutions(tx, out);
      await checkEvidenceCitations(tx, out);
      return out;
    },
    { readOnly: true },
  );
}
