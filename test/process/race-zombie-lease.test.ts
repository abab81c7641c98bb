/**
 * Zombie owners (D2 fencing, reference §8 "an open attempt counts as abandoned only after its
 * owner's lease expired"): an engine process is frozen (SIGSTOP) holding a claimed attempt,
 * its lease runs out, a second process adjudicates the attempt, and then the first one wakes
 * up (SIGCONT) and carries on where it stopped. Whatever the zombie does afterwards must not
 * change history: frozen before the wire call it must not send at all (its lease is gone);
 * frozen after the call its receipt becomes a late response, never a second settlement.
 * Checked with the refdest request log, the ledger, the auditor and the history checker.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditLedger } from "../../src/ledger/auditor.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";
import { EngineProcess, sleep } from "../support/history/engine-process.js";
import { intent } from "../support/history/intents.js";
import { checkRun } from "../support/history/ledger-history.js";

/** As short as the engine allows: ≥ 2 × max(dispatch, probe deadline) + 1 s. */
const LEASE_TTL_MS = 4_000;

describe.skipIf(SKIP_POSTGRES)("a frozen owner wakes up after recovery [postgres]", () => {
  let ledger: TestLedger;
  let server: RefdestServer;
  let syncDir: string;
  const children: EngineProcess[] = [];

  beforeEach(async () => {
    ledger = await openTestLedger("postgres");
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    syncDir = mkdtempSync(join(tmpdir(), "irrevon-zombie-"));
  });
  afterEach(async () => {
    for (const c of children) if (c.pid !== undefined && c.isAlive) process.kill(c.pid, "SIGCONT");
    await Promise.all(children.splice(0).map((c) => c.kill()));
    await server.close();
    await ledger.close();
    rmSync(syncDir, { recursive: true, force: true });
  });

  async function engine(label: string, extra: Record<string, string> = {}): Promise<EngineProcess> {
    const child = await EngineProcess.start(label, {
      IRREVON_DATABASE_URL: ledger.url ?? "",
      IRREVON_REFDEST_URL: server.url,
      IRREVON_REFDEST_TIER: "C2",
      IRREVON_WORKER_ID: label,
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

  const writes = (): number => server.refdest.requestLog().filter((r) => r.op === "create").length;

  async function settleWith(child: EngineProcess): Promise<void> {
    for (let i = 0; i < 60; i++) {
      const report = await child.call("RECOVER");
      if (report["inFlight"] === 0 && report["parked"] === 0) return;
      await sleep(250);
    }
    throw new Error("recovery did not settle");
  }

  async function count(sql: string): Promise<number> {
    const { rows } = await ledger.read.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (${sql}) q`,
    );
    return Number(rows[0]?.n);
  }

  /** Freezes `zombie` at `seam`, lets its lease lapse, recovers with another process, wakes it. */
  async function freezeRecoverWake(
    seam: string,
    effect: ReturnType<typeof intent>,
  ): Promise<{
    zombieReply: Record<string, unknown>;
  }> {
    const zombie = await engine("zombie", { IRREVON_SYNC_AT: seam });
    await zombie.call(effect.registerLine);
    zombie.post(effect.dispatchLine);
    expect(await zombie.waitFor((l) => l === `HOOK ${seam} REACHED`)).not.toBeNull();
    process.kill(zombie.pid ?? 0, "SIGSTOP");
    writeFileSync(join(syncDir, `${seam}.release`), ""); // it will find this the moment it wakes
    await sleep(LEASE_TTL_MS + 700);
    const rescuer = await engine("rescuer");
    await settleWith(rescuer);
    process.kill(zombie.pid ?? 0, "SIGCONT");
    const reply = await zombie.nextReply();
    expect(reply.kind).toBe("result");
    await zombie.exit();
    await rescuer.exit();
    return { zombieReply: reply.kind === "result" ? reply.value : {} };
  }

  it("frozen after the claim, before sending: the rescuer proves absence and the zombie never sends", async () => {
    const a = intent("zombie-before-send");
    const { zombieReply } = await freezeRecoverWake("adapter.pre_call", a);
    expect(writes()).toBe(0);
    expect(zombieReply).toMatchObject({ status: "dispatched", receiptId: null });
    const { rows } = await ledger.read.query<{ frontier: string }>(
      "SELECT frontier FROM effect_frontiers WHERE effect_id = $1",
      [a.effectId],
    );
    expect(rows[0]?.frontier).toBe("SETTLED_FAILED");
    const verdict = await checkRun(ledger.read, server.refdest, { legitimate: [a.effectId] });
    expect(verdict.violations).toEqual([]);
    expect(await auditLedger(ledger.read)).toEqual([]);
  });

  it("frozen after the call, before its receipt: the rescuer settles it and the zombie's answer is only a late response", async () => {
    const a = intent("zombie-after-send");
    const { zombieReply } = await freezeRecoverWake("receipt.pre_commit", a);
    expect(writes()).toBe(1);
    expect(zombieReply).toMatchObject({
      status: "dispatched",
      transportOutcome: "OK",
      lifecycle: "SETTLED_COMMITTED",
      receiptId: null,
    });
    expect(await count("SELECT receipt_id FROM dispatch_receipts")).toBe(1);
    expect(await count("SELECT late_id FROM late_responses WHERE NOT contradicts_settle")).toBe(1);
    const verdict = await checkRun(ledger.read, server.refdest, { legitimate: [a.effectId] });
    expect(verdict.violations).toEqual([]);
    expect(await auditLedger(ledger.read)).toEqual([]);
  });
});
