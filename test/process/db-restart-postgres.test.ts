/**
 * Database server restart (issue 7): the engine's Postgres server really goes down and comes
 * back — a private throwaway cluster (test/support/private-postgres.ts), never the shared
 * server — and the engine must report a retryable storage error, lose nothing, and complete
 * after the database returns.
 *   - restart (`fast` and `immediate`) between register and dispatch: the dispatch either
 *     answers storage_unavailable (retryable) and its retry sends once, or the pool reconnects
 *     and it sends once; a dispatch while the server is down answers storage_unavailable
 *     before any claim, and its retry sends once;
 *   - crash-restart while the engine is paused between the wire call and its receipt
 *     (receipt.pre_commit), released after the server is back: it reconnects and records;
 *   - the server crashed and still down when the receipt write runs: storage_unavailable, the
 *     effect happened once, the attempt stays open; back after the lease lapsed, reconciliation
 *     adjudicates it from the destination; back within the lease, the owner (still alive)
 *     has forfeited the claim's lease after its bounded receipt retries, so its own
 *     reconcile closes the attempt as LOST and settles it from the destination, once.
 * Control: a caller that resends after the storage error is caught by the history checker.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DbRole } from "../../src/db/db.js";
import { migrate } from "../../src/db/migrator.js";
import { openPostgresPrivileged } from "../../src/db/pg-driver.js";
import { auditLedger } from "../../src/ledger/auditor.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { countByInvariant, type HistoryVerdict } from "../../src/testing/history-checker.js";
import type { Violation } from "../../src/ledger/auditor.js";
import { EngineProcess, sleep } from "../support/history/engine-process.js";
import { intent, naiveResend, type Intent } from "../support/history/intents.js";
import { checkRun } from "../support/history/ledger-history.js";
import {
  privatePostgresUnavailable,
  startPrivatePostgres,
  type PrivatePostgres,
} from "../support/private-postgres.js";

/** As short as the engine allows: ≥ 2 × max(dispatch, probe deadline) + 1 s. */
const LEASE_TTL_MS = 4_000;
const TEMPLATE = "irrevon_restart_tpl";

if (privatePostgresUnavailable !== undefined) {
  console.warn(
    `[db-restart-postgres] skipping: cannot start a private PostgreSQL cluster (${privatePostgresUnavailable}).`,
  );
}

