/**
 * cli/demo/run-demo — the flagship demo, as a library function the `demo` command calls.
 *
 * Irrevon leg: a real engine child process registers order 9410 against the reference
 * destination (C2), the destination commits and drops the response, the child is killed with
 * SIGKILL, a new child boots and recovery asks the destination before any new dispatch
 * (SETTLED_COMMITTED + CONFIRMED_UNIQUE); the agent's re-synthesized retry collapses onto the
 * same effect id and the gate denies it. B5 leg: the same seed and fault under a
 * durable-journal runtime with a stable workflow operation id: two orders. Every claim is
 * read back from the destination's truth log, not from what the engine believes.
 *
 * Embedded, this process never opens PGlite itself: the first engine child creates the ledger
 * as a clone of the migrated image (db/pglite-image) and the second reopens it, so at most one
 * PGlite instance is alive at a time and none of them runs initdb. Both children are spawned
 * first as standbys (code loaded, nothing opened): the first boots once the ledger is ready, the
 * second only after the first is killed.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { B5DurableJournalRuntime } from "../../bench/baselines/b5-durable-journal.js";
import { ErrorCode, IrrevonError } from "../../core/errors.js";
import { advisoryLockKey, migrate, migrationsHash } from "../../db/migrator.js";
import { openPrivileged } from "../../db/open.js";
import { Refdest } from "../../refdest/refdest.js";
import { startRefdestServer } from "../../refdest/http-server.js";
import { redactUrl } from "../ledger-options.js";
import { EngineChildClient } from "./engine-child-client.js";
import {
  B5_WORKFLOW_ID,
  DEMO_EFFECT_TYPE,
  ORIGINAL_PARAMETERS,
  RESYNTHESIZED_PARAMETERS,
  demoContract,
} from "./demo-fixture.js";

export type DemoLeg = "irrevon" | "b5" | "both";

export interface DemoOptions {
  readonly seed: number;
  readonly leg: DemoLeg;
  /** Postgres server URL; absent = embedded PGlite in `workDir`. */
  readonly databaseUrl?: string;
  /** Where the demo keeps its ledger and journal; recreated on every run. */
  readonly workDir: string;
  /** Progress sink: one human line per event. */
  readonly onEvent?: (event: DemoEvent) => void;
}

export interface DemoEvent {
  readonly n: number;
  readonly name: string;
  readonly leg: "irrevon" | "b5";
  readonly detail: Readonly<Record<string, unknown>>;
}

export interface IrrevonLegSummary {
  readonly effect_id: string;
  readonly destination_effects: number;
  readonly duplicate_rejected: boolean;
  readonly reconciled: string;
  readonly classification: string;
}

export interface B5LegSummary {
  readonly destination_effects: number;
  readonly duplicate_created: boolean;
}

export interface DemoSummary {
  readonly seed: number;
  readonly effect_id: string | null;
  readonly irrevon_leg: IrrevonLegSummary | null;
  readonly b5_leg: B5LegSummary | null;
  readonly contrast_holds: boolean;
  readonly database: string;
  readonly work_dir: string;
}

/** Where the Irrevon leg's ledger is, for `demo --serve` and `inspect`. */
export type DemoLedgerLocation =
  { readonly dataDir: string } | { readonly databaseUrl: string } | null;

export interface DemoResult {
  readonly summary: DemoSummary;
  readonly events: readonly DemoEvent[];
  readonly ledger: DemoLedgerLocation;
}

const DROP_AFTER_COMMIT = [{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }];

function field(obj: Record<string, unknown>, key: string): unknown {
  if ("error" in obj) {
    throw new IrrevonError("internal", `demo step failed: ${JSON.stringify(obj["error"])}`, {
      details: { step: key },
    });
  }
  return obj[key];
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Serializes demos building or copying the template on one server. */
const DEMO_TEMPLATE_LOCK = advisoryLockKey("irrevon:demo-template");
const DEMO_TEMPLATE_PREFIX = "irrevon_demo_template_";

/** The demo's database on a server: `irrevon_demo_s<seed>`. */
function demoDatabaseName(seed: number): string {
  return `irrevon_demo_s${seed}`;
}

/**
 * Creates (or re-creates) the demo's own database on a server (`demoDatabaseName`). It is a
 * copy of a migrated template, `irrevon_demo_template_<hash of the migration set>`, made by the
 * first demo on that server (templates of other migration sets are dropped then): copying is
 * one statement, where migrating a new database ran every migration at every demo (~0.5–1 s).
 */
async function freshServerDatabase(url: string, seed: number): Promise<void> {
  const name = demoDatabaseName(seed);
  const template = `${DEMO_TEMPLATE_PREFIX}${migrationsHash()}`;
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    // Session lock, released when this connection ends.
    await admin.query("SELECT pg_advisory_lock($1::bigint)", [DEMO_TEMPLATE_LOCK]);
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (found.rowCount === 0) {
      const stale = await admin.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
        [DEMO_TEMPLATE_PREFIX],
      );
      for (const { datname } of stale.rows)
        await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      // Migrated under another name and renamed once complete: a template that exists is
      // whole, even if a demo building one was killed, so its copies need no migration run.
      const building = `${template}_building`;
      await admin.query(`CREATE DATABASE ${building}`);
      try {
        const root = await openPrivileged({ databaseUrl: withDatabase(url, building) });
        try {
          await migrate(root);
        } finally {
          await root.close();
        }
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
      } catch (e) {
        await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        throw e;
      }
    }
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
}

