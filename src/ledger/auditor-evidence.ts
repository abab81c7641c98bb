/**
 * ledger/auditor-evidence — the auditor's `evidence_citation` rule: evidence over belief.
 * Every exit from AMBIGUOUS and every finding about an effect is re-checked against the rows
 * it cites, with the same rule the locked functions enforce since
 * sql/migrations/0044_evidence_citations.sql, but computed here from the raw rows (the
 * auditor trusts nothing in the database, so rows written before 0044, by a tampered
 * function or by the owner directly are caught too):
 *   - probe_ids: distinct ids of probes of that execution (of that effect, for a finding);
 *     a commit cites only PRESENT probes; a failure cites at least two ABSENT reads, none
 *     marked as read before the lag elapsed, the later-recorded one not queried before the
 *     earlier one, and no probe of the execution recorded by then answered PRESENT;
 *   - receipt_id: a receipt of an attempt of that execution (that effect), OK for a commit,
 *     FAILED for a failure;
 *   - human: only on a transition by a human, naming who decided.
 * Imports: core, db, ledger.
 */
import type { LifecycleState } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import { AuditRule, type Violation } from "./audit-violation.js";

interface ProbeFact {
  readonly executionId: number;
  readonly effectId: string;
  readonly result: string;
  readonly queriedAtUs: bigint;
  readonly recordedAtUs: bigint;
  readonly lagNotElapsed: boolean;
}

interface ReceiptFact {
  readonly executionId: number;
  readonly effectId: string;
  readonly outcome: string;
}

/** Why a citation fails, named like the SQL refusal (`citation_*`), or null. */
export type CitationRefusal =
  | "citation_malformed"
  | "citation_probe_unknown"
  | "citation_probe_result"
  | "citation_absence_two_reads"
  | "citation_absence_contradicted"
  | "citation_receipt_unknown"
  | "citation_receipt_outcome"
  | "citation_human_actor"
  | "citation_human_decided_by";

function isId(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
}

