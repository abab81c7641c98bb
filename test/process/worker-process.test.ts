/**
 * `irrevon worker` as a real process (the CLI as test/support/cli starts it) against a
 * reference destination server:
 *   - embedded ledger: a backlog of AMBIGUOUS effects is drained, the health file shows the
 *     gauges, JSON log lines come from the closed catalog, a second worker on the same data
 *     directory is refused (exit 3, ledger_locked), SIGTERM ends it with exit 0 after the
 *     current cycle and its lease is released;
 *   - Postgres: two workers drain one backlog together, one create per operation, auditor clean.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { EngineEventName } from "../../src/engine/events.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import type { DatabaseOption } from "../../src/engine/open-database.js";
import { DbRole } from "../../src/db/db.js";
import { openDatabase } from "../../src/db/open.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { expectAuditClean } from "../support/audit.js";
import { CLI_ENTRY } from "../support/cli.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";

const CONFIG = `schema_version = "1"

[reconcile]
reread_gap_seconds = 0

[adapters.refdest-c2]
kind = "refdest"
tier = "C2"
url_env = "IRREVON_REFDEST_URL"
`;

interface WorkerProcess {
  readonly stdout: () => string;
  readonly stderrLines: () => string[];
  kill(signal: NodeJS.Signals): void;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWorker(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): WorkerProcess {
  const child = spawn(
    process.execPath,
    [...CLI_ENTRY, "worker", ...args],
    {
      cwd,
      env: { ...process.env, NO_COLOR: "1", DATABASE_URL: "", IRREVON_LOG_FILE: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return {
    stdout: () => stdout,
    stderrLines: () => stderr.split("\n").filter((l) => l.length > 0),
    kill: (signal) => child.kill(signal),
    exited,
  };
}

function logEvents(w: WorkerProcess): Array<Record<string, unknown>> {
  return w
    .stderrLines()
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 90_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * Dispatch deadline of the backlog writer. A response dropped before commit leaves the call's
 * commit horizon at call start + this deadline (docs/engine.md, "The absence rule"), so ABSENT
 * reads count only once it has passed; a short deadline keeps that wait short.
 */
const BACKLOG_DISPATCH_DEADLINE_MS = 2_000;

/** Registers and dispatches `n` orders whose responses are lost (n − absent after commit). */
async function backlog(
  database: DatabaseOption,
  server: RefdestServer,
  n: number,
  absent: number,
): Promise<string[]> {
  const irrevon: Irrevon = await openIrrevon({
    database,
    adapters: [new RefdestAdapter({ baseUrl: server.url, declaration: refdestDeclaration("C2") })],
    crashPoints: NO_CRASH_POINTS,
    config: { dispatchDeadlineMs: BACKLOG_DISPATCH_DEADLINE_MS },
    workerId: "backlog-writer",
  });
  const ids: string[] = [];
  try {
    for (let i = 0; i < n; i += 1) {
      const { effectId } = await irrevon.register({
        schema_version: "1",
        stable_ids: { order_id: `w-${i}` },
        effect_type: "order.create",
        scope: `worker-store/${i}`,
        effect_class: "IRREVERSIBLE",
        adapter_id: "refdest-c2",
        parameters: { n: i },
        authority_ref: "auth_worker_test",
        stamped_at: new Date().toISOString(),
      });
      const fault = i < absent ? "DROP_RESPONSE_BEFORE_COMMIT" : "DROP_RESPONSE_AFTER_COMMIT";
      server.refdest.schedule([{ fault, match: { op: "create" } }]);
      const outcome = await irrevon.dispatch(effectId);
      if (outcome.status !== "dispatched" || outcome.lifecycle !== "AMBIGUOUS")
        throw new Error(`backlog dispatch did not go AMBIGUOUS: ${JSON.stringify(outcome)}`);
      ids.push(effectId);
    }
  } finally {
    await irrevon.close();
  }
  return ids;
}

