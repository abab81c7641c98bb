/**
 * bench/engine/recovery-bench — "recovery of 200": a backlog of AMBIGUOUS effects (the
 * response of every create was dropped: half after the destination committed, half before)
 * is left by one engine, then a fresh engine's `recover()` adjudicates them all. Timed is the
 * recovery call alone; every effect must end settled (PRESENT ⇒ COMMITTED, twice ABSENT ⇒
 * LOST, re-read gap 0) with no errors, or the run throws. The destination is the in-process
 * reference destination (zero latency), so the figure is the engine's own cost; `latencyMs`
 * makes every status call take that long (a DELAY fault on the destination's reads) and
 * `batchMax` declares its batch status lookup, for the single-vs-batched comparison
 * (bench/engine/recovery-batching).
 * Imports: db, engine, refdest, bench.
 */
import { refdestDeclaration } from "../../adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../adapters/refdest-adapter.js";
import { DbRole, type Db } from "../../db/db.js";
import { openPostgres } from "../../db/pg-driver.js";
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from "../../engine/config.js";
import { NO_CRASH_POINTS } from "../../engine/crash-points.js";
import { openIrrevon } from "../../engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../refdest/index.js";
import type { BenchDatabase } from "./bench-database.js";
import { benchContract } from "./bench-effects.js";
import { countingDb, roundTripsOf, zeroCounts } from "./counting-db.js";
import { postmasterOfSession, serverCpuMsBetween, serverCpuSnapshot } from "./server-cpu.js";
import { elapsedMs } from "./stats.js";

/** One recovery-of-N measurement. */
export interface RecoveryRun {
  readonly backend: BenchDatabase["backend"];
  readonly effects: number;
  /** `recoveryConcurrency` the recovering engine ran with. */
  readonly concurrency: number;
  /** `recoveryLedgerConcurrency`: how many of the lanes may be at a Postgres ledger at once. */
  readonly ledgerConcurrency: number;
  readonly pageSize: number;
  readonly wallMs: number;
  readonly adjudicated: number;
  /** Status queries the destination answered during recovery (2 per absent effect, 1 per present). */
  readonly statusQueries: number;
  /** Round trips to the ledger per effect (statements + transactions, counted by the driver wrapper). */
  readonly roundTripsPerEffect: number;
  /** Explicit transactions per effect. */
  readonly transactionsPerEffect: number;
  /** Effect records in the ledger when recovery ran (earlier phases of the run included). */
  readonly ledgerEffects?: number;
  /** Set when the run was asked for a destination latency (ms added to every status call). */
  readonly latencyMs?: number;
  /** Set when the destination declared batch status lookups (`queryable.batch_max`). */
  readonly batchMax?: number;
  /**
   * Status calls on the wire during recovery — single queries plus batch calls (set with
   * `latencyMs` or `batchMax`); `batchCalls` of them were `POST /effects/status`.
   */
  readonly wireCalls?: number;
  readonly batchCalls?: number;
  /**
   * CPU milliseconds per effect during the recovery call: this process's (the engine, its
   * in-process destination and, on PGlite, the embedded database), and the local server's
   * processes (/proc, bench/engine/server-cpu; null on PGlite or where unreadable).
   */
  readonly engineCpuMsPerEffect: number;
  readonly serverCpuMsPerEffect: number | null;
}

/** Operations of the reference destination that are status calls on the wire. */
const STATUS_OPS = new Set(["get", "query", "query_batch"]);

