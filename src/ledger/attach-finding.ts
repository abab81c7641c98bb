/**
 * ledger/attach-finding — a classification finding through the locked function
 * `ledger_attach_finding` (legality of frontier × class is checked in SQL: DT003). The
 * evidence digest is computed here. CONFIRMED_UNIQUE is accepted and closed by the function
 * in the same transaction. Advisory proposals are refused before anything is written (I9).
 * Imports: core, db, ledger.
 */
import { rejectAdvisory } from "../core/advisory-guard.js";
import { canonicalDigest } from "../core/canonical.js";
import type { Classification, FindingCreator } from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import { jsonParam, toId } from "./sql-util.js";

/** A finding to attach (through `ledger_attach_finding`). */
export interface FindingInput {
  /** null only for ORPHANED. */
  readonly effectId: string | null;
  readonly adapterId: string;
  readonly destinationRef: string | null;
  readonly classification: Classification;
  /** DUPLICATE only: n − 1 ≥ 1. */
  readonly excessEffectCount?: number;
  /** Should cite `execution_id` so the gate can cite findings per execution. */
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly createdBy: FindingCreator;
}

/** Inserts the finding inside a transaction the caller holds; returns its id. */
export async function attachFindingIn(q: Queryable, input: FindingInput): Promise<number> {
  rejectAdvisory(input.evidence);
  const { rows } = await q.query<{ finding_id: unknown }>(
    "SELECT ledger_attach_finding($1, $2, $3, $4, $5, $6::jsonb, $7, $8) AS finding_id",
    [
      input.effectId,
      input.adapterId,
      input.destinationRef,
      input.classification,
      input.excessEffectCount ?? null,
      jsonParam(input.evidence),
      canonicalDigest(input.evidence),
      input.createdBy,
    ],
  );
  return toId(rows[0]?.finding_id);
}

/** Attaches a finding in its own transaction (operator API and audits). */
export async function attachFinding(db: Db, input: FindingInput): Promise<number> {
  rejectAdvisory(input);
  return db.transaction((tx) => attachFindingIn(tx, input));
}
