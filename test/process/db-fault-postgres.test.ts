/**
 * Database faults (Postgres): the engine's connections are terminated or cut while it works,
 * and it must report a retryable storage error (storage_unavailable, retryable: true), lose
 * nothing, and complete once the database answers again.
 *   - mid-transaction (pg_terminate_backend): the register transaction held open at
 *     persist.pre_commit, and a claim transaction waiting on a row lock — nothing of either
 *     persists, the engine process survives, and the retry completes (one wire call);
 *   - every backend is terminated while the engine is paused between the wire call and its
 *     receipt (receipt.pre_commit), or between a probe and its settle (reconcile.pre_settle):
 *     the engine reconnects and records the outcome;
 *   - the database vanishes for one engine (a TCP proxy resets and refuses connections, what a
 *     client sees while a server restarts) across the receipt write: the engine reports
 *     storage_unavailable, the attempt stays open, and after the database returns the effect is
 *     adjudicated from the destination (once, no resend).
 * The shared server itself is never restarted (docs/reliability.md says what is not tested).
 * Control: a caller that treats the storage error as "not sent" and resends is caught by the
 * history checker (duplicate effect, unclaimed wire call).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditLedger } from "../../src/ledger/auditor.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { countByInvariant } from "../../src/testing/history-checker.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";
import { EngineProcess, sleep } from "../support/history/engine-process.js";
import { FaultProxy } from "../support/history/fault-proxy.js";
import { intent, naiveResend } from "../support/history/intents.js";
import { checkRun } from "../support/history/ledger-history.js";

/** As short as the engine allows: ≥ 2 × max(dispatch, probe deadline) + 1 s. */
const LEASE_TTL_MS = 4_000;

