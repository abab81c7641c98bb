/**
 * bench/engine/commit-floor — what a commit costs on the database under test, measured in
 * the same run and with the same durability settings as the engine: an empty transaction
 * (BEGIN/COMMIT, no transaction id, nothing flushed) and a single-row INSERT committed on
 * its own (one durable commit). Also the physical limit: single-row insert commits per
 * second with 1…N concurrent connections on the Postgres server. Imports: db, bench.
 */
import pg from "pg";
import type { PrivilegedDb } from "../../db/db.js";
import { elapsedMs, summarize, type LatencySummary } from "./stats.js";

const FLOOR_TABLE = "bench_commit_floor";

async function ensureFloorTable(q: { query: PrivilegedDb["query"] }): Promise<void> {
  await q.query(
    `CREATE TABLE IF NOT EXISTS ${FLOOR_TABLE} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`,
  );
}

/** Latency of the two floors on `root`'s database. */
export interface CommitFloor {
  readonly emptyTransaction: LatencySummary;
  readonly durableInsert: LatencySummary;
}

export async function measureCommitFloor(
  root: PrivilegedDb,
  samples: number,
): Promise<CommitFloor> {
  await ensureFloorTable(root);
  const empty: number[] = [];
  const insert: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(samples / 10)); i++) {
    await root.transaction(() => Promise.resolve());
    await root.query(`INSERT INTO ${FLOOR_TABLE} DEFAULT VALUES`);
  }
  for (let i = 0; i < samples; i++) {
    let t = process.hrtime.bigint();
    await root.transaction(() => Promise.resolve());
    empty.push(elapsedMs(t));
    t = process.hrtime.bigint();
    await root.query(`INSERT INTO ${FLOOR_TABLE} DEFAULT VALUES`);
    insert.push(elapsedMs(t));
  }
  return { emptyTransaction: summarize(empty), durableInsert: summarize(insert) };
}

/** Single-row insert commits per second with `connections` concurrent sessions. */
export interface PhysicalLimitRun {
  readonly connections: number;
  readonly commits: number;
  readonly durationMs: number;
  readonly commitsPerSecond: number;
}

export async function measureInsertThroughput(
  url: string,
  connections: number,
  durationMs: number,
): Promise<PhysicalLimitRun> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const c = new pg.Client({ connectionString: url });
      c.on("error", () => undefined);
      await c.connect();
      return c;
    }),
  );
  try {
    await ensureFloorTable(clients[0] as pg.Client);
    const started = process.hrtime.bigint();
    const counts = await Promise.all(
      clients.map(async (c) => {
        let n = 0;
        while (elapsedMs(started) < durationMs) {
          await c.query(`INSERT INTO ${FLOOR_TABLE} DEFAULT VALUES`);
          n += 1;
        }
        return n;
      }),
    );
    const elapsed = elapsedMs(started);
    const commits = counts.reduce((s, n) => s + n, 0);
    return {
      connections,
      commits,
      durationMs: elapsed,
      commitsPerSecond: commits / (elapsed / 1000),
    };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
