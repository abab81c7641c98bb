/**
 * workbench/queries/health — the read-only health check behind `/api/v1/health`: the
 * database answers, the session really is `irrevon_read` in a read-only transaction, and
 * every ledger relation the views read exists. Results only say `ok` or `fail` per check
 * (no driver text). Imports: db, workbench.
 */
import type { Queryable } from "../../db/db.js";
import { FACT_TABLES, SEED_TABLES } from "../../db/ledger-tables.js";

/** Relations the workbench reads. */
export const READ_RELATIONS: readonly string[] = [
  ...FACT_TABLES,
  ...SEED_TABLES,
  "worker_leases",
  "execution_escalations",
  "execution_frontiers",
  "effect_frontiers",
  "open_attempts",
];

export type CheckStatus = "ok" | "fail";

/** One named check. */
export interface HealthCheck {
  readonly name: "storage" | "read_role" | "read_only" | "schema";
  readonly status: CheckStatus;
}

/** Runs the checks inside the caller's read-only transaction. */
export async function runHealthChecks(q: Queryable): Promise<HealthCheck[]> {
  const { rows } = await q.query<{ role: string; read_only: string; missing: unknown }>(
    `SELECT current_user AS role, current_setting('transaction_read_only') AS read_only,
            (SELECT count(*) FROM unnest($1::text[]) AS t(name) WHERE to_regclass('public.' || t.name) IS NULL) AS missing`,
    [READ_RELATIONS],
  );
  const row = rows[0];
  return [
    { name: "storage", status: row === undefined ? "fail" : "ok" },
    { name: "read_role", status: row?.role === "irrevon_read" ? "ok" : "fail" },
    { name: "read_only", status: row?.read_only === "on" ? "ok" : "fail" },
    { name: "schema", status: row !== undefined && Number(row.missing) === 0 ? "ok" : "fail" },
  ];
}
