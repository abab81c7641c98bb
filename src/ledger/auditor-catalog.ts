/**
 * ledger/auditor-catalog — the auditor's structural rules: the append-only triggers exist,
 * are enabled and refuse UPDATE, DELETE and TRUNCATE on every fact and seed table; and the
 * seed tables hold exactly the state-table data of src/core/state-tables.ts. Imports: core, db.
 */
import {
  CLASSIFICATION_ATTACHMENTS,
  LIFECYCLE_EDGES,
  RESOLUTION_ACTION_CELLS,
  RESOLUTION_STATUS_EDGES,
} from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import { DERIVED_TABLES, FACT_TABLES, SEED_TABLES } from "../db/ledger-tables.js";
import { AuditRule, type Violation } from "./audit-violation.js";

// pg_trigger.tgtype bits (src/include/catalog/pg_trigger.h).
const TYPE_ROW = 1;
const TYPE_BEFORE = 2;
const TYPE_DELETE = 8;
const TYPE_UPDATE = 16;
const TYPE_TRUNCATE = 32;

interface TriggerRow {
  table_name: string;
  tgtype: number;
  tgenabled: string;
  function_name: string;
}

/**
 * Reports every fact or seed table — and every other table irrevon_owner owns, derived indexes
 * aside (checkDerivedIndexes) — not fully covered by always-enabled irrevon_no_rewrite() triggers.
 */
export async function checkAppendOnlyTriggers(tx: Queryable, out: Violation[]): Promise<void> {
  const { rows } = await tx.query<TriggerRow>(
    `SELECT c.relname AS table_name, t.tgtype::int AS tgtype, t.tgenabled::text AS tgenabled, p.proname AS function_name
     FROM pg_catalog.pg_trigger t
     JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid
     WHERE n.nspname = 'public' AND NOT t.tgisinternal`,
  );
  // Every table irrevon_owner owns is ledger data, including those later migrations add.
  const owned = await tx.query<{ relname: string }>(
    `SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND pg_catalog.pg_get_userbyid(c.relowner) = 'irrevon_owner'`,
  );
  const derived = new Set<string>(DERIVED_TABLES);
  const tables = new Set<string>([
    ...FACT_TABLES,
    ...SEED_TABLES,
    ...owned.rows.map((r) => r.relname).filter((name) => !derived.has(name)),
  ]);
  for (const table of [...tables].sort()) {
    // 'D' = disabled; 'O', 'A', 'R' fire in some session_replication_role. Only 'A' fires always,
    // which is how 0008 installs them: anything else is a weakened guard.
    const guards = rows.filter(
      (r) =>
        r.table_name === table && r.function_name === "irrevon_no_rewrite" && r.tgenabled === "A",
    );
    const statementBefore = (mask: number) =>
      guards.some(
        (g) =>
          (g.tgtype & TYPE_ROW) === 0 &&
          (g.tgtype & TYPE_BEFORE) !== 0 &&
          (g.tgtype & mask) === mask,
      );
    const missing: string[] = [];
    if (!statementBefore(TYPE_UPDATE)) missing.push("UPDATE");
    if (!statementBefore(TYPE_DELETE)) missing.push("DELETE");
    if (!statementBefore(TYPE_TRUNCATE)) missing.push("TRUNCATE");
    if (missing.length > 0) {
      out.push({
        rule: AuditRule.append_only,
        detail: `${table} is not guarded against ${missing.join(", ")}`,
        subject: { table, missing },
      });
    }
  }
}

function compareSets(
  table: string,
  expected: readonly string[],
  actual: readonly string[],
  out: Violation[],
): void {
  const want = new Set(expected);
  const have = new Set(actual);
  const extra = actual.filter((k) => !want.has(k));
  const lacking = expected.filter((k) => !have.has(k));
  if (extra.length > 0 || lacking.length > 0 || actual.length !== expected.length) {
    out.push({
      rule: AuditRule.seed_tables,
      detail: `${table} differs from src/core/state-tables.ts`,
      subject: { table, extra, missing: lacking },
    });
  }
}

/** Reports seed tables whose rows differ from the TypeScript state tables. */
export async function checkSeedTables(tx: Queryable, out: Violation[]): Promise<void> {
  const key = (...parts: (string | null)[]) => JSON.stringify(parts);
  const lifecycle = await tx.query<{
    from_state: string | null;
    to_state: string;
    cause: string;
    actor: string;
  }>("SELECT from_state, to_state, cause, actor FROM lifecycle_edges");
  compareSets(
    "lifecycle_edges",
    LIFECYCLE_EDGES.map((e) => key(e.from, e.to, e.cause, e.actor)),
    lifecycle.rows.map((r) => key(r.from_state, r.to_state, r.cause, r.actor)),
    out,
  );
  const attach = await tx.query<{ frontier: string; classification: string }>(
    "SELECT frontier, classification FROM classification_attachments",
  );
  compareSets(
    "classification_attachments",
    CLASSIFICATION_ATTACHMENTS.map((c) => key(c.frontier, c.classification)),
    attach.rows.map((r) => key(r.frontier, r.classification)),
    out,
  );
  const actions = await tx.query<{ classification: string; action: string }>(
    "SELECT classification, action FROM resolution_actions",
  );
  compareSets(
    "resolution_actions",
    RESOLUTION_ACTION_CELLS.map((c) => key(c.classification, c.action)),
    actions.rows.map((r) => key(r.classification, r.action)),
    out,
  );
  const edges = await tx.query<{ from_status: string; to_status: string }>(
    "SELECT from_status, to_status FROM resolution_status_edges",
  );
  compareSets(
    "resolution_status_edges",
    RESOLUTION_STATUS_EDGES.map((e) => key(e.from, e.to)),
    edges.rows.map((r) => key(r.from_status, r.to_status)),
    out,
  );
}

