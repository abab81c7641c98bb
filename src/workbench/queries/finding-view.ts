/**
 * workbench/queries/finding-view — the exchange shape of one finding (reference §10.1,
 * reconciliation-finding schema): `fnd_` + 20-digit id; the subject is the effect, or for an
 * orphan the (adapter, destination ref) pair; evidence travels as its digest only; a
 * resolution other than OPEN carries its evidence digest and time; the excess count appears
 * only on a DUPLICATE. Shared by the effects list (latest finding) and the findings queue.
 * Imports: core, ledger, workbench.
 */
import { canonicalDigest } from "../../core/canonical.js";
import { isoSql } from "../../ledger/sql-util.js";

/** One finding as the API shows it. */
export interface FindingView {
  readonly finding_id: string;
  readonly classification: string;
  readonly subject:
    | { readonly effect_id: string }
    | { readonly adapter_id: string; readonly destination_ref: string | null };
  readonly adapter_id: string;
  readonly destination_ref: string | null;
  readonly excess_effect_count?: number;
  readonly created_by: string;
  readonly created_at: string;
  readonly evidence: {
    readonly digest: string;
    readonly bundle: null;
    readonly redaction: "digest_only";
  };
  readonly resolution: {
    readonly status: string;
    readonly actor?: string;
    readonly resolved_at?: string;
    readonly evidence_digest?: string;
  };
}

/** The row {@link FINDING_COLUMNS} selects (prefix `f_`, so it can ride on another row). */
export interface FindingRow {
  readonly f_finding_id: unknown;
  readonly f_effect_id: string | null;
  readonly f_adapter_id: string;
  readonly f_destination_ref: string | null;
  readonly f_classification: string;
  readonly f_excess_effect_count: unknown;
  readonly f_evidence_digest: string;
  readonly f_created_by: string;
  readonly f_created_at: string;
  readonly f_resolution_status: string | null;
  readonly f_resolution_actor: string | null;
  readonly f_resolved_at: string | null;
  readonly f_resolution_evidence: unknown;
}

/**
 * Columns of a finding `f` joined LATERAL to its latest resolution `lr`
 * (see {@link LATEST_RESOLUTION_JOIN}).
 */
export const FINDING_COLUMNS = `
  f.finding_id AS f_finding_id, f.effect_id AS f_effect_id, f.adapter_id AS f_adapter_id,
  f.destination_ref AS f_destination_ref, f.classification AS f_classification,
  f.excess_effect_count AS f_excess_effect_count, f.evidence_digest AS f_evidence_digest,
  f.created_by AS f_created_by, ${isoSql("f.created_at")} AS f_created_at,
  lr.to_status AS f_resolution_status, lr.actor AS f_resolution_actor,
  ${isoSql("lr.created_at")} AS f_resolved_at, lr.evidence AS f_resolution_evidence`;

/** The latest resolution row of finding `f`, as `lr` (none = OPEN). */
export const LATEST_RESOLUTION_JOIN = `
  LEFT JOIN LATERAL (
    SELECT r.to_status, r.actor, r.created_at, r.evidence
      FROM finding_resolutions r WHERE r.finding_id = f.finding_id
     ORDER BY r.resolution_seq DESC LIMIT 1
  ) lr ON true`;

/** `fnd_` + the id zero-padded to 20 digits. */
export function findingExchangeId(id: number): string {
  return `fnd_${String(id).padStart(20, "0")}`;
}

/** Builds the exchange shape from a {@link FindingRow}. */
export function toFindingView(row: FindingRow): FindingView {
  const id = Number(row.f_finding_id);
  const status = row.f_resolution_status ?? "OPEN";
  const resolution =
    row.f_resolution_status === null
      ? { status }
      : {
          status,
          ...(row.f_resolution_actor === null ? {} : { actor: row.f_resolution_actor }),
          ...(row.f_resolved_at === null ? {} : { resolved_at: row.f_resolved_at }),
          evidence_digest: canonicalDigest(row.f_resolution_evidence ?? {}),
        };
  return {
    finding_id: findingExchangeId(id),
    classification: row.f_classification,
    subject:
      row.f_effect_id === null
        ? { adapter_id: row.f_adapter_id, destination_ref: row.f_destination_ref }
        : { effect_id: row.f_effect_id },
    adapter_id: row.f_adapter_id,
    destination_ref: row.f_destination_ref,
    ...(row.f_classification === "DUPLICATE" && row.f_excess_effect_count !== null
      ? { excess_effect_count: Number(row.f_excess_effect_count) }
      : {}),
    created_by: row.f_created_by,
    created_at: row.f_created_at,
    evidence: { digest: row.f_evidence_digest, bundle: null, redaction: "digest_only" },
    resolution,
  };
}
