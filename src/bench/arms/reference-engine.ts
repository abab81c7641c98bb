/**
 * bench/arms/reference-engine — how arm R opens this engine for one unit, through the public
 * API only (src/index.ts): the adapter for the unit's refdest tier (its declaration states
 * the read lag, when the cell has one), the benchmark's engine config, and the database:
 *   - PGlite: an in-memory clone of the migrated image, or — for cells that crash a child
 *     process — a file-backed data directory per unit (cloned from the same image on first
 *     open) that the child and, after it died, the parent open in turn;
 *   - Postgres: a fresh database per unit, `CREATE DATABASE … TEMPLATE` a migrated template
 *     database (built once per process, under an advisory lock), dropped at the unit's end.
 * Units without a crash fault do not get a database of their own: one ledger per process and
 * backend (`sharedLedger`) holds them all, each unit in its own namespace (see unitNamespace),
 * because an embedded open costs seconds on a loaded machine. Crash units keep their own
 * database (the child process must open it; recovery must see that unit alone).
 * Imports: the package entry (src/index.ts), pg.
 */
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import pg from "pg";
import {
  migrationSetDigest,
  openIrrevon,
  refdestDeclaration,
  RefdestAdapter,
  type DatabaseOption,
  type Db,
  type EngineConfig,
  type Irrevon,
} from "../../index.js";

/** Engine tunables for the benchmark (recorded in the arm's config). */
export const BENCH_ENGINE_CONFIG: Partial<EngineConfig> = {
  rereadGapSeconds: 0,
  // Short enough that a crashed child's lease runs out quickly, long enough for a cold child's
  // first request on a loaded machine (a deadline only delays absence; it never decides it).
  dispatchDeadlineMs: 2_000,
  probeDeadlineMs: 2_000,
  leaseTtlMs: 5_000,
  backoffBaseSeconds: 1,
};

/** Read lag of the extension's read-lag cell: R's declaration for that cell states it. */
export { READ_LAG_SECONDS } from "../fault-model.js";

/**
 * The crash child's tunables: a shorter lease, so the parent's recovery need not wait long
 * for the dead child's lease to run out (a deadline it misses only delays absence).
 */
export const CRASH_CHILD_ENGINE_CONFIG: Partial<EngineConfig> = {
  ...BENCH_ENGINE_CONFIG,
  dispatchDeadlineMs: 1_000,
  probeDeadlineMs: 1_000,
  leaseTtlMs: 3_000,
};

export interface EngineTarget {
  readonly tier: "C1" | "C2" | "C3";
  readonly baseUrl: string;
  readonly lagSeconds: number;
  readonly database: DatabaseOption;
  readonly workerId: string;
  /** Engine tunables; default BENCH_ENGINE_CONFIG. */
  readonly config?: Partial<EngineConfig>;
}

/** Opens the engine on a target (used by the parent and by the crash child alike). */
export function openBenchEngine(target: EngineTarget): Promise<Irrevon> {
  const adapter = new RefdestAdapter({
    baseUrl: target.baseUrl,
    declaration: refdestDeclaration(
      target.tier,
      target.lagSeconds > 0 ? { lagSeconds: target.lagSeconds } : {},
    ),
  });
  return openIrrevon({
    database: target.database,
    adapters: [adapter],
    config: target.config ?? BENCH_ENGINE_CONFIG,
    workerId: target.workerId,
  });
}

/** The adapter id the engine registers contracts under for a tier and lag. */
export function adapterIdFor(tier: "C1" | "C2" | "C3", lagSeconds: number): string {
  return refdestDeclaration(tier, lagSeconds > 0 ? { lagSeconds } : {}).adapter;
}

/**
 * The migrated template unit databases are copied from, named by the migration set: a
 * different set (another version, a changed migration) gets a template of its own instead of
 * failing on one migrated by the old set; templates of other sets are dropped when one is built.
 */
const TEMPLATE_PREFIX = "irrevon_bench_template_";
const TEMPLATE_DB = `${TEMPLATE_PREFIX}${migrationSetDigest()}`;
/** Advisory lock key that serializes template builds across processes. */
const TEMPLATE_LOCK = 0x1bec4;
let templateReady: Promise<void> | null = null;
let swept = false;

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Creates (first use) and migrates (every process, a no-op when current) the template. */
function ensureTemplate(serverUrl: string): Promise<void> {
  templateReady ??= adminQuery(serverUrl, async (admin) => {
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [
        TEMPLATE_DB,
      ]);
      if (found.rowCount === 0) {
        const stale = await admin.query<{ datname: string }>(
          "SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR datname = 'irrevon_bench_template'",
          [TEMPLATE_PREFIX],
        );
        for (const { datname } of stale.rows)
          await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
      }
      const engine = await openIrrevon({
        database: { url: withDatabase(serverUrl, TEMPLATE_DB), migrate: true },
        adapters: [],
        workerId: `bench-template-${process.pid}`,
      });
      await engine.close();
    } finally {
      await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
    }
  }).catch((e: unknown) => {
    templateReady = null;
    throw e;
  });
  return templateReady;
}

/** Drops still running (dropping a database waits for a checkpoint; units need not wait). */
const pendingDrops = new Set<Promise<void>>();

/**
 * Closes this process's shared ledgers (see sharedLedger), then waits for every unit database
 * drop this process started. Call once before the run exits; a later unit opens a new shared
 * ledger.
 */