/** What a demo run leaves in its working directory: nothing else is ever deleted. */
const DEMO_ENTRIES = new Set(["ledger", "b5-journal.jsonl"]);

/**
 * The working directory is recreated on every run, so it must be new, empty or one an earlier
 * demo made (only the demo's own entries): anything else is refused, never deleted.
 */
export function checkDemoDir(workDir: string): void {
  let entries: string[];
  try {
    if (!statSync(workDir).isDirectory())
      throw new IrrevonError(ErrorCode.usage, `--dir ${JSON.stringify(workDir)} is a file, not a folder; pass a new or empty folder`, {
        details: { flag: "--dir", path: workDir },
      });
    entries = readdirSync(workDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  const foreign = entries.filter((name) => !DEMO_ENTRIES.has(name));
  if (foreign.length > 0)
    throw new IrrevonError(
      ErrorCode.usage,
      `--dir ${JSON.stringify(workDir)} holds files the demo did not make (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", …" : ""}), and the demo recreates its folder on every run; pass a new or empty folder, or one an earlier demo made`,
      { details: { flag: "--dir", path: workDir, foreign_entries: foreign.length } },
    );
}

/** Runs the demo; resolves with its summary and the numbered event sequence. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const events: DemoEvent[] = [];
  const note = (leg: "irrevon" | "b5", name: string, detail: Record<string, unknown>): void => {
    const event = { n: events.length + 1, name, leg, detail };
    events.push(event);
    options.onEvent?.(event);
  };

  checkDemoDir(options.workDir);
  rmSync(options.workDir, { recursive: true, force: true });
  mkdirSync(options.workDir, { recursive: true });
  const refdest = new Refdest({ tier: "C2", seed: options.seed });
  const server = await startRefdestServer(refdest, { port: 0 });
  let database = "";
  let ledger: DemoLedgerLocation = null;
  try {
    let irrevonLeg: IrrevonLegSummary | null = null;
    let b5Leg: B5LegSummary | null = null;

    if (options.leg !== "b5") {
      const dataDir = join(options.workDir, "ledger");
      let ledgerEnv: Record<string, string>;
      let prepareLedger: () => Promise<void>;
      if (options.databaseUrl === undefined) {
        // The first engine child creates the ledger from the migrated image.
        ledgerEnv = { IRREVON_DATA_DIR: dataDir };
        database = `embedded ${dataDir}`;
        ledger = { dataDir };
        prepareLedger = () => Promise.resolve();
      } else {
        const serverUrl = options.databaseUrl;
        const url = withDatabase(serverUrl, demoDatabaseName(options.seed));
        // A copy of a whole template of this migration set: the engine child that opens it
        // checks that its schema is current (and refuses it otherwise).
        prepareLedger = () => freshServerDatabase(serverUrl, options.seed);
        ledgerEnv = { IRREVON_DATABASE_URL: url };
        database = `postgres ${redactUrl(url)}`;
        ledger = { databaseUrl: url };
      }
      irrevonLeg = await runIrrevonLeg(server.url, refdest, ledgerEnv, prepareLedger, note);
    }

    if (options.leg !== "irrevon") {
      refdest.reset({ seed: options.seed });
      b5Leg = await runB5Leg(server.url, refdest, join(options.workDir, "b5-journal.jsonl"), note);
    }

    const irrevonHolds =
      irrevonLeg !== null &&
      irrevonLeg.destination_effects === 1 &&
      irrevonLeg.duplicate_rejected &&
      irrevonLeg.reconciled === "SETTLED_COMMITTED";
    const b5Holds = b5Leg !== null && b5Leg.destination_effects === 2 && b5Leg.duplicate_created;
    const contrast =
      options.leg === "both"
        ? irrevonHolds && b5Holds
        : options.leg === "irrevon"
          ? irrevonHolds
          : b5Holds;
    return {
      events,
      ledger,
      summary: {
        seed: options.seed,
        effect_id: irrevonLeg?.effect_id ?? null,
        irrevon_leg: irrevonLeg,
        b5_leg: b5Leg,
        contrast_holds: contrast,
        database,
        work_dir: options.workDir,
      },
    };
  } finally {
    await server.close();
  }
}

type Note = (leg: "irrevon" | "b5", name: string, detail: Record<string, unknown>) => void;

/**
 * The Irrevon leg. Both engine children are spawned first, as standbys (code loaded, nothing
 * opened), so their start overlaps `prepareLedger` (on a server: copying the demo's database
 * from its template); the first takes over once the ledger is ready, the second only after the
 * first is killed.
 */
async function runIrrevonLeg(
  refdestUrl: string,
  refdest: Refdest,
  ledgerEnv: Record<string, string>,
  prepareLedger: () => Promise<void>,
  note: Note,
): Promise<IrrevonLegSummary> {
  const env = {
    ...ledgerEnv,
    IRREVON_REFDEST_URL: refdestUrl,
    IRREVON_REFDEST_TIER: "C2",
    IRREVON_WORKER_ID: "demo-engine-1",
  };
  const first = EngineChildClient.standby(env);
  // The replacement process is spawned now as a warm spare (code loaded, nothing opened) and
  // takes over only after the first is killed: the crash and the recovery are unchanged, the
  // demo just does not wait for a second cold start.
  let spare: EngineChildClient | null = null;
  try {
    const second = EngineChildClient.standby({ ...env, IRREVON_WORKER_ID: "demo-engine-2" });
    spare = second;
    await prepareLedger();
    await first.takeOver();
    await first.expectLine("RECOVERY DONE");
    await first.expectLine("READY");
    const registered = await first.command(
      `REGISTER ${JSON.stringify(demoContract(ORIGINAL_PARAMETERS, "auth_approved_task_18", new Date().toISOString()))}`,
    );
    const effectId = String(field(registered, "effectId"));
    note("irrevon", "registered", {
      effect_id: effectId,
      lifecycle: field(registered, "lifecycle"),
    });

    refdest.schedule(DROP_AFTER_COMMIT);
    const dispatched = await first.command(`DISPATCH ${effectId}`);
    note("irrevon", "dispatch_response_lost", {
      transport_outcome: field(dispatched, "transportOutcome"),
      lifecycle: field(dispatched, "lifecycle"),
    });

    const signal = await first.kill();
    note("irrevon", "crash", { signal, pid: first.pid ?? null });

    const logBeforeRestart = refdest.requestLog().length;
    await second.takeOver();
    const recovery = JSON.parse(await second.expectLine("RECOVERY DONE")) as Record<
      string,
      unknown
    >;
    await second.expectLine("READY");
    // Read back from the destination's own request log what recovery asked it.
    const duringRecovery = refdest.requestLog().slice(logBeforeRestart);
    note("irrevon", "recovered", {
      scanned: recovery["scanned"],
      adjudicated: recovery["adjudicated"],
      destination_calls: duringRecovery.map((e) => e.op),
      creates_during_recovery: duringRecovery.filter((e) => e.op === "create").length,
    });

    const status = await second.command(`STATUS ${effectId}`);
    note("irrevon", "settled_confirmed_unique", {
      lifecycle: field(status, "lifecycle"),
      classification: field(status, "classification"),
    });

    const again = await second.command(
      `REGISTER ${JSON.stringify(demoContract(RESYNTHESIZED_PARAMETERS, "auth_approved_task_22", new Date().toISOString()))}`,
    );
    const sameId = field(again, "effectId") === effectId;
    note("irrevon", "resynthesis_collapsed", {
      same_effect_id: sameId,
      replayed: field(again, "replayed"),
      parameter_variant: field(again, "parameterVariantDigest"),
    });

    const retry = await second.command(`DISPATCH ${effectId}`);
    const denied = field(retry, "status") === "denied" && retry["check"] === "dedup";
    note("irrevon", "duplicate_rejected", {
      outcome: retry["status"],
      deny_check: retry["check"] ?? null,
      decision_id: retry["decisionId"] ?? null,
    });

    await second.exit();
    const effects = refdest
      .truthDump()
      .effects.filter((e) => e.effect_type === DEMO_EFFECT_TYPE).length;
    return {
      effect_id: effectId,
      destination_effects: effects,
      duplicate_rejected: denied && sameId,
      reconciled: String(status["lifecycle"]),
      classification: String(status["classification"]),
    };
  } finally {
    if (spare !== null) await spare.kill().catch(() => undefined);
    await first.kill().catch(() => undefined);
  }
}

async function runB5Leg(
  refdestUrl: string,
  refdest: Refdest,
  journalPath: string,
  note: Note,
): Promise<B5LegSummary> {
  refdest.schedule(DROP_AFTER_COMMIT);
  const operationId = B5DurableJournalRuntime.operationId(B5_WORKFLOW_ID, 0);
  const runtime = new B5DurableJournalRuntime({ destinationUrl: refdestUrl, journalPath });
  const first = await runtime.runActivity(operationId, DEMO_EFFECT_TYPE, ORIGINAL_PARAMETERS);
  note("b5", "b5_response_lost", { outcome: first.kind, operation_id: operationId });

  const restarted = new B5DurableJournalRuntime({ destinationUrl: refdestUrl, journalPath });
  note("b5", "b5_restart", { journal_entries: restarted.journal().length });
  const retried = await restarted.recover();
  note("b5", "b5_retried", {
    operation_ids: retried.map((r) => r.operationId),
    key_sent: operationId,
  });

  const effects = refdest
    .truthDump()
    .effects.filter((e) => e.effect_type === DEMO_EFFECT_TYPE).length;
  note("b5", "b5_duplicate", { destination_effects: effects });
  return { destination_effects: effects, duplicate_created: effects > 1 };
}