const DEADLINE_MS = 1_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Builds the backlog on `db` and times one recovery of it. */
export async function measureRecovery(
  db: BenchDatabase,
  options: {
    readonly effects: number;
    readonly tag: string;
    readonly config?: Partial<EngineConfig>;
    /** Wraps the recovering engine's handle (e.g. a per-statement profiler). */
    readonly wrapDb?: (db: Db) => Db;
    /**
     * Real milliseconds the destination takes to answer each status call during recovery (a
     * DELAY fault on every read; the backlog's creates are not delayed). Default 0.
     */
    readonly latencyMs?: number;
    /** Declare the destination's batch status lookup (`queryable.batch_max`). Default: none. */
    readonly batchMax?: number;
  },
): Promise<RecoveryRun> {
  const refdest = createRefdest({ tier: "C2", seed: 7 });
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:9",
    declaration: refdestDeclaration(
      "C2",
      options.batchMax === undefined ? {} : { batchMax: options.batchMax },
    ),
    transport: createInProcessTransport(refdest),
  });
  const config: Partial<EngineConfig> = {
    rereadGapSeconds: 0,
    dispatchDeadlineMs: DEADLINE_MS,
    probeDeadlineMs: DEADLINE_MS,
    leaseTtlMs: 3 * DEADLINE_MS + 1_000,
    ...options.config,
  };
  const open = (database: Db, workerId: string) =>
    openIrrevon({
      database,
      adapters: [adapter],
      crashPoints: NO_CRASH_POINTS,
      workerId,
      config,
    });
  const tag = `${options.tag}r`;
  const writer = await open(db.root.as(DbRole.app), `bench-${db.backend}-${tag}-writer`);
  try {
    for (let i = 0; i < options.effects; i++) {
      refdest.schedule([
        {
          fault: i % 2 === 0 ? "DROP_RESPONSE_AFTER_COMMIT" : "DROP_RESPONSE_BEFORE_COMMIT",
          match: { op: "create" },
        },
      ]);
      const { effectId } = await writer.register(benchContract(tag, i));
      const out = await writer.dispatch(effectId);
      if (out.status !== "dispatched" || out.lifecycle !== "AMBIGUOUS")
        throw new Error(`recovery backlog: effect ${i} is not AMBIGUOUS: ${JSON.stringify(out)}`);
    }
  } finally {
    await writer.close();
  }
  // The absence rule: an ABSENT read counts only after the call's deadline has passed.
  await sleep(DEADLINE_MS + 200);

  // How big the ledger is: recovery's page of open executions reads every execution's frontier.
  const { rows: sizeRows } = await db.root.query<{ n: unknown }>(
    "SELECT count(*) AS n FROM effect_records",
  );
  const ledgerEffects = Number(sizeRows[0]?.n ?? 0);
  // The recovering engine gets a pool of its own on Postgres, large enough for its concurrency.
  const concurrency = config.recoveryConcurrency ?? 8;
  const appDb =
    db.url === null
      ? db.root.as(DbRole.app)
      : await openPostgres({ url: db.url, role: DbRole.app, poolMax: concurrency + 2 });
  const counting = countingDb(options.wrapDb === undefined ? appDb : options.wrapDb(appDb));
  const engine = await open(counting, `bench-${db.backend}-${tag}-recoverer`);
  Object.assign(counting.counts, zeroCounts());
  const latencyMs = options.latencyMs ?? 0;
  if (latencyMs > 0) {
    refdest.schedule(
      [...STATUS_OPS].map((op) => ({
        fault: "DELAY",
        match: { op },
        param: { ms: latencyMs },
        once: false,
      })),
    );
  }
  const logBefore = refdest.requestLog().length;
  const postmaster = db.url === null ? null : await postmasterOfSession(db.root);
  try {
    const serverBefore = postmaster === null ? null : serverCpuSnapshot(postmaster);
    const cpuBefore = process.cpuUsage();
    const t = process.hrtime.bigint();
    const report = await engine.recover();
    const wallMs = elapsedMs(t);
    const cpu = process.cpuUsage(cpuBefore);
    const serverAfter = postmaster === null ? null : serverCpuSnapshot(postmaster);
    const server =
      serverBefore === null || serverAfter === null
        ? null
        : serverCpuMsBetween(serverBefore, serverAfter);
    if (report.errors.length > 0 || report.adjudicated !== options.effects)
      throw new Error(
        `recovery bench: expected ${options.effects} adjudicated, got ${report.adjudicated} ` +
          `(errors ${JSON.stringify(report.errors.slice(0, 3))})`,
      );
    // What the destination was asked during recovery alone.
    const log = refdest.requestLog().slice(logBefore);
    const queries = log.filter((e) => e.op === "query" || e.op === "get").length;
    return {
      backend: db.backend,
      effects: options.effects,
      concurrency,
      ledgerConcurrency:
        config.recoveryLedgerConcurrency ?? DEFAULT_ENGINE_CONFIG.recoveryLedgerConcurrency,
      pageSize: config.recoveryPageSize ?? 100,
      wallMs,
      adjudicated: report.adjudicated,
      statusQueries: queries,
      roundTripsPerEffect: roundTripsOf(counting.counts) / options.effects,
      transactionsPerEffect: counting.counts.transactions / options.effects,
      ledgerEffects,
      engineCpuMsPerEffect: (cpu.user + cpu.system) / 1000 / options.effects,
      serverCpuMsPerEffect: server === null ? null : server.cpuMs / options.effects,
      ...(options.latencyMs === undefined && options.batchMax === undefined
        ? {}
        : wireFigures(log, latencyMs, options.batchMax)),
    };
  } finally {
    await engine.close();
    if (db.url !== null) await appDb.close();
  }
}

/** The wire figures of a run with a latency or batch lookups (see RecoveryRun). */
function wireFigures(
  log: readonly { readonly op: string }[],
  latencyMs: number,
  batchMax: number | undefined,
): Pick<RecoveryRun, "latencyMs" | "batchMax" | "wireCalls" | "batchCalls"> {
  return {
    latencyMs,
    ...(batchMax === undefined ? {} : { batchMax }),
    wireCalls: log.filter((e) => STATUS_OPS.has(e.op)).length,
    batchCalls: log.filter((e) => e.op === "query_batch").length,
  };
}
