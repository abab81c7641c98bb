/**
 * ledger/resolve-finding — resolution edges through the locked function `ledger_resolve`
 * (stale from-status ⇒ DT002, illegal edge or class × action cell ⇒ DT004). A chain of
 * edges (e.g. OPEN→ACCEPTED_AS_IS→CLOSED) is written in one transaction so a crash never
 * leaves half a resolution. Advisory proposals are refused (I9). Imports: core, db, ledger.
 */
import { rejectAdvisory } from "../core/advisory-guard.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Classification, ResolutionActor, ResolutionStatus } from "../core/state-tables.js";
import type { Db, Queryable } from "../db/db.js";
import { isoSql, jsonParam, toId } from "./sql-util.js";

/** One resolution status edge with its actor and evidence. */
export interface ResolutionEdge {
  readonly from: ResolutionStatus;
  readonly to: ResolutionStatus;
  readonly actor: ResolutionActor;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** Writes one edge inside the caller's transaction; returns its resolution_seq. */
export async function resolveIn(
  q: Queryable,
  findingId: number,
  edge: ResolutionEdge,
): Promise<number> {
  rejectAdvisory(edge.evidence);
  const { rows } = await q.query<{ seq: unknown }>(
    "SELECT ledger_resolve($1, $2, $3, $4, $5::jsonb) AS seq",
    [findingId, edge.from, edge.to, edge.actor, jsonParam(edge.evidence)],
  );
  return toId(rows[0]?.seq);
}

/** Writes `edges` in order, in one transaction. */
export async function resolveChain(
  db: Db,
  findingId: number,
  edges: readonly ResolutionEdge[],
): Promise<number[]> {
  for (const edge of edges) rejectAdvisory(edge);
  return db.transaction(async (tx) => {
    const seqs: number[] = [];
    for (const edge of edges) seqs.push(await resolveIn(tx, findingId, edge));
    return seqs;
  });
}

/** Writes one edge in its own transaction. */
export async function resolveFinding(
  db: Db,
  findingId: number,
  edge: ResolutionEdge,
): Promise<number> {
  const [seq] = await resolveChain(db, findingId, [edge]);
  return seq ?? 0;
}

/** A finding with its current resolution status. */
export interface FindingState {
  readonly findingId: number;
  readonly effectId: string | null;
  readonly adapterId: string;
  readonly destinationRef: string | null;
  readonly classification: Classification;
  readonly excessEffectCount: number | null;
  readonly status: ResolutionStatus;
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly createdBy: string;
  readonly createdAt: string;
}

/** SELECT … FROM findings f with the current status (shared by the finding readers). */
export const FINDING_SELECT = `SELECT f.finding_id, f.effect_id, f.adapter_id, f.destination_ref, f.classification,
         f.excess_effect_count, f.evidence, f.created_by, ${isoSql("f.created_at")} AS created_at,
         COALESCE((SELECT r.to_status FROM finding_resolutions r WHERE r.finding_id = f.finding_id
                    ORDER BY r.resolution_seq DESC LIMIT 1), 'OPEN') AS status
    FROM findings f`;

/** A row of {@link FINDING_SELECT}. */
export interface FindingSqlRow {
  finding_id: unknown;
  effect_id: string | null;
  adapter_id: string;
  destination_ref: string | null;
  classification: Classification;
  excess_effect_count: number | null;
  evidence: Record<string, unknown>;
  created_by: string;
  created_at: string;
  status: ResolutionStatus;
}

/** Maps a {@link FINDING_SELECT} row. */
export function toFindingState(r: FindingSqlRow): FindingState {
  return {
    findingId: toId(r.finding_id),
    effectId: r.effect_id,
    adapterId: r.adapter_id,
    destinationRef: r.destination_ref,
    classification: r.classification,
    excessEffectCount: r.excess_effect_count === null ? null : Number(r.excess_effect_count),
    status: r.status,
    evidence: r.evidence,
    createdBy: r.created_by,
    createdAt: r.created_at,
  };
}

/** Reads a finding and its current status, or throws `not_found`. */
export async function readFinding(q: Queryable, findingId: number): Promise<FindingState> {
  const { rows } = await q.query<FindingSqlRow>(`${FINDING_SELECT} WHERE f.finding_id = $1`, [
    findingId,
  ]);
  const r = rows[0];
  if (r === undefined)
    throw new IrrevonError(ErrorCode.not_found, `no finding ${findingId}`, {
      details: { finding_id: findingId },
    });
  return toFindingState(r);
}

/** Findings of one effect, oldest first. */
export async function listFindings(q: Queryable, effectId: string): Promise<FindingState[]> {
  const { rows } = await q.query<FindingSqlRow>(
    `${FINDING_SELECT} WHERE f.effect_id = $1 ORDER BY f.finding_id`,
    [effectId],
  );
  return rows.map(toFindingState);
}
