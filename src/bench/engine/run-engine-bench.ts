/**
 * bench/engine/run-engine-bench — runs the whole engine benchmark in one go: per-effect cost
 * on PGlite and on Postgres (with the commit floor of each), throughput with 1, 2, 4, 8
 * engine processes on Postgres, and the physical limit (single-row insert commits/s) of the
 * same server, guarded effects piling up in one busy scope on both backends (bench/engine/
 * busy-scope), recovery of a backlog of AMBIGUOUS effects on both backends (and the same
 * backlog against a destination with latency, single status queries vs batched), and startup
 * (embedded open, demo, CLI), all measured in the same run. Returns the report; scripts/bench-engine.ts writes
 * it. A run without a reachable Postgres server measures PGlite only and says so.
 * Imports: db, bench.
 */
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { readFileSync } from "node:fs";
import pg from "pg";
import { createPgliteBenchDatabase, createPostgresBenchDatabase } from "./bench-database.js";
import { BUSY_SCOPE_KEY, measureBusyScope, type BusyScopeRun } from "./busy-scope.js";
import { measureInsertThroughput, type PhysicalLimitRun } from "./commit-floor.js";
import { measurePerEffect, type PerEffectResult } from "./per-effect.js";
import { measureRecovery, type RecoveryRun } from "./recovery-bench.js";
import {
  measureRecoveryBatching,
  RECOVERY_BATCHING_KEY,
  type RecoveryBatchingRun,
} from "./recovery-batching.js";
import { judgeAll, type EngineBenchReport, type HostInfo, type MeasuredRun } from "./report.js";
import { measureStartup, type StartupResult } from "./startup.js";
import { measureThroughput, type ThroughputRun } from "./throughput.js";

export interface EngineBenchOptions {
  /** Server for the Postgres parts (a database is created and dropped); null = PGlite only. */
  readonly postgresUrl: string | null;
  readonly effects: number;
  readonly warmup: number;
  readonly workers: readonly number[];
  readonly throughputMs: number;
  readonly physicalConnections: readonly number[];
  readonly physicalMs: number;
  /** How the run was started (recorded in the report). */
  readonly command: string;
  readonly backends?: readonly ("pglite" | "postgres")[];
  /** Fresh-process runs of each startup figure (embedded open, --help); 0 skips startup. */
  readonly startupRuns?: number;
  /** Demo runs under GNU time (default 3); on Postgres too when a server is reachable. */
  readonly demoRuns?: number;
  /** AMBIGUOUS effects in the recovery measurement, per backend; 0 or absent skips it. */
  readonly recoveryEffects?: number;
  /**
   * Destination latency (ms per status call) of the single-vs-batched recovery comparison,
   * run on the same number of effects after the recovery row; 0 or absent skips it.
   */
  readonly recoveryLatencyMs?: number;
  /** `queryable.batch_max` of the batched side of that comparison (default 100). */
  readonly recoveryBatchMax?: number;
  /**
   * Effects sent into one (scope, effect_type) slot, per backend, after the per-effect loops
   * (bench/engine/busy-scope); 0 or absent skips it. The first and last `busyScopeWindow`
   * (default a tenth) are compared.
   */
  readonly busyScopeEffects?: number;
  readonly busyScopeWindow?: number;
  /** Progress lines (stderr in the script). */
  readonly log?: (line: string) => void;
}

/** Full-size defaults (`npm run bench:engine`). */
export const FULL_BENCH: Omit<EngineBenchOptions, "postgresUrl" | "command"> = {
  effects: 1_000,
  warmup: 100,
  workers: [1, 2, 4, 8],
  throughputMs: 8_000,
  physicalConnections: [1, 2, 4, 8],
  physicalMs: 4_000,
  startupRuns: 5,
  demoRuns: 3,
  recoveryEffects: 200,
  recoveryLatencyMs: 20,
  busyScopeEffects: 2_000,
  busyScopeWindow: 200,
};

function pgliteVersion(): string {
  try {
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
    const pkg = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "unknown";
  } catch {
    return "unknown";
  }
}

