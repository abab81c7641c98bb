/**
 * workbench/queries/findings-list — the findings queue: filters on class, latest resolution
 * status, subject effect, adapter, destination ref and creation time; newest first, keyset
 * pagination on the finding id. Also returns the raw stable-id values of the subject effects
 * on the page, so the route can digest any that surface in a destination ref.
 * Imports: db, workbench.
 */
import type { Queryable } from "../../db/db.js";
import { encodeFindingsCursor } from "../cursor.js";
import type { FindingsQuery } from "../query-params.js";
import { stableIdValues } from "../../core/stable-id-redaction.js";
import {
  FINDING_COLUMNS,
  LATEST_RESOLUTION_JOIN,
  toFindingView,
  type FindingRow,
  type FindingView,
} from "./finding-view.js";

/** A page of findings. */
export interface FindingPage {
  readonly items: readonly FindingView[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
  /** Raw stable-id values of the subject effects (for redaction only; never sent). */
  readonly subjectStableIdValues: readonly string[];
}

interface Row extends FindingRow {
  subject_stable_ids: Record<string, string> | null;
}

/** Reads one page of the findings queue. */
export async function listFindings(q: Queryable, query: FindingsQuery): Promise<FindingPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.classification !== undefined)
    where.push(`f.classification = ANY(${bind(query.classification)}::text[])`);
  if (query.resolutionStatus !== undefined)
    where.push(`COALESCE(lr.to_status, 'OPEN') = ANY(${bind(query.resolutionStatus)}::text[])`);
  if (query.subjectEffectId !== undefined)
    where.push(`f.effect_id = ${bind(query.subjectEffectId)}`);
  if (query.adapter !== undefined) where.push(`f.adapter_id = ${bind(query.adapter)}`);
  if (query.destinationRef !== undefined)
    where.push(`f.destination_ref = ${bind(query.destinationRef)}`);
  if (query.from !== undefined) where.push(`f.created_at >= ${bind(query.from)}::timestamptz`);
  if (query.to !== undefined) where.push(`f.created_at < ${bind(query.to)}::timestamptz`);
  if (query.cursor !== undefined) where.push(`f.finding_id < ${bind(query.cursor)}`);
  const sql = `
    SELECT ${FINDING_COLUMNS}, rec.stable_ids AS subject_stable_ids
      FROM findings f
      ${LATEST_RESOLUTION_JOIN}
      LEFT JOIN effect_records rec ON rec.effect_id = f.effect_id
     ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`}
     ORDER BY f.finding_id DESC
     LIMIT ${bind(query.limit + 1)}`;
  const { rows } = await q.query<Row>(sql, params);
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toFindingView),
    hasMore,
    nextCursor:
      hasMore && last !== undefined ? encodeFindingsCursor(Number(last.f_finding_id)) : null,
    subjectStableIdValues: page.flatMap((r) => stableIdValues(r.subject_stable_ids)),
  };
}
