/**
 * ledger/resolution-list — findings across the ledger, filtered by classification, current
 * resolution status and effect (`irrevon findings list`, `Irrevon.findings`). Reads only.
 * Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import {
  CLASSIFICATIONS,
  RESOLUTION_STATUSES,
  type Classification,
  type ResolutionStatus,
} from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import {
  FINDING_SELECT,
  toFindingState,
  type FindingSqlRow,
  type FindingState,
} from "./resolve-finding.js";

/** Filters of {@link listFindingsFiltered}; unset = any. */
export interface FindingFilter {
  readonly classification?: Classification;
  readonly status?: ResolutionStatus;
  readonly effectId?: string;
  /** Newest first up to this many (default 1 000, at most 10 000). */
  readonly limit?: number;
}

/** Findings matching `filter`, oldest first within the newest `limit`. */
export async function listFindingsFiltered(
  q: Queryable,
  filter: FindingFilter = {},
): Promise<FindingState[]> {
  if (filter.classification !== undefined && !CLASSIFICATIONS.includes(filter.classification)) {
    throw new IrrevonError(ErrorCode.usage, "unknown classification", {
      details: { field: "classification", value: filter.classification, known: CLASSIFICATIONS },
    });
  }
  if (filter.status !== undefined && !RESOLUTION_STATUSES.includes(filter.status)) {
    throw new IrrevonError(ErrorCode.usage, "unknown resolution status", {
      details: { field: "status", value: filter.status, known: RESOLUTION_STATUSES },
    });
  }
  const limit = filter.limit ?? 1_000;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) {
    throw new IrrevonError(ErrorCode.usage, "limit must be 1..10000", {
      details: { field: "limit" },
    });
  }
  const { rows } = await q.query<FindingSqlRow>(
    `SELECT * FROM (${FINDING_SELECT}
       WHERE ($1::text IS NULL OR f.classification = $1)
         AND ($2::text IS NULL OR f.effect_id = $2)
       ORDER BY f.finding_id DESC) x
      WHERE ($3::text IS NULL OR x.status = $3)
      ORDER BY x.finding_id DESC LIMIT $4`,
    [filter.classification ?? null, filter.effectId ?? null, filter.status ?? null, limit],
  );
  return rows.map(toFindingState).reverse();
}
