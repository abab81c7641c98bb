/**
 * bench/engine/per-effect — the cost of one guarded effect (register + claim + record) next
 * to the same call made straight to a zero-latency destination, on one backend, along both
 * paths (bench/engine/bench-effects `GuardedPath`): register-and-dispatch-now (fused, the one
 * the per-effect goals are judged on) and register then dispatch (two calls), each measured in
 * its own loop with its own counts: the durable commits, transactions and statements one clean
 * effect costs and, on Postgres, what the server counted (commits, WAL records:
 * bench/engine/server-stats). Plus the commit floor of the same database. Imports: db,
 * engine, bench.
 */
import { DbRole } from "../../db/db.js";
import { openPostgres } from "../../db/pg-driver.js";
import type { BenchDatabase } from "./bench-database.js";
import type { RefdestAdapter } from "../../adapters/refdest-adapter.js";
import {
  benchContract,
  directOrder,
  guardedEffect,
  openBenchEngine,
  zeroLatencyAdapter,
  type GuardedPath,
} from "./bench-effects.js";
import { measureCommitFloor, type CommitFloor } from "./commit-floor.js";
import { countingDb, roundTripsOf, zeroCounts, type DbCounts } from "./counting-db.js";
import { readServerCounters, serverDeltas, type ServerDeltas } from "./server-stats.js";
import { elapsedMs, summarize, type LatencySummary } from "./stats.js";
import { writeMap, writesBetween } from "./write-transactions.js";

/** Per clean effect, counted over the measured loop. */
export interface CommitsPerEffect {
  /** Durable (transaction-id-bearing) commits, lease upkeep included. */
  readonly durable: number;
  /** Durable commits that wrote the ledger (lease upkeep excluded). */
  readonly durableLedger: number;
  readonly leaseOnly: number;
  /** Explicit transactions the engine opened (read-only ones included). */
  readonly transactions: number;
  readonly statementsInTransactions: number;
  /** Statements run on their own (each its own implicit transaction). */
  readonly standaloneStatements: number;
  /** Postgres only: pg_stat_database.xact_commit delta (every commit, read-only included; ±3/run). */
  readonly xactCommit: number | null;
  /**
   * Round trips to the database as the driver sees them: every statement plus BEGIN and
   * COMMIT of each explicit transaction.
   */
  readonly roundTrips: number;
  /** Postgres only: server counters per effect (pg_stat_database, pg_stat_wal; see server-stats). */
  readonly server: ServerDeltas | null;
}

/** One path's measured loop. */
export interface PathMeasurement {
  readonly guarded: LatencySummary;
  readonly commitsPerEffect: CommitsPerEffect;
}

export interface PerEffectResult {
  readonly backend: BenchDatabase["backend"];
  readonly effects: number;
  readonly direct: LatencySummary;
  /** Register-and-dispatch-now (`registerAndDispatch`): the path the per-effect goals judge. */
  readonly guarded: LatencySummary;
  readonly commitsPerEffect: CommitsPerEffect;
  /** `register` then `dispatch`, measured the same way in a loop of its own (reported only). */
  readonly twoCall: PathMeasurement;
  readonly floor: CommitFloor;
}

const settleFor = (db: BenchDatabase) => (): Promise<void> =>
  db.backend === "postgres"
    ? new Promise((resolve) => setTimeout(resolve, 500))
    : Promise.resolve();

