/**
 * workbench/queries/effect-items — the effects list and the one-effect summary: each item is
 * `{record, classification, finding}` (reference §10.1): the record with its latest
 * execution's operation id, step and lifecycle (and when it got there), its first authority's
 * ref and stamp; the classification of its latest finding (UNRECONCILED when it has none);
 * that finding in exchange shape. Stable ids come back raw here; the route digests them.
 * Keyset pagination on (created_at, effect_id) descending. Imports: core, db, ledger, workbench.
 */
import type { Queryable } from "../../db/db.js";
import { isoSql } from "../../ledger/sql-util.js";
import { encodeEffectsCursor } from "../cursor.js";
import type { EffectsQuery } from "../query-params.js";
import {
  FINDING_COLUMNS,
  LATEST_RESOLUTION_JOIN,
  toFindingView,
  type FindingRow,
  type FindingView,
} from "./finding-view.js";

/** An effect record as the API shows it (stable ids still raw until redaction). */
export interface EffectRecordView {
  readonly effect_id: string;
  readonly effect_type: string;
  readonly effect_class: string;
  readonly scope: string;
  readonly stable_ids: Readonly<Record<string, string>>;
  readonly adapter_id: string;
  readonly declaration_digest: string;
  readonly parameters_digest: string;
  readonly branch_ref: string | null;
  readonly event_time: string | null;
  readonly created_at: string;
  readonly operation_id: string;
  readonly step: number;
  readonly lifecycle: string;
  readonly lifecycle_at: string | null;
  readonly authority_ref: string | null;
  readonly stamped_at: string | null;
}

/** One list item. */
export interface EffectItem {
  readonly record: EffectRecordView;
  readonly classification: string;
  readonly finding: FindingView | null;
}

/** A page of items. */
export interface EffectPage {
  readonly items: readonly EffectItem[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

interface ItemRow extends FindingRow {
  effect_id: string;
  effect_type: string;
  effect_class: string;
  scope: string;
  stable_ids: Record<string, string>;
  adapter_id: string;
  declaration_digest: string;
  parameters_digest: string;
  branch_ref: string | null;
  event_time: string | null;
  created_at: string;
  operation_id: string | null;
  step: unknown;
  lifecycle: string | null;
  lifecycle_at: string | null;
  authority_ref: string | null;
  stamped_at: string | null;
}

const ITEM_SELECT = `
SELECT r.effect_id, r.effect_type, r.effect_class, r.scope, r.stable_ids, r.adapter_id,
       r.declaration_digest, r.parameters_digest, r.branch_ref,
       ${isoSql("r.event_time")} AS event_time, ${isoSql("r.created_at")} AS created_at,
       x.operation_id, x.step, x.frontier AS lifecycle, ${isoSql("x.frontier_at")} AS lifecycle_at,
       au.authority_ref, ${isoSql("au.stamped_at")} AS stamped_at,
       ${FINDING_COLUMNS}
  FROM effect_records r
  LEFT JOIN LATERAL (
    SELECT ef.operation_id, ef.step, ef.frontier, ef.frontier_at
      FROM execution_frontiers ef WHERE ef.effect_id = r.effect_id
     ORDER BY ef.step DESC LIMIT 1
  ) x ON true
  LEFT JOIN LATERAL (
    SELECT a.authority_ref, a.stamped_at
      FROM effect_authorities l JOIN authorities a ON a.authority_id = l.authority_id
     WHERE l.effect_id = r.effect_id
     ORDER BY l.link_id ASC LIMIT 1
  ) au ON true
  LEFT JOIN LATERAL (
    SELECT * FROM findings lf WHERE lf.effect_id = r.effect_id ORDER BY lf.finding_id DESC LIMIT 1
  ) f ON true
  ${LATEST_RESOLUTION_JOIN}`;

function toItem(row: ItemRow): EffectItem {
  const finding = row.f_finding_id === null ? null : toFindingView(row);
  return {
    record: {
      effect_id: row.effect_id,
      effect_type: row.effect_type,
      effect_class: row.effect_class,
      scope: row.scope,
      stable_ids: row.stable_ids,
      adapter_id: row.adapter_id,
      declaration_digest: row.declaration_digest,
      parameters_digest: row.parameters_digest,
      branch_ref: row.branch_ref,
      event_time: row.event_time,
      created_at: row.created_at,
      operation_id: row.operation_id ?? `${row.effect_id}:0`,
      step: row.step === null ? 0 : Number(row.step),
      lifecycle: row.lifecycle ?? "INTENDED",
      lifecycle_at: row.lifecycle_at,
      authority_ref: row.authority_ref,
      stamped_at: row.stamped_at,
    },
    classification: finding?.classification ?? "UNRECONCILED",
    finding,
  };
}

/** Reads one page of the effects list. */
export async function listEffects(q: Queryable, query: EffectsQuery): Promise<EffectPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.scope !== undefined) where.push(`r.scope = ${bind(query.scope)}`);
  if (query.effectType !== undefined) where.push(`r.effect_type = ${bind(query.effectType)}`);
  if (query.effectClass !== undefined)
    where.push(`r.effect_class = ANY(${bind(query.effectClass)}::text[])`);
  if (query.lifecycle !== undefined)
    where.push(`COALESCE(x.frontier, 'INTENDED') = ANY(${bind(query.lifecycle)}::text[])`);
  if (query.classification !== undefined) {
    where.push(
      `COALESCE(f.classification, 'UNRECONCILED') = ANY(${bind(query.classification)}::text[])`,
    );
  }
  if (query.from !== undefined) where.push(`r.created_at >= ${bind(query.from)}::timestamptz`);
  if (query.to !== undefined) where.push(`r.created_at < ${bind(query.to)}::timestamptz`);
  if (query.cursor !== undefined) {
    where.push(
      `(r.created_at, r.effect_id) < (${bind(query.cursor.createdAt)}::timestamptz, ${bind(query.cursor.effectId)})`,
    );
  }
  const sql = `${ITEM_SELECT}
   ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`}
   ORDER BY r.created_at DESC, r.effect_id DESC
   LIMIT ${bind(query.limit + 1)}`;
  const { rows } = await q.query<ItemRow>(sql, params);
  const hasMore = rows.length > query.limit;
  const items = rows.slice(0, query.limit).map(toItem);
  const last = items[items.length - 1];
  return {
    items,
    hasMore,
    nextCursor:
      hasMore && last !== undefined
        ? encodeEffectsCursor({
            createdAt: last.record.created_at,
            effectId: last.record.effect_id,
          })
        : null,
  };
}

/** Reads one effect's item; null when there is no such record. */
export async function readEffectItem(q: Queryable, effectId: string): Promise<EffectItem | null> {
  const { rows } = await q.query<ItemRow>(`${ITEM_SELECT} WHERE r.effect_id = $1`, [effectId]);
  const row = rows[0];
  return row === undefined ? null : toItem(row);
}