describe.skipIf(SKIP_POSTGRES)("database faults under a running engine [postgres]", () => {
  let ledger: TestLedger;
  let server: RefdestServer;
  let url: string;
  let syncDir: string;
  let admin: pg.Client;
  const children: EngineProcess[] = [];
  let proxy: FaultProxy | undefined;

  beforeEach(async () => {
    ledger = await openTestLedger("postgres");
    url = ledger.url ?? "";
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    syncDir = mkdtempSync(join(tmpdir(), "irrevon-dbfault-"));
    admin = new pg.Client({ connectionString: url });
    admin.on("error", () => undefined);
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((c) => c.kill()));
    await proxy?.close();
    proxy = undefined;
    await admin.end().catch(() => undefined);
    await server.close();
    await ledger.close();
    rmSync(syncDir, { recursive: true, force: true });
  });

  async function engine(extra: Record<string, string> = {}): Promise<EngineProcess> {
    const child = await EngineProcess.start(`engine-${children.length + 1}`, {
      IRREVON_DATABASE_URL: url,
      IRREVON_REFDEST_URL: server.url,
      IRREVON_REFDEST_TIER: "C2",
      IRREVON_WORKER_ID: `dbfault-${children.length + 1}`,
      IRREVON_LEASE_TTL_MS: String(LEASE_TTL_MS),
      IRREVON_DISPATCH_DEADLINE_MS: "1500",
      IRREVON_PROBE_DEADLINE_MS: "1500",
      IRREVON_TEST_HOOKS: "1",
      IRREVON_SYNC_DIR: syncDir,
      ...extra,
    });
    children.push(child);
    return child;
  }

  const release = (seam: string): void => writeFileSync(join(syncDir, `${seam}.release`), "");
  const writes = (): number => server.refdest.requestLog().filter((r) => r.op === "create").length;

  /** Terminates every backend of this test's database except the admin's own. */
  async function terminateAll(): Promise<number> {
    const { rows } = await admin.query<{ ok: boolean }>(
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows.filter((r) => r.ok).length;
  }

  async function count(sql: string, params: unknown[] = []): Promise<number> {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (${sql}) q`,
      params,
    );
    return Number(rows[0]?.n);
  }

  async function expectClean(legitimate: string[]): Promise<void> {
    const verdict = await checkRun(ledger.read, server.refdest, { legitimate });
    expect(verdict.violations).toEqual([]);
    expect(await auditLedger(ledger.read)).toEqual([]);
    expect(await count("SELECT attempt_id FROM open_attempts")).toBe(0);
  }

  it("claim transaction terminated mid-flight (waiting on a row lock): retryable error, nothing persisted, retry sends once", async () => {
    const a = intent("terminated-claim");
    const child = await engine();
    await child.call(a.registerLine);
    const scope = a.scope;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query(
        "INSERT INTO scope_slots (scope, effect_type) VALUES ($1, 'order.create') ON CONFLICT DO NOTHING",
        [scope],
      );
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM scope_slots WHERE scope = $1 FOR UPDATE", [scope]);
      child.post(a.dispatchLine);
      let victim: number | undefined;
      for (let i = 0; i < 200 && victim === undefined; i++) {
        const { rows } = await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        victim = rows[0]?.pid;
        if (victim === undefined) await sleep(10);
      }
      expect(victim).toBeDefined();
      await admin.query("SELECT pg_terminate_backend($1)", [victim]);
      await holder.query("COMMIT");
    } finally {
      await holder.end();
    }
    const reply = await child.nextReply();
    expect(reply).toMatchObject({
      kind: "result",
      value: { error: { code: "storage_unavailable", retryable: true } },
    });
    expect(child.isAlive).toBe(true);
    expect(await count("SELECT decision_id FROM gate_decisions")).toBe(0);
    expect(await count("SELECT attempt_id FROM dispatch_attempts")).toBe(0);
    expect(writes()).toBe(0);
    expect(await child.call(a.dispatchLine)).toMatchObject({
      status: "dispatched",
      lifecycle: "SETTLED_COMMITTED",
    });
    expect(writes()).toBe(1);
    await child.exit();
    await expectClean([a.effectId]);
  });

  it("backend terminated while the register transaction is open (persist.pre_commit): retryable error, no record, retry registers", async () => {
    const a = intent("terminated-register");
    const child = await engine({ IRREVON_SYNC_AT: "persist.pre_commit" });
    child.post(a.registerLine);
    expect(await child.waitFor((l) => l === "HOOK persist.pre_commit REACHED")).not.toBeNull();
    expect(await terminateAll()).toBeGreaterThan(0);
    await sleep(100);
    release("persist.pre_commit");
    expect(await child.nextReply()).toMatchObject({
      kind: "result",
      value: { error: { code: "storage_unavailable", retryable: true } },
    });
    expect(child.isAlive).toBe(true);
    expect(await count("SELECT effect_id FROM effect_records")).toBe(0);
    expect(await count("SELECT execution_id FROM effect_executions")).toBe(0);
    expect(await child.call(a.registerLine)).toMatchObject({
      replayed: false,
      lifecycle: "PERSISTED",
    });
    expect(await child.call(a.dispatchLine)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
    await child.exit();
    expect(writes()).toBe(1);
    await expectClean([a.effectId]);
  });

  it("every backend terminated between the wire call and its receipt: the engine reconnects and records it", async () => {
    const a = intent("terminated-before-receipt");
    const child = await engine({ IRREVON_SYNC_AT: "receipt.pre_commit" });
    await child.call(a.registerLine);
    child.post(a.dispatchLine);
    expect(await child.waitFor((l) => l === "HOOK receipt.pre_commit REACHED")).not.toBeNull();
    expect(await terminateAll()).toBeGreaterThan(0);
    await sleep(100);
    release("receipt.pre_commit");
    expect(await child.nextReply()).toMatchObject({
      kind: "result",
      value: { status: "dispatched", lifecycle: "SETTLED_COMMITTED" },
    });
    expect(writes()).toBe(1);
    await child.exit();
    await expectClean([a.effectId]);
  });

  it("every backend terminated between a probe and its settle: the engine reconnects and settles once", async () => {
    const a = intent("terminated-before-settle");
    const child = await engine({ IRREVON_SYNC_AT: "reconcile.pre_settle" });
    await child.call(a.registerLine);
    server.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await child.call(a.dispatchLine)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    child.post(`RECONCILE ${a.effectId}`);
    expect(await child.waitFor((l) => l === "HOOK reconcile.pre_settle REACHED")).not.toBeNull();
    expect(await terminateAll()).toBeGreaterThan(0);
    await sleep(100);
    release("reconcile.pre_settle");
    expect(await child.nextReply()).toMatchObject({
      kind: "result",
      value: { status: "committed", classification: "CONFIRMED_UNIQUE" },
    });
    await child.exit();
    expect(writes()).toBe(1);
    await expectClean([a.effectId]);
  });

  it("database gone across the receipt write and back: storage_unavailable, then adjudicated from the destination", async () => {
    const a = intent("database-gone");
    proxy = await FaultProxy.start(url);
    const child = await engine({
      IRREVON_DATABASE_URL: proxy.url(url),
      IRREVON_SYNC_AT: "receipt.pre_commit",
    });
    await child.call(a.registerLine);
    child.post(a.dispatchLine);
    expect(await child.waitFor((l) => l === "HOOK receipt.pre_commit REACHED")).not.toBeNull();
    proxy.down();
    release("receipt.pre_commit");
    expect(await child.nextReply()).toMatchObject({
      kind: "result",
      value: { error: { code: "storage_unavailable", retryable: true } },
    });
    expect(child.isAlive).toBe(true);
    // Nothing is lost: the effect happened once and the ledger still holds the open attempt.
    expect(server.refdest.truthDump().effects).toHaveLength(1);
    expect(await count("SELECT attempt_id FROM open_attempts")).toBe(1);
    const pending = countByInvariant((await checkRun(ledger.read, server.refdest)).violations);
    expect(pending).toEqual(countByInvariant([]));
    // Down longer than the lease: when the database returns, the old lease is gone and the
    // attempt it covered is adjudicated like any abandoned one.
    await sleep(LEASE_TTL_MS + 500);
    proxy.up();
    let settled: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) {
      settled = await child.call(`RECONCILE ${a.effectId}`);
      if (settled["status"] === "committed" || settled["status"] === "settled") break;
      await sleep(250);
    }
    expect(settled).toMatchObject({ status: "committed", classification: "CONFIRMED_UNIQUE" });
    await child.exit();
    expect(writes()).toBe(1);
    await expectClean([a.effectId]);
  });

  it("control: a caller that resends after the storage error is caught (duplicate + unclaimed wire call)", async () => {
    const a = intent("naive-resend");
    proxy = await FaultProxy.start(url);
    const child = await engine({
      IRREVON_DATABASE_URL: proxy.url(url),
      IRREVON_SYNC_AT: "receipt.pre_commit",
    });
    await child.call(a.registerLine);
    child.post(a.dispatchLine);
    expect(await child.waitFor((l) => l === "HOOK receipt.pre_commit REACHED")).not.toBeNull();
    proxy.down();
    release("receipt.pre_commit");
    expect(await child.nextReply()).toMatchObject({
      value: { error: { code: "storage_unavailable" } },
    });
    await naiveResend(server.url, a);
    const caught = countByInvariant((await checkRun(ledger.read, server.refdest)).violations);
    expect(caught.duplicate_effect).toBe(1);
    expect(caught.unclaimed_wire_call).toBe(1);
  });
});