export async function settleUnitDatabaseDrops(): Promise<void> {
  const memory = sharedMemory;
  const servers = [...sharedServers.values()];
  sharedMemory = null;
  sharedServers.clear();
  const templateDir = ledgerTemplate;
  ledgerTemplate = null;
  const dir = await templateDir?.catch(() => null);
  if (dir !== null && dir !== undefined) rmSync(dirname(dir), { recursive: true, force: true });
  if (memory !== null) await (await memory.catch(() => null))?.close();
  for (const server of servers) await (await server.catch(() => null))?.drop();
  while (pendingDrops.size > 0) await Promise.all([...pendingDrops]);
}

/** The in-memory ledger shared by this process's R@pglite units: an engine whose Db is lent out. */
let sharedMemory: Promise<Irrevon> | null = null;
/** The database shared by this process's R@postgres units, per server URL. */
const sharedServers = new Map<string, Promise<{ readonly url: string; drop(): Promise<void> }>>();
let namespaces = 0;

/**
 * The ledger this process's non-crash units share: an in-memory PGlite clone (`serverUrl`
 * null) or one fresh database on the server. An engine opened on the returned Db leaves it
 * open when it closes.
 */
export function sharedLedger(serverUrl: string | null): Promise<DatabaseOption> {
  if (serverUrl === null) {
    const holder = (sharedMemory ??= openIrrevon({
      database: { memory: true },
      adapters: [],
      workerId: `bench-r-shared-${process.pid}`,
    }));
    return holder.then(
      (engine): Db => engine.db,
      (e: unknown) => {
        sharedMemory = null;
        throw e;
      },
    );
  }
  let server = sharedServers.get(serverUrl);
  if (server === undefined) {
    server = freshUnitDatabase(serverUrl, "shared");
    sharedServers.set(serverUrl, server);
  }
  return server.then(
    (s) => ({ url: s.url }),
    (e: unknown) => {
      sharedServers.delete(serverUrl);
      throw e;
    },
  );
}

/** A data directory cloned from the migrated image once per process, copied per crash unit. */
let ledgerTemplate: Promise<string> | null = null;

/**
 * Makes `dataDir` a fresh file-backed ledger: a copy of this process's closed template
 * directory (cloned from the migrated image on first use). Copying files costs milliseconds;
 * cloning the image into a new directory costs seconds on a loaded machine. The template is
 * removed by settleUnitDatabaseDrops.
 */
export async function freshLedgerDir(dataDir: string): Promise<void> {
  ledgerTemplate ??= (async () => {
    const dir = join(mkdtempSync(join(tmpdir(), `irrevon-bench-p${process.pid}-`)), "ledger");
    const engine = await openIrrevon({
      database: { dataDir: dir },
      adapters: [],
      workerId: `bench-r-template-${process.pid}`,
    });
    await engine.close();
    return dir;
  })().catch((e: unknown) => {
    ledgerTemplate = null;
    throw e;
  });
  const template = await ledgerTemplate;
  rmSync(dataDir, { recursive: true, force: true });
  // The owner lock is never copied (the template is closed; a copy must not inherit one).
  cpSync(template, dataDir, { recursive: true, filter: (src) => basename(src) !== "irrevon.lock" });
}

/**
 * A namespace no other unit of this process has: R prefixes the unit's scope, authority and
 * branch references with it, so units sharing a ledger never share an identity, an authority
 * record, a branch or a (scope, effect type) slot.
 */
export function unitNamespace(unitSeed: number): string {
  namespaces += 1;
  return `u${unitSeed}n${namespaces}`;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Drops unit databases left behind by bench processes on this host that are gone. */
async function sweepLeftovers(admin: pg.Client): Promise<void> {
  const rows = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'irrevon_bench_p%'",
  );
  for (const { datname } of rows.rows) {
    const pid = Number(/^irrevon_bench_p(\d+)_/.exec(datname)?.[1] ?? Number.NaN);
    if (Number.isSafeInteger(pid) && pid !== process.pid && !pidAlive(pid)) {
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  }
}

/**
 * A fresh, migrated database for one unit; returns its URL and how to drop it. `drop()`
 * returns at once and drops in the background (see settleUnitDatabaseDrops); a database a
 * crashed process left behind is dropped by the next process's first unit (names carry the pid).
 */
export async function freshUnitDatabase(
  serverUrl: string,
  unitSeed: number | "shared",
): Promise<{ readonly url: string; drop(): Promise<void> }> {
  await ensureTemplate(serverUrl);
  const name = `irrevon_bench_p${process.pid}_u${unitSeed}_${randomBytes(4).toString("hex")}`;
  await adminQuery(serverUrl, async (admin) => {
    // The template must have no other session while it is copied; builds hold the lock.
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    try {
      if (!swept) {
        swept = true;
        await sweepLeftovers(admin);
      }
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
    } finally {
      await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
    }
  });
  return {
    url: withDatabase(serverUrl, name),
    drop: () => {
      const dropping = adminQuery(serverUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      )
        .then(() => undefined)
        .catch(() => undefined) // a leftover is swept by the next process
        .finally(() => pendingDrops.delete(dropping));
      pendingDrops.add(dropping);
      return Promise.resolve();
    },
  };
}