async function serverInfo(
  url: string,
): Promise<{ version: string; durability: Record<string, string> } | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
    const version = (await c.query<{ v: string }>("SELECT version() AS v")).rows[0]?.v ?? "";
    const durability: Record<string, string> = {};
    for (const name of ["fsync", "synchronous_commit", "wal_sync_method", "full_page_writes"]) {
      durability[name] =
        (await c.query<{ s: string }>(`SELECT current_setting('${name}') AS s`)).rows[0]?.s ?? "";
    }
    return { version: version.split(" on ")[0] ?? version, durability };
  } catch {
    return null;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Runs the benchmark (see the file header). */
export async function runEngineBench(options: EngineBenchOptions): Promise<EngineBenchReport> {
  const log = options.log ?? (() => undefined);
  const loadAtStart = loadavg()[0] ?? 0;
  const server = options.postgresUrl === null ? null : await serverInfo(options.postgresUrl);
  const backends = options.backends ?? ["pglite", "postgres"];
  const tag = Date.now().toString(36);
  const perEffect: PerEffectResult[] = [];
  const throughput: ThroughputRun[] = [];
  const physicalLimit: PhysicalLimitRun[] = [];
  const recovery: RecoveryRun[] = [];
  const recoveryEffects = options.recoveryEffects ?? 0;
  const recoveryBatching: RecoveryBatchingRun[] = [];
  const latencyMs = options.recoveryLatencyMs ?? 0;
  const busyScope: BusyScopeRun[] = [];
  const busyEffects = options.busyScopeEffects ?? 0;
  const measureScope = async (db: Parameters<typeof measureBusyScope>[0]): Promise<void> => {
    if (busyEffects === 0) return;
    log(`one busy scope on ${db.backend}: ${busyEffects} effects`);
    busyScope.push(
      await measureBusyScope(db, {
        effects: busyEffects,
        window: options.busyScopeWindow ?? Math.max(1, Math.floor(busyEffects / 10)),
        tag,
      }),
    );
  };
  const compareBatching = async (
    db: Parameters<typeof measureRecoveryBatching>[0],
  ): Promise<void> => {
    if (recoveryEffects === 0 || latencyMs === 0) return;
    log(
      `recovery on ${db.backend}: ${recoveryEffects} AMBIGUOUS effects, ${latencyMs} ms destination latency, single vs batched`,
    );
    recoveryBatching.push(
      await measureRecoveryBatching(db, {
        effects: recoveryEffects,
        latencyMs,
        batchMax: options.recoveryBatchMax ?? 100,
        tag,
      }),
    );
  };

  if (backends.includes("pglite")) {
    log(`per-effect on pglite: ${options.effects} effects`);
    const db = await createPgliteBenchDatabase();
    try {
      perEffect.push(
        await measurePerEffect(db, { effects: options.effects, warmup: options.warmup, tag }),
      );
      await measureScope(db);
      if (recoveryEffects > 0) {
        log(`recovery on pglite: ${recoveryEffects} AMBIGUOUS effects`);
        recovery.push(await measureRecovery(db, { effects: recoveryEffects, tag }));
      }
      await compareBatching(db);
    } finally {
      await db.close();
    }
  }
  if (server !== null && options.postgresUrl !== null && backends.includes("postgres")) {
    log(`per-effect on postgres: ${options.effects} effects`);
    const db = await createPostgresBenchDatabase(options.postgresUrl);
    try {
      perEffect.push(
        await measurePerEffect(db, { effects: options.effects, warmup: options.warmup, tag }),
      );
      await measureScope(db);
      for (const workers of options.workers) {
        log(`throughput: ${workers} worker process(es) for ${options.throughputMs} ms`);
        throughput.push(
          await measureThroughput(
            db.url ?? "",
            workers,
            options.throughputMs,
            `${tag}-t${workers}`,
          ),
        );
      }
      if (recoveryEffects > 0) {
        log(`recovery on postgres: ${recoveryEffects} AMBIGUOUS effects`);
        recovery.push(await measureRecovery(db, { effects: recoveryEffects, tag }));
      }
      await compareBatching(db);
      for (const connections of options.physicalConnections) {
        log(`physical limit: ${connections} connection(s) for ${options.physicalMs} ms`);
        physicalLimit.push(
          await measureInsertThroughput(db.url ?? "", connections, options.physicalMs),
        );
      }
    } finally {
      await db.close();
    }
  } else if (backends.includes("postgres")) {
    log("Postgres unreachable: PGlite only");
  }

  let startup: StartupResult | null = null;
  if ((options.startupRuns ?? 0) > 0) {
    startup = await measureStartup({
      runs: options.startupRuns ?? 0,
      demoRuns: options.demoRuns ?? 3,
      postgresUrl: server === null ? null : options.postgresUrl,
      log,
    });
  }

  const host: HostInfo = {
    cpus: cpus().length,
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    postgres: server?.version ?? null,
    pglite: pgliteVersion(),
    durability: server?.durability ?? null,
    loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
  };
  const run: MeasuredRun = {
    command: options.command,
    host,
    perEffect,
    throughput,
    physicalLimit,
    recovery,
    startup,
    extra: {
      ...(recoveryBatching.length === 0 ? {} : { [RECOVERY_BATCHING_KEY]: recoveryBatching }),
      ...(busyScope.length === 0 ? {} : { [BUSY_SCOPE_KEY]: busyScope }),
    },
  };
  return {
    format: "irrevon-bench-engine/v1",
    generatedAt: new Date().toISOString(),
    ...run,
    config: {
      effects: options.effects,
      warmup: options.warmup,
      workers: options.workers,
      throughput_ms: options.throughputMs,
      physical_connections: options.physicalConnections,
      physical_ms: options.physicalMs,
      recovery_effects: recoveryEffects,
      recovery_latency_ms: latencyMs,
      busy_scope_effects: busyEffects,
      destination: "in-process reference destination (C2), zero latency",
    },
    targets: judgeAll(run),
  };
}
