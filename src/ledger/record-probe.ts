/**
 * ledger/record-probe — one status query and its answer, as evidence (status_probes).
 * The probe's own evidence carries the reconciler's schedule (`reread_not_before`,
 * `next_due_at`) so the next cycle knows what is due without any in-memory state (D3).
 * Imports: core, db, ledger.
 */
import type { ProbeKind, ProbeResult } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import { isoSql, jsonParam, toId } from "./sql-util.js";

/** One status query and its answer. */
export interface ProbeInput {
  readonly executionId: number;
  readonly adapterId: string;
  readonly declarationDigest: string;
  readonly probeKind: ProbeKind;
  /** The keys queried, e.g. `[{"kind":"client_ref","value":"…:0"}]`. */
  readonly queryKeys: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly result: ProbeResult;
  readonly nFound: number | null;
  readonly destinationRefs: readonly string[];
  readonly responseDigest?: string;
  /** When the query was answered (database clock plus any test offset: engine-time), ISO 8601. */
  readonly queriedAt: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** A stored probe as the reconciler reads it back. */
export interface ProbeRow {
  readonly probeId: number;
  readonly executionId: number;
  readonly probeKind: ProbeKind;
  readonly queryKeys: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly result: ProbeResult;
  readonly nFound: number | null;
  readonly destinationRefs: readonly string[];
  readonly queriedAt: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** Inserts a probe with its evidence (column added by sql/migrations/0020). */
export async function recordProbe(q: Queryable, input: ProbeInput): Promise<number> {
  const { rows } = await q.query<{ probe_id: unknown }>(
    `INSERT INTO status_probes (execution_id, adapter_id, declaration_digest, probe_kind, query_keys, result,
                                n_found, destination_refs, response_digest, queried_at, evidence)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb, $9, $10::timestamptz, $11::jsonb) RETURNING probe_id`,
    [
      input.executionId,
      input.adapterId,
      input.declarationDigest,
      input.probeKind,
      jsonParam(input.queryKeys),
      input.result,
      input.result === "INDETERMINATE" ? null : input.nFound,
      jsonParam(input.destinationRefs),
      input.responseDigest ?? null,
      input.queriedAt,
      jsonParam(input.evidence),
    ],
  );
  return toId(rows[0]?.probe_id);
}

/** Probes of one execution of a kind, oldest first. */
export async function listProbes(
  q: Queryable,
  executionId: number,
  probeKind?: ProbeKind,
): Promise<ProbeRow[]> {
  const { rows } = await q.query<ProbeSqlRow>(
    `SELECT probe_id, execution_id, probe_kind, query_keys, evidence, result, n_found, destination_refs,
            ${isoSql("queried_at")} AS queried_at
       FROM status_probes WHERE execution_id = $1 AND ($2::text IS NULL OR probe_kind = $2)
      ORDER BY probe_id`,
    [executionId, probeKind ?? null],
  );
  return rows.map(toProbeRow);
}

/** A probe as read (column names of listProbes and irrevon_reconcile_inputs). */
export interface ProbeSqlRow {
  readonly probe_id: unknown;
  readonly execution_id: unknown;
  readonly probe_kind: ProbeKind;
  readonly query_keys: Array<Record<string, string>>;
  readonly evidence: Record<string, unknown>;
  readonly result: ProbeResult;
  readonly n_found: number | null;
  readonly destination_refs: string[] | null;
  readonly queried_at: string;
}

/** Maps one probe row. */
export function toProbeRow(r: ProbeSqlRow): ProbeRow {
  return {
    probeId: toId(r.probe_id),
    executionId: toId(r.execution_id),
    probeKind: r.probe_kind,
    queryKeys: r.query_keys,
    result: r.result,
    nFound: r.n_found === null ? null : Number(r.n_found),
    destinationRefs: r.destination_refs ?? [],
    queriedAt: r.queried_at,
    evidence: r.evidence,
  };
}
