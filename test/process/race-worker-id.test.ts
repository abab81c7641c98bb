/**
 * One live engine per worker id (issue 14, item 6). Engine A (worker id "shared") claims an
 * attempt and is held at adapter.pre_call; engine B starts with the same worker id while A is
 * alive. B must be refused at open with `worker_id_in_use` (retryable) — before its recovery
 * could take over A's lease and close A's running attempt as LOST. A then sends once and
 * settles its own attempt; the receipt is A's (recorded by the dispatcher), nothing is fenced,
 * the ledger, the auditor and the history checker are clean. Once A exits, the id is free.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditLedger } from "../../src/ledger/auditor.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";
import { EngineProcess } from "../support/history/engine-process.js";
import { intent } from "../support/history/intents.js";
import { checkRun } from "../support/history/ledger-history.js";

describe.skipIf(SKIP_POSTGRES)("two engine processes, one worker id [postgres]", () => {
  let ledger: TestLedger;
  let server: RefdestServer;
  let syncDir: string;
  const children: EngineProcess[] = [];

  beforeEach(async () => {
    ledger = await openTestLedger("postgres");
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    syncDir = mkdtempSync(join(tmpdir(), "irrevon-worker-id-"));
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((c) => c.kill()));
    await server.close();
    await ledger.close();
    rmSync(syncDir, { recursive: true, force: true });
  });

  function spawnEngine(label: string, extra: Record<string, string> = {}): EngineProcess {
    const child = EngineProcess.spawn(label, {
      IRREVON_DATABASE_URL: ledger.url ?? "",
      IRREVON_REFDEST_URL: server.url,
      IRREVON_REFDEST_TIER: "C2",
      IRREVON_WORKER_ID: "shared",
      IRREVON_LEASE_TTL_MS: "30000",
      IRREVON_TEST_HOOKS: "1",
      IRREVON_SYNC_DIR: syncDir,
      ...extra,
    });
    children.push(child);
    return child;
  }

  it(
    "the second open is refused while the first's attempt is in flight; the first settles its own attempt",
    { timeout: 180_000 },
    async () => {
      const a = intent("worker-id-shared");
      const first = spawnEngine("first", { IRREVON_SYNC_AT: "adapter.pre_call" });
      await first.ready();
      await first.call(a.registerLine);
      first.post(a.dispatchLine);
      expect(await first.waitFor((l) => l === "HOOK adapter.pre_call REACHED")).not.toBeNull();

      const second = spawnEngine("second");
      const line = await second.waitFor(
        (l) => l.startsWith("REFUSED ") || l.startsWith("RECOVERY DONE ") || l === "READY",
        60_000,
      );
      expect(line?.startsWith("REFUSED ")).toBe(true);
      const refused = JSON.parse(line!.slice("REFUSED ".length)) as Record<string, unknown>;
      expect(refused).toMatchObject({
        error: { code: "worker_id_in_use", retryable: true, details: { worker_id: "shared" } },
      });
      expect(await second.exited).toMatchObject({ code: 3 });

      writeFileSync(join(syncDir, "adapter.pre_call.release"), "");
      expect(await first.nextReply()).toMatchObject({
        kind: "result",
        value: { status: "dispatched", transportOutcome: "OK", lifecycle: "SETTLED_COMMITTED" },
      });
      const { rows } = await ledger.read.query<{ recorded_by: string; worker: string }>(
        `SELECT r.recorded_by, r.recorded_by_worker AS worker
         FROM dispatch_receipts r JOIN dispatch_attempts t USING (attempt_id)
         JOIN effect_executions x USING (execution_id) WHERE x.effect_id = $1`,
        [a.effectId],
      );
      expect(rows).toEqual([{ recorded_by: "dispatcher", worker: "shared" }]);
      const late = await ledger.read.query("SELECT late_id FROM late_responses");
      expect(late.rows).toEqual([]);
      expect(server.refdest.requestLog().filter((r) => r.op === "create")).toHaveLength(1);
      const verdict = await checkRun(ledger.read, server.refdest, { legitimate: [a.effectId] });
      expect(verdict.violations).toEqual([]);
      expect(await auditLedger(ledger.read)).toEqual([]);

      // The id is free once its owner has gone (a clean exit releases the lease).
      await first.exit();
      const third = spawnEngine("third");
      await third.ready();
      await third.exit();
    },
  );
});