describe("irrevon worker process [pglite data dir]", () => {
  let dir: string;
  let server: RefdestServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-worker-proc-"));
    writeFileSync(join(dir, "irrevon.toml"), CONFIG);
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "drains a backlog, writes health and catalog logs, refuses a second owner, exits 0 on SIGTERM with its lease released",
    { timeout: 240_000 },
    async () => {
      const dataDir = join(dir, "ledger");
      await backlog({ dataDir }, server, 7, 2);
      const health = join(dir, "health.json");
      const env = { IRREVON_REFDEST_URL: server.url, IRREVON_CONFIG: join(dir, "irrevon.toml") };
      const args = [
        "--data-dir",
        dataDir,
        "--interval",
        "0.2",
        "--sweep-interval",
        "3600",
        "--health-file",
        health,
        "--json",
      ];
      const worker = startWorker(args, dir, env);
      await waitFor("the backlog to drain", () => {
        const h = readJson(health);
        return h !== null && h["open_executions"] === 0 && Number(h["cycle"]) >= 1;
      });
      expect(readJson(health)).toMatchObject({
        schema_version: "1",
        state: "running",
        ambiguous_executions: 0,
        oldest_open_age_s: 0,
        open_findings: 2,
      });

      const second = startWorker(args, dir, env);
      const refused = await second.exited;
      expect(refused.code).toBe(3);
      expect(JSON.parse(second.stdout())).toMatchObject({ error: { code: "ledger_locked" } });

      worker.kill("SIGTERM");
      const ended = await worker.exited;
      expect(ended).toEqual({ code: 0, signal: null });
      const summary = JSON.parse(worker.stdout()) as Record<string, unknown>;
      expect(summary).toMatchObject({
        schema_version: "1",
        stopped_by: "signal",
        gauges: { open_executions: 0, ambiguous_executions: 0 },
      });
      expect(readJson(health)).toMatchObject({ state: "stopped" });

      const events = logEvents(worker);
      const names = events.map((e) => e["event_name"]);
      expect(names).toContain("worker.started");
      expect(names).toContain("worker.cycle");
      expect(names).toContain("worker.stop_requested");
      expect(names[names.length - 1]).toBe("worker.stopped");
      const catalog: readonly unknown[] = Object.values(EngineEventName);
      expect(names.every((n) => catalog.includes(n))).toBe(true);
      expect(
        events.every((e) => typeof e["ts"] === "string" && typeof e["severity"] === "string"),
      ).toBe(true);

      expect(server.refdest.truthDump().effects).toHaveLength(5);
      expect(server.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(7);
      expect(existsSync(join(dataDir, "irrevon.lock"))).toBe(false);
      const db = await openDatabase({ dataDir, role: DbRole.read });
      try {
        const lease = await db.query<{ event: string }>(
          "SELECT event FROM worker_leases WHERE worker_id = $1 ORDER BY lease_seq DESC LIMIT 1",
          [String(summary["worker_id"])],
        );
        expect(lease.rows[0]?.event).toBe("release");
        const states = await db.query<{ frontier: string; n: unknown }>(
          "SELECT frontier, count(*) AS n FROM effect_frontiers GROUP BY frontier ORDER BY frontier",
        );
        expect(states.rows.map((r) => [r.frontier, Number(r.n)])).toEqual([
          ["SETTLED_COMMITTED", 5],
          ["SETTLED_FAILED", 2],
        ]);
      } finally {
        await db.close();
      }
    },
  );

  it(
    "bad arguments are one-line usage errors (exit 2); --help exits 0",
    { timeout: 60_000 },
    async () => {
      const env = { IRREVON_REFDEST_URL: server.url, IRREVON_CONFIG: join(dir, "irrevon.toml") };
      const bad = startWorker(["--interval", "soon"], dir, env);
      expect((await bad.exited).code).toBe(2);
      expect(bad.stderrLines()).toHaveLength(1);
      expect(bad.stderrLines()[0]).toMatch(/^irrevon: usage: --interval/);
      const help = startWorker(["--help"], dir, env);
      expect((await help.exited).code).toBe(0);
      expect(help.stdout()).toContain("--sweep-interval");
    },
  );
});

describe.skipIf(SKIP_POSTGRES)("irrevon worker processes [postgres]", () => {
  let dir: string;
  let server: RefdestServer;
  let ledger: TestLedger;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-worker-pg-"));
    writeFileSync(join(dir, "irrevon.toml"), CONFIG);
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    ledger = await openTestLedger("postgres");
  });
  afterEach(async () => {
    await server.close();
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "two workers drain one backlog together: one create per operation, auditor clean",
    { timeout: 240_000 },
    async () => {
      await backlog(ledger.app, server, 20, 4);
      // The workers stop after 3 short cycles: let every backlog call's commit horizon (call
      // start + dispatch deadline) pass first, so the lost-before-commit calls can be proven
      // absent within those cycles instead of still awaiting lag.
      await new Promise((r) => setTimeout(r, BACKLOG_DISPATCH_DEADLINE_MS + 1_000));
      const env = { IRREVON_REFDEST_URL: server.url, IRREVON_CONFIG: join(dir, "irrevon.toml") };
      const args = (i: number) => [
        "--database-url",
        ledger.url ?? "",
        "--interval",
        "0.1",
        "--sweep-interval",
        "0.1",
        "--max-cycles",
        "3",
        "--health-file",
        join(dir, `health-${i}.json`),
        "--json",
      ];
      const workers = [startWorker(args(1), dir, env), startWorker(args(2), dir, env)];
      const exits = await Promise.all(workers.map((w) => w.exited));
      expect(exits).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
      for (const w of workers)
        expect(JSON.parse(w.stdout())).toMatchObject({ stopped_by: "max_cycles", cycles: 3 });
      const states = await ledger.app.query<{ frontier: string; n: unknown }>(
        "SELECT frontier, count(*) AS n FROM effect_frontiers GROUP BY frontier ORDER BY frontier",
      );
      expect(states.rows.map((r) => [r.frontier, Number(r.n)])).toEqual([
        ["SETTLED_COMMITTED", 16],
        ["SETTLED_FAILED", 4],
      ]);
      expect(server.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(20);
      const orphans = await ledger.app.query(
        "SELECT 1 FROM findings WHERE classification = 'ORPHANED'",
      );
      expect(orphans.rows).toHaveLength(0);
      await expectAuditClean(ledger);
    },
  );
});