/**
 * Each derived index (db/ledger-tables DERIVED_TABLES, decision 0013): its key, its columns,
 * the trigger(s) that keep it, and its definition — the query over the facts whose rows it
 * must hold exactly.
 */
interface DerivedIndex {
  readonly table: (typeof DERIVED_TABLES)[number];
  readonly key: string;
  readonly columns: string;
  readonly definition: string;
  readonly triggers: readonly {
    readonly table: string;
    readonly trigger: string;
    readonly fn: string;
  }[];
}

const DERIVED_INDEXES: readonly DerivedIndex[] = [
  {
    table: "open_attempt_slots",
    key: "attempt_id",
    columns: "scope, effect_type, attempt_id, effect_id",
    definition: "SELECT scope, effect_type, attempt_id, effect_id FROM open_attempts",
    triggers: [
      {
        table: "dispatch_attempts",
        trigger: "dispatch_attempts_open_attempt",
        fn: "irrevon_open_attempt_add",
      },
      {
        table: "dispatch_receipts",
        trigger: "dispatch_receipts_open_attempt",
        fn: "irrevon_open_attempt_close",
      },
    ],
  },
  {
    table: "open_executions",
    key: "execution_id",
    columns: "execution_id, frontier",
    definition:
      "SELECT execution_id, frontier FROM execution_frontiers WHERE frontier IN ('DISPATCHED', 'AMBIGUOUS')",
    triggers: [
      {
        table: "effect_transitions",
        trigger: "effect_transitions_open_execution",
        fn: "irrevon_open_execution_track",
      },
    ],
  },
  {
    table: "open_findings",
    key: "finding_id",
    columns: "finding_id, status",
    definition: `SELECT finding_id, status FROM (
        SELECT f.finding_id, COALESCE((SELECT r.to_status FROM finding_resolutions r
                                        WHERE r.finding_id = f.finding_id
                                        ORDER BY r.resolution_seq DESC LIMIT 1), 'OPEN') AS status
          FROM findings f) s
       WHERE s.status <> 'CLOSED'`,
    triggers: [
      { table: "findings", trigger: "findings_open_finding", fn: "irrevon_open_finding_add" },
      {
        table: "finding_resolutions",
        trigger: "finding_resolutions_open_finding",
        fn: "irrevon_open_finding_track",
      },
    ],
  },
];

/**
 * Reports a derived index that differs from its definition, or whose trigger is missing, calls
 * another function or does not fire always (rows it failed to add would not show until a fact
 * is missed).
 */
export async function checkDerivedIndexes(tx: Queryable, out: Violation[]): Promise<void> {
  await checkDerivedIndexTriggers(tx, out);
  for (const d of DERIVED_INDEXES) {
    const { rows } = await tx.query<{ id: unknown; side: "index_only" | "view_only" }>(
      `SELECT ${d.key} AS id, 'index_only' AS side FROM (
         SELECT ${d.columns} FROM ${d.table} EXCEPT SELECT ${d.columns} FROM (${d.definition}) def) i
       UNION ALL
       SELECT ${d.key} AS id, 'view_only' AS side FROM (
         SELECT ${d.columns} FROM (${d.definition}) def EXCEPT SELECT ${d.columns} FROM ${d.table}) v
       ORDER BY id`,
    );
    for (const r of rows) {
      const id = String(r.id);
      out.push({
        rule: AuditRule.derived_index,
        detail:
          r.side === "index_only"
            ? `${d.table} holds a row for ${d.key} ${id} that the facts do not derive`
            : `${d.table} lacks the row the facts derive for ${d.key} ${id} (or holds it with other values)`,
        subject: { table: d.table, [d.key]: Number(r.id), side: r.side },
      });
    }
  }
}

async function checkDerivedIndexTriggers(tx: Queryable, out: Violation[]): Promise<void> {
  const wanted = DERIVED_INDEXES.flatMap((d) => d.triggers);
  const { rows } = await tx.query<TriggerRow & { trigger_name: string }>(
    `SELECT c.relname AS table_name, t.tgname AS trigger_name, t.tgtype::int AS tgtype,
            t.tgenabled::text AS tgenabled, p.proname AS function_name
       FROM pg_catalog.pg_trigger t
       JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid
      WHERE n.nspname = 'public' AND NOT t.tgisinternal AND t.tgname = ANY ($1::text[])`,
    [wanted.map((w) => w.trigger)],
  );
  for (const want of wanted) {
    const got = rows.find((r) => r.table_name === want.table && r.trigger_name === want.trigger);
    const fault =
      got === undefined
        ? "is missing"
        : got.function_name !== want.fn
          ? `calls ${got.function_name}, not ${want.fn}`
          : got.tgenabled !== "A"
            ? "does not fire always (ENABLE ALWAYS)"
            : null;
    if (fault !== null) {
      out.push({
        rule: AuditRule.derived_index,
        detail: `trigger ${want.trigger} on ${want.table} ${fault}`,
        subject: { table: want.table, trigger: want.trigger },
      });
    }
  }
}