function citedIds(v: unknown): number[] | null {
  if (!Array.isArray(v) || v.length === 0 || !v.every(isId)) return null;
  return new Set(v).size === v.length ? v : null;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

interface Facts {
  readonly probes: ReadonlyMap<number, ProbeFact>;
  readonly receipts: ReadonlyMap<number, ReceiptFact>;
  /** Per execution, when its first PRESENT probe was recorded (µs since the epoch). */
  readonly firstPresentUs: ReadonlyMap<number, bigint>;
}

/**
 * The refusal for an exit from AMBIGUOUS of `executionId` to `to` by `actor`, written at
 * `atUs`, or null. Judged on what the ledger held then: a PRESENT read recorded after a
 * settle is the audit's business (CONTRADICTED), not a defect of the settle.
 */
export function ambiguousExitRefusal(
  facts: Facts,
  executionId: number,
  to: LifecycleState,
  actor: string,
  evidence: Record<string, unknown>,
  atUs: bigint,
): CitationRefusal | null {
  const committed = to === "SETTLED_COMMITTED";
  if (present(evidence["probe_ids"])) {
    const ids = citedIds(evidence["probe_ids"]);
    if (ids === null) return "citation_malformed";
    const cited = ids.map((id) => facts.probes.get(id));
    if (cited.some((p) => p === undefined || p.executionId !== executionId))
      return "citation_probe_unknown";
    const probes = cited as ProbeFact[];
    if (committed) {
      if (probes.some((p) => p.result !== "PRESENT")) return "citation_probe_result";
    } else {
      if (probes.some((p) => p.result !== "ABSENT" || p.lagNotElapsed))
        return "citation_probe_result";
      const byRecording = ids.map((id, i) => ({ id, p: probes[i] as ProbeFact }));
      byRecording.sort((a, b) => a.id - b.id);
      const first = byRecording[0];
      const last = byRecording[byRecording.length - 1];
      if (
        first === undefined ||
        last === undefined ||
        byRecording.length < 2 ||
        last.p.queriedAtUs < first.p.queriedAtUs
      )
        return "citation_absence_two_reads";
      const present = facts.firstPresentUs.get(executionId);
      if (present !== undefined && present <= atUs) return "citation_absence_contradicted";
    }
  }
  if (present(evidence["receipt_id"])) {
    const id = evidence["receipt_id"];
    if (!isId(id)) return "citation_malformed";
    const receipt = facts.receipts.get(id);
    if (receipt === undefined || receipt.executionId !== executionId)
      return "citation_receipt_unknown";
    if (receipt.outcome !== (committed ? "OK" : "FAILED")) return "citation_receipt_outcome";
  }
  if (present(evidence["human"])) {
    if (actor !== "human") return "citation_human_actor";
    const human = evidence["human"];
    const decidedBy =
      typeof human === "object" && !Array.isArray(human)
        ? (human as Record<string, unknown>)["decided_by"]
        : undefined;
    if (typeof decidedBy !== "string" || decidedBy.trim() === "")
      return "citation_human_decided_by";
  }
  return null;
}

/** The refusal for a finding on `effectId` citing `evidence`, or null. */
export function findingCitationRefusal(
  facts: Facts,
  effectId: string,
  evidence: Record<string, unknown>,
): CitationRefusal | null {
  if (present(evidence["probe_ids"])) {
    const ids = citedIds(evidence["probe_ids"]);
    if (ids === null) return "citation_malformed";
    if (ids.some((id) => facts.probes.get(id)?.effectId !== effectId))
      return "citation_probe_unknown";
  }
  if (present(evidence["receipt_id"])) {
    const id = evidence["receipt_id"];
    if (!isId(id)) return "citation_malformed";
    if (facts.receipts.get(id)?.effectId !== effectId) return "citation_receipt_unknown";
  }
  return null;
}

async function readFacts(tx: Queryable): Promise<Facts> {
  const probes = await tx.query<{
    probe_id: unknown;
    execution_id: unknown;
    effect_id: string;
    result: string;
    queried_us: string;
    recorded_us: string;
    lag_not_elapsed: boolean;
  }>(
    `SELECT p.probe_id, p.execution_id, x.effect_id, p.result,
            (extract(epoch FROM p.queried_at) * 1000000)::bigint::text AS queried_us,
            (extract(epoch FROM p.recorded_at) * 1000000)::bigint::text AS recorded_us,
            COALESCE(p.evidence -> 'lag_not_elapsed' = 'true'::jsonb, false) AS lag_not_elapsed
       FROM status_probes p JOIN effect_executions x ON x.execution_id = p.execution_id`,
  );
  const receipts = await tx.query<{
    receipt_id: unknown;
    execution_id: unknown;
    effect_id: string;
    transport_outcome: string;
  }>(
    `SELECT r.receipt_id, a.execution_id, x.effect_id, r.transport_outcome
       FROM dispatch_receipts r JOIN dispatch_attempts a ON a.attempt_id = r.attempt_id
       JOIN effect_executions x ON x.execution_id = a.execution_id`,
  );
  const probeMap = new Map<number, ProbeFact>();
  const firstPresentUs = new Map<number, bigint>();
  for (const r of probes.rows) {
    const executionId = Number(r.execution_id);
    const recordedAtUs = BigInt(r.recorded_us);
    probeMap.set(Number(r.probe_id), {
      executionId,
      effectId: r.effect_id,
      result: r.result,
      queriedAtUs: BigInt(r.queried_us),
      recordedAtUs,
      lagNotElapsed: r.lag_not_elapsed,
    });
    const earliest = firstPresentUs.get(executionId);
    if (r.result === "PRESENT" && (earliest === undefined || recordedAtUs < earliest))
      firstPresentUs.set(executionId, recordedAtUs);
  }
  const receiptMap = new Map<number, ReceiptFact>();
  for (const r of receipts.rows)
    receiptMap.set(Number(r.receipt_id), {
      executionId: Number(r.execution_id),
      effectId: r.effect_id,
      outcome: r.transport_outcome,
    });
  return { probes: probeMap, receipts: receiptMap, firstPresentUs };
}

/** Reports every AMBIGUOUS exit and every record-keyed finding whose citations do not check out. */
export async function checkEvidenceCitations(tx: Queryable, out: Violation[]): Promise<void> {
  const facts = await readFacts(tx);
  const exits = await tx.query<{
    transition_seq: unknown;
    execution_id: unknown;
    to_state: LifecycleState;
    actor: string;
    evidence: Record<string, unknown>;
    created_us: string;
  }>(
    `SELECT transition_seq, execution_id, to_state, actor, evidence,
            (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us
       FROM effect_transitions WHERE from_state = 'AMBIGUOUS' ORDER BY transition_seq`,
  );
  for (const t of exits.rows) {
    const executionId = Number(t.execution_id);
    const refusal = ambiguousExitRefusal(
      facts,
      executionId,
      t.to_state,
      t.actor,
      t.evidence,
      BigInt(t.created_us),
    );
    if (refusal !== null)
      out.push({
        rule: AuditRule.evidence_citation,
        detail: `AMBIGUOUS -> ${t.to_state} cites evidence that does not support it (${refusal})`,
        subject: { execution_id: executionId, transition_seq: Number(t.transition_seq), refusal },
      });
  }
  const findings = await tx.query<{
    finding_id: unknown;
    effect_id: string;
    evidence: Record<string, unknown>;
  }>(
    "SELECT finding_id, effect_id, evidence FROM findings WHERE effect_id IS NOT NULL ORDER BY finding_id",
  );
  for (const f of findings.rows) {
    const refusal = findingCitationRefusal(facts, f.effect_id, f.evidence);
    if (refusal !== null)
      out.push({
        rule: AuditRule.evidence_citation,
        detail: `finding cites evidence that is not its effect's (${refusal})`,
        subject: { finding_id: Number(f.finding_id), refusal },
      });
  }
}
