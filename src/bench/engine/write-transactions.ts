/**
 * bench/engine/write-transactions — counts durable commits by reading the data they left.
 * Only a transaction that was assigned a transaction id writes and flushes a commit record;
 * the ledger is append-only, so every such transaction inserted at least one row, and that
 * row's `xmin` is its id. The distinct `xmin`s that appear between two snapshots are the
 * write transactions that committed in between — counted, not estimated, and the same SQL
 * on PGlite and Postgres. Lease upkeep (rows only in worker_leases) is reported apart.
 * Imports: db.
 */
import type { Queryable } from "../../db/db.js";

/** Every table of the public schema (the ledger's fact tables and the bench's scratch table). */
async function publicTables(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  return rows.map((r) => r.table_name).filter((t) => /^[a-z_][a-z0-9_]*$/.test(t));
}

/** xid → the tables it wrote rows into. */
export type WriteMap = ReadonlyMap<string, ReadonlySet<string>>;

/** Reads which transaction ids wrote which tables (run as a role that can read them all). */
export async function writeMap(q: Queryable): Promise<WriteMap> {
  const tables = await publicTables(q);
  const out = new Map<string, Set<string>>();
  for (const table of tables) {
    const { rows } = await q.query<{ x: string }>(`SELECT DISTINCT xmin::text AS x FROM ${table}`);
    for (const { x } of rows) {
      const set = out.get(x) ?? new Set<string>();
      set.add(table);
      out.set(x, set);
    }
  }
  return out;
}

/** Durable commits between two snapshots, split into ledger work and lease upkeep. */
export interface WriteCount {
  readonly total: number;
  /** Transactions that wrote only worker_leases (registration, renewal, release). */
  readonly leaseOnly: number;
  /** The rest: the engine's ledger writes. */
  readonly ledger: number;
}

export function writesBetween(before: WriteMap, after: WriteMap): WriteCount {
  let total = 0;
  let leaseOnly = 0;
  for (const [xid, tables] of after) {
    if (before.has(xid)) continue;
    total += 1;
    if ([...tables].every((t) => t === "worker_leases")) leaseOnly += 1;
  }
  return { total, leaseOnly, ledger: total - leaseOnly };
}
