/**
 * bench/engine/server-stats — what the Postgres server itself counted over a measured loop:
 * `pg_stat_database` (this run's database only: commits, rollbacks) and `pg_stat_wal` (WAL
 * records, full-page images, bytes; PostgreSQL 14+). pg_stat_wal is cluster-wide, so other
 * sessions on the same server during the loop are counted too: the report says so. The
 * snapshot clears the statistics cache first, so a reading is current; a backend's counters
 * reach the views when it goes idle (≤ 1 s) or exits. PGlite has no such views: null.
 * Imports: db.
 */
import type { Queryable } from "../../db/db.js";

/** One reading of the server counters. */
export interface ServerCounters {
  readonly xactCommit: number;
  readonly xactRollback: number;
  /** null where pg_stat_wal does not exist (PostgreSQL < 14). */
  readonly walRecords: number | null;
  readonly walFpi: number | null;
  readonly walBytes: number | null;
}

/** Reads the counters (Postgres only; null on PGlite). */
export async function readServerCounters(
  q: Queryable,
  backend: "pglite" | "postgres",
): Promise<ServerCounters | null> {
  if (backend !== "postgres") return null;
  await q.query("SELECT pg_stat_clear_snapshot()");
  const db = await q.query<{ c: string | number; r: string | number }>(
    "SELECT xact_commit AS c, xact_rollback AS r FROM pg_stat_database WHERE datname = current_database()",
  );
  let wal: { n: string | number; f: string | number; b: string | number } | undefined;
  try {
    wal = (
      await q.query<{ n: string | number; f: string | number; b: string | number }>(
        "SELECT wal_records AS n, wal_fpi AS f, wal_bytes AS b FROM pg_stat_wal",
      )
    ).rows[0];
  } catch {
    wal = undefined;
  }
  return {
    xactCommit: Number(db.rows[0]?.c ?? 0),
    xactRollback: Number(db.rows[0]?.r ?? 0),
    walRecords: wal === undefined ? null : Number(wal.n),
    walFpi: wal === undefined ? null : Number(wal.f),
    walBytes: wal === undefined ? null : Number(wal.b),
  };
}

/** Per-unit deltas between two readings (null when either is missing). */
export interface ServerDeltas {
  readonly xactCommit: number;
  readonly xactRollback: number;
  readonly walRecords: number | null;
  readonly walFpi: number | null;
  readonly walBytes: number | null;
}

/** (after − before) / `per`, field by field. */
export function serverDeltas(
  before: ServerCounters | null,
  after: ServerCounters | null,
  per: number,
): ServerDeltas | null {
  if (before === null || after === null) return null;
  const d = (a: number | null, b: number | null): number | null =>
    a === null || b === null ? null : (a - b) / per;
  return {
    xactCommit: (after.xactCommit - before.xactCommit) / per,
    xactRollback: (after.xactRollback - before.xactRollback) / per,
    walRecords: d(after.walRecords, before.walRecords),
    walFpi: d(after.walFpi, before.walFpi),
    walBytes: d(after.walBytes, before.walBytes),
  };
}