describe.skipIf(privatePostgresUnavailable !== undefined)(
  "database server restart under a running engine [private postgres]",
  () => {
    let cluster: PrivatePostgres | undefined;
    let server: RefdestServer;
    let url: string;
    let syncDir: string;
    let databases = 0;
    const children: EngineProcess[] = [];

    const pgCluster = (): PrivatePostgres => {
      if (cluster === undefined) throw new Error("the private cluster did not start");
      return cluster;
    };

    /** One statement on a short-lived connection (pooled ones die with every restart). */
    async function adminQuery<R extends pg.QueryResultRow>(
      target: string,
      sql: string,
      params: unknown[] = [],
    ): Promise<R[]> {
      const client = new pg.Client({ connectionString: target });
      client.on("error", () => undefined);
      await client.connect();
      try {
        return (await client.query<R>(sql, params)).rows;
      } finally {
        await client.end().catch(() => undefined);
      }
    }

    beforeAll(async () => {
      cluster = await startPrivatePostgres();
      await adminQuery(cluster.url, `CREATE DATABASE ${TEMPLATE}`);
      const root = await openPostgresPrivileged({ url: cluster.urlFor(TEMPLATE), poolMax: 1 });
      try {
        await migrate(root);
      } finally {
        await root.close();
      }
    }, 60_000);

    afterAll(async () => {
      const dir = cluster?.dir;
      await cluster?.stop();
      if (dir !== undefined) {
        // Nothing of the cluster may outlive the file: pgrep exits 1 when nothing matches.
        let leftover = "";
        try {
          leftover = execFileSync("pgrep", ["-f", dir], { encoding: "utf8" });
        } catch {
          leftover = "";
        }
        expect(leftover).toBe("");
      }
    }, 60_000);

    beforeEach(async () => {
      databases += 1;
      const database = `irrevon_restart_${databases}`;
      await adminQuery(pgCluster().url, `CREATE DATABASE ${database} TEMPLATE ${TEMPLATE}`);
      url = pgCluster().urlFor(database);
      server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
      syncDir = mkdtempSync(join(tmpdir(), "irrevon-dbrestart-"));
    });

    afterEach(async () => {
      await Promise.all(children.splice(0).map((c) => c.kill()));
      await server.close();
      rmSync(syncDir, { recursive: true, force: true });
      // A test that failed while the server was down must not take the next one with it.
      if (cluster !== undefined && !cluster.isRunning()) await cluster.resume();
    });

    async function engine(extra: Record<string, string> = {}): Promise<EngineProcess> {
      const child = await EngineProcess.start(`engine-${children.length + 1}`, {
        IRREVON_DATABASE_URL: url,
        IRREVON_REFDEST_URL: server.url,
        IRREVON_REFDEST_TIER: "C2",
        IRREVON_WORKER_ID: `dbrestart-${databases}-${children.length + 1}`,
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
    const writes = (): number =>
      server.refdest.requestLog().filter((r) => r.op === "create").length;
    const effects = (): number => server.refdest.truthDump().effects.length;

    async function count(sql: string): Promise<number> {
      const rows = await adminQuery<{ n: number }>(
        url,
        `SELECT count(*)::int AS n FROM (${sql}) q`,
      );
      return Number(rows[0]?.n);
    }

    /** The history checker and the auditor, on a fresh read-role handle. */
    async function verdicts(legitimate: string[] = []): Promise<{
      history: HistoryVerdict;
      audit: Violation[];
    }> {
      const root = await openPostgresPrivileged({ url, poolMax: 2 });
      try {
        const read = root.as(DbRole.read);
        return {
          history: await checkRun(read, server.refdest, { legitimate }),
          audit: await auditLedger(read),
        };
      } finally {
        await root.close();
      }
    }

    async function expectSettledOnce(a: Intent): Promise<void> {
      expect(writes()).toBe(1);
      expect(effects()).toBe(1);
      const { history, audit } = await verdicts([a.effectId]);
      expect(history.violations).toEqual([]);
      expect(audit).toEqual([]);
      expect(await count("SELECT attempt_id FROM open_attempts")).toBe(0);
      const frontier = await adminQuery<{ frontier: string }>(
        url,
        "SELECT frontier FROM execution_frontiers WHERE effect_id = $1",
        [a.effectId],
      );
      expect(frontier.map((r) => r.frontier)).toEqual(["SETTLED_COMMITTED"]);
    }

    /** Reconciles until the effect settles; it must settle committed, confirmed unique. */
    async function reconcileUntilSettled(child: EngineProcess, a: Intent): Promise<void> {
      let answer: Record<string, unknown> = {};
      for (let i = 0; i < 40; i++) {
        answer = await child.call(`RECONCILE ${a.effectId}`);
        if (answer["status"] === "committed" || answer["status"] === "settled") break;
        await sleep(250);
      }
      expect(["committed", "settled"]).toContain(answer["status"]);
      expect(await child.call(`STATUS ${a.effectId}`)).toMatchObject({
        lifecycle: "SETTLED_COMMITTED",
        classification: "CONFIRMED_UNIQUE",
      });
    }

    /** Pauses `child` at receipt.pre_commit with the effect sent, then crashes the server. */
    async function crashBeforeReceipt(a: Intent, child: EngineProcess): Promise<void> {
      expect(await child.call(a.registerLine)).toMatchObject({ lifecycle: "PERSISTED" });
      child.post(a.dispatchLine);
      expect(await child.waitFor((l) => l === "HOOK receipt.pre_commit REACHED")).not.toBeNull();
      expect(writes()).toBe(1);
      await pgCluster().halt("immediate");
    }

    /** Releases the paused receipt write while the server is down: it must fail retryably. */
    async function receiptFailsWhileDown(child: EngineProcess): Promise<void> {
      release("receipt.pre_commit");
      expect(await child.nextReply()).toMatchObject({
        kind: "result",
        value: { error: { code: "storage_unavailable", retryable: true } },
      });
      expect(child.isAlive).toBe(true);
      expect(effects()).toBe(1);
    }

    it.each(["fast", "immediate"] as const)(
      "restart (%s) between register and dispatch: one dispatch, settled, nothing resent",
      async (mode) => {
        const a = intent(`restart-${mode}`);
        const child = await engine();
        expect(await child.call(a.registerLine)).toMatchObject({ lifecycle: "PERSISTED" });
        await pgCluster().restart({ mode });
        let reply = await child.call(a.dispatchLine);
        for (let retry = 0; "error" in reply && retry < 20; retry++) {
          // The only acceptable failure: a typed, retryable storage error that sent nothing.
          expect(reply).toMatchObject({
            error: { code: "storage_unavailable", retryable: true },
          });
          expect(writes()).toBe(0);
          await sleep(250);
          reply = await child.call(a.dispatchLine);
        }
        expect(reply).toMatchObject({ status: "dispatched", lifecycle: "SETTLED_COMMITTED" });
        await child.exit();
        await expectSettledOnce(a);
      },
      30_000,
    );

    it("dispatch while the server is down: storage_unavailable before any claim, the retry sends once", async () => {
      const a = intent("dispatch-while-down");
      const child = await engine();
      expect(await child.call(a.registerLine)).toMatchObject({ lifecycle: "PERSISTED" });
      await pgCluster().restart({
        mode: "immediate",
        whileDown: async () => {
          expect(await child.call(a.dispatchLine)).toMatchObject({
            error: { code: "storage_unavailable", retryable: true },
          });
          expect(child.isAlive).toBe(true);
        },
      });
      expect(writes()).toBe(0);
      expect(await count("SELECT decision_id FROM gate_decisions")).toBe(0);
      expect(await count("SELECT attempt_id FROM dispatch_attempts")).toBe(0);
      expect(await child.call(a.dispatchLine)).toMatchObject({
        status: "dispatched",
        lifecycle: "SETTLED_COMMITTED",
      });
      await child.exit();
      await expectSettledOnce(a);
    }, 30_000);

    it("crash-restart while the engine holds the wire call's outcome: it reconnects and records it", async () => {
      const a = intent("restart-before-receipt");
      const child = await engine({ IRREVON_SYNC_AT: "receipt.pre_commit" });
      await crashBeforeReceipt(a, child);
      await pgCluster().resume();
      release("receipt.pre_commit");
      expect(await child.nextReply()).toMatchObject({
        kind: "result",
        value: { status: "dispatched", lifecycle: "SETTLED_COMMITTED" },
      });
      await child.exit();
      await expectSettledOnce(a);
    }, 30_000);

    it("server down across the receipt write, back after the lease lapsed: storage_unavailable, then adjudicated once", async () => {
      const a = intent("down-past-lease");
      const child = await engine({ IRREVON_SYNC_AT: "receipt.pre_commit" });
      await crashBeforeReceipt(a, child);
      await receiptFailsWhileDown(child);
      await sleep(LEASE_TTL_MS + 500);
      await pgCluster().resume();
      // Nothing was lost: the claimed attempt survived the crash, still open.
      expect(await count("SELECT attempt_id FROM open_attempts")).toBe(1);
      await reconcileUntilSettled(child, a);
      await child.exit();
      await expectSettledOnce(a);
    }, 40_000);

    it("server crashed across the receipt write and back within the lease: the same live process settles it once", async () => {
      const a = intent("down-within-lease");
      const child = await engine({ IRREVON_SYNC_AT: "receipt.pre_commit" });
      await crashBeforeReceipt(a, child);
      await receiptFailsWhileDown(child);
      await pgCluster().resume();
      // Back within the lease: the lease the attempt was claimed under has not run out yet, so
      // only its forfeit (not expiry) can let anyone adjudicate the attempt now.
      expect(
        await count(
          `SELECT 1 FROM dispatch_attempts a JOIN worker_leases l USING (fencing_token)
            GROUP BY a.attempt_id HAVING max(l.expires_at) > clock_timestamp()`,
        ),
      ).toBe(1);
      expect(await count("SELECT attempt_id FROM open_attempts")).toBe(1);
      // While the SAME process lives, reconciling reaches the destination's answer: the
      // attempt is closed as LOST and confirmed committed, never resent, never settled failed.
      let answer: Record<string, unknown> = {};
      for (let i = 0; i < 30; i++) {
        answer = await child.call(`RECONCILE ${a.effectId}`);
        expect(["in_flight", "committed", "settled"]).toContain(answer["status"]);
        expect(writes()).toBe(1);
        if (answer["status"] !== "in_flight") break;
        await sleep(500);
      }
      expect(["committed", "settled"]).toContain(answer["status"]);
      expect(await child.call(`STATUS ${a.effectId}`)).toMatchObject({
        lifecycle: "SETTLED_COMMITTED",
        classification: "CONFIRMED_UNIQUE",
      });
      await expectSettledOnce(a);
      await child.exit();
      await expectSettledOnce(a);
    }, 40_000);

    it("control: a caller that resends after the storage error is caught (duplicate + unclaimed wire call)", async () => {
      const a = intent("restart-naive-resend");
      const child = await engine({ IRREVON_SYNC_AT: "receipt.pre_commit" });
      await crashBeforeReceipt(a, child);
      await receiptFailsWhileDown(child);
      await naiveResend(server.url, a);
      await pgCluster().resume();
      const caught = countByInvariant((await verdicts()).history.violations);
      expect(caught.duplicate_effect).toBe(1);
      expect(caught.unclaimed_wire_call).toBe(1);
    }, 30_000);
  },
);