/** Times and counts `effects` clean effects sent along `path` by a fresh engine. */
async function measurePath(
  db: BenchDatabase,
  adapter: RefdestAdapter,
  path: GuardedPath,
  options: { readonly effects: number; readonly tag: string },
): Promise<PathMeasurement> {
  const settle = settleFor(db);
  const guarded: number[] = [];
  const tag = `${options.tag}-${path}`;
  // On Postgres the measured engine gets a pool of its own, so closing it ends its sessions
  // (and the server flushes their statistics): the xact_commit delta is then complete.
  const appDb =
    db.url === null
      ? db.root.as(DbRole.app)
      : await openPostgres({ url: db.url, role: DbRole.app });
  const counting = countingDb(appDb);
  const engine = await openBenchEngine(counting, adapter, `bench-${db.backend}-${tag}`);
  await settle();
  const before = await writeMap(db.root);
  const serverBefore = await readServerCounters(db.root, db.backend);
  Object.assign(counting.counts, zeroCounts());
  let counts: DbCounts;
  let writes: ReturnType<typeof writesBetween>;
  try {
    for (let i = 0; i < options.effects; i++) {
      const t = process.hrtime.bigint();
      await guardedEffect(engine, benchContract(tag, i), path);
      guarded.push(elapsedMs(t));
    }
    // Counted before the engine closes: its lease release at close belongs to no effect, as
    // its lease registration at open does not (renewals during the loop are counted).
    counts = { ...counting.counts };
    writes = writesBetween(before, await writeMap(db.root));
  } finally {
    await engine.close();
    if (db.url !== null) await appDb.close();
  }
  // Closing ended the engine's sessions; a backend flushes its statistics as it exits.
  await settle();
  const serverAfter = await readServerCounters(db.root, db.backend);
  const n = options.effects;
  const server = serverDeltas(serverBefore, serverAfter, n);
  return {
    guarded: summarize(guarded),
    commitsPerEffect: {
      durable: writes.total / n,
      durableLedger: writes.ledger / n,
      leaseOnly: writes.leaseOnly / n,
      transactions: counts.transactions / n,
      statementsInTransactions: counts.statementsInTransactions / n,
      standaloneStatements: counts.standaloneStatements / n,
      // Includes a few of the bench's own reads (their session flushes at most once a second).
      xactCommit: server?.xactCommit ?? null,
      roundTrips: roundTripsOf(counts) / n,
      server,
    },
  };
}

/**
 * Runs the per-effect measurement on `db` (a fresh, migrated ledger): the direct calls, then
 * the fused path's loop, then the two-call path's loop (the later loop runs on a ledger that
 * holds the earlier one's effects), then the commit floor.
 */
export async function measurePerEffect(
  db: BenchDatabase,
  options: { readonly effects: number; readonly warmup: number; readonly tag: string },
): Promise<PerEffectResult> {
  const adapter = zeroLatencyAdapter();
  const direct: number[] = [];
  // Warm-up runs on its own engine, closed before counting starts: a Postgres backend flushes
  // its statistics when it exits, so nothing of the warm-up leaks into the xact_commit delta.
  const warm = await openBenchEngine(
    db.root.as(DbRole.app),
    adapter,
    `bench-${db.backend}-${options.tag}-warm`,
  );
  try {
    for (let i = 0; i < options.warmup; i++) {
      await adapter.dispatch(directOrder(`${options.tag}w`, i), 30_000);
      for (const path of ["fused", "two_call"] as const)
        await guardedEffect(warm, benchContract(`${options.tag}w-${path}`, i), path);
    }
  } finally {
    await warm.close();
  }
  for (let i = 0; i < options.effects; i++) {
    const t = process.hrtime.bigint();
    const r = await adapter.dispatch(directOrder(options.tag, i), 30_000);
    direct.push(elapsedMs(t));
    if (r.transportOutcome !== "OK") throw new Error(`direct call failed: ${JSON.stringify(r)}`);
  }
  const fused = await measurePath(db, adapter, "fused", options);
  const twoCall = await measurePath(db, adapter, "two_call", options);
  const n = options.effects;
  const floor = await measureCommitFloor(db.root, Math.max(20, Math.min(n, 500)));
  return {
    backend: db.backend,
    effects: n,
    direct: summarize(direct),
    guarded: fused.guarded,
    commitsPerEffect: fused.commitsPerEffect,
    twoCall,
    floor,
  };
}
