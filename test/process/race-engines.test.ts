/**
 * Race suite (D2, reference §8 concurrency, seed 004): 2, 4, 8 and 16 engine processes on
 * one Postgres database, released together by a lock barrier (test/support/history/
 * lock-barrier.ts: every claim is queued inside its transaction when the slot lock opens),
 * onto the same effect, onto one slot with different effects, and onto one registration.
 * Exactly one wire call per operation id (refdest request log), at most one open attempt per
 * slot at a time (sampled, and by the scope_busy replies while the winner's call is held
 * open), auditor and history checker clean. Then 8 processes race through the same 200
 * intents (issue 4). Control: a naive check-then-act guard (reads before it locks) under the
 * same barrier admits every worker, so the barrier is known to expose that race.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLedger } from "../../src/ledger/auditor.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";
import { EngineProcess, type EngineReply } from "../support/history/engine-process.js";
import { intent, type Intent } from "../support/history/intents.js";
import { checkRun } from "../support/history/ledger-history.js";
import {
  naiveCheckThenAct,
  releaseTogether,
  sampleOpenAttempts,
} from "../support/history/lock-barrier.js";

const FLEET = 16;
const COUNTS = [2, 4, 8, 16] as const;
const FULL = process.env["IRREVON_PROOF_SCALE"] === "full";
/** Issue 4 asks for 200; the default run keeps the same shape at a CI-sized count. */
const STRESS_INTENTS = FULL ? 1_000 : 200;
const STRESS_PROCESSES = 8;

function statusOf(reply: EngineReply): string {
  if (reply.kind === "exited") return `exited:${String(reply.exit.signal ?? reply.exit.code)}`;
  const error = reply.value["error"] as { code?: string } | undefined;
  return error !== undefined ? `error:${error.code ?? "?"}` : String(reply.value["status"]);
}

function tally(replies: readonly EngineReply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) out[statusOf(r)] = (out[statusOf(r)] ?? 0) + 1;
  return out;
}

/** Deterministic shuffle (mulberry32), so a failing order can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe.skipIf(SKIP_POSTGRES)("engine processes racing on one Postgres", () => {
  let ledger: TestLedger;
  let server: RefdestServer;
  let url: string;
  const fleet: EngineProcess[] = [];

  beforeAll(async () => {
    ledger = await openTestLedger("postgres");
    url = ledger.url ?? "";
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    // Booted in small batches: 16 cold tsx processes at once would starve a 2-core runner.
    for (let i = 0; i < FLEET; i += 4) {
      const batch = Array.from({ length: Math.min(4, FLEET - i) }, (_, k) =>
        EngineProcess.start(`racer-${i + k + 1}`, {
          IRREVON_DATABASE_URL: url,
          IRREVON_REFDEST_URL: server.url,
          IRREVON_REFDEST_TIER: "C2",
          IRREVON_WORKER_ID: `racer-${i + k + 1}`,
          IRREVON_DISPATCH_DEADLINE_MS: "5000",
          IRREVON_PROBE_DEADLINE_MS: "5000",
        }),
      );
      fleet.push(...(await Promise.all(batch)));
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all(fleet.map((c) => c.exit()));
    await server?.close();
    await ledger?.close();
  });

  const writes = (operationId: string): number =>
    server.refdest.requestLog().filter((r) => r.op === "create" && r.client_ref === operationId)
      .length;

  async function expectLedgerClean(legitimate: readonly string[]): Promise<void> {
    const verdict = await checkRun(ledger.read, server.refdest, { legitimate });
    expect(verdict.violations).toEqual([]);
    expect(Math.max(0, ...verdict.wireCallsByOperation.values())).toBe(1);
    expect(await auditLedger(ledger.read)).toEqual([]);
  }

  async function attemptsOf(effectId: string): Promise<number> {
    const { rows } = await ledger.read.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM dispatch_attempts a JOIN effect_executions x USING (execution_id) WHERE x.effect_id = $1",
      [effectId],
    );
    return Number(rows[0]?.n);
  }

  for (const n of COUNTS) {
    it(`${n} processes, one effect: exactly one claim and one wire call`, async () => {
      const a = intent(`race-same-${n}`);
      await fleet[0]!.call(a.registerLine);
      const racers = fleet.slice(0, n);
      const { gathered, replies } = await releaseTogether(
        url,
        { scope: a.scope, effectType: "order.create" },
        racers.map((c) => [c, a.dispatchLine] as const),
      );
      expect(gathered).toBeGreaterThanOrEqual(n);
      const t = tally(replies);
      expect(t["dispatched"]).toBe(1);
      expect((t["pending_reconciliation"] ?? 0) + (t["denied"] ?? 0)).toBe(n - 1);
      expect(writes(a.operationId)).toBe(1);
      expect(await attemptsOf(a.effectId)).toBe(1);
      await expectLedgerClean([a.effectId]);
    });

    it(`${n} processes, ${n} effects in one slot: one open attempt at a time, each sent once`, async () => {
      const scope = `race-slot-${n}`;
      const intents = Array.from({ length: n }, (_, i) => intent(`slot-${n}-${i}`, { scope }));
      for (const [i, x] of intents.entries()) await fleet[i]!.call(x.registerLine);
      // The winner's call is held open at the destination, so every other claim meets it.
      server.refdest.schedule([{ fault: "DELAY", match: { op: "create" }, param: { ms: 1_500 } }]);
      const sampler = sampleOpenAttempts(url, { scope, effectType: "order.create" });
      const { gathered, replies } = await releaseTogether(
        url,
        { scope, effectType: "order.create" },
        intents.map((x, i) => [fleet[i]!, x.dispatchLine] as const),
      );
      expect(gathered).toBeGreaterThanOrEqual(n);
      expect(tally(replies)).toEqual({ dispatched: 1, ...(n > 1 ? { scope_busy: n - 1 } : {}) });
      // The rest go one at a time, as a caller retrying scope_busy would.
      for (const [i, x] of intents.entries()) {
        if (statusOf(replies[i]!) === "dispatched") continue;
        expect(await fleet[i]!.call(x.dispatchLine)).toMatchObject({ status: "dispatched" });
      }
      const sampled = await sampler.stop();
      expect(sampled.samples).toBeGreaterThan(0);
      expect(sampled.max).toBe(1);
      for (const x of intents) expect(writes(x.operationId)).toBe(1);
      await expectLedgerClean(intents.map((x) => x.effectId));
    });

    it(`${n} processes register one intent at once: one record, one winner, the rest replay`, async () => {
      const a = intent(`race-register-${n}`);
      const racers = fleet.slice(0, n);
      for (const c of racers) c.post(a.registerLine);
      const replies = await Promise.all(racers.map((c) => c.nextReply()));
      const values = replies.map((r) => (r.kind === "result" ? r.value : { exited: true }));
      expect(values.filter((v) => v["replayed"] === false)).toHaveLength(1);
      expect(values.filter((v) => v["replayed"] === true)).toHaveLength(n - 1);
      expect(new Set(values.map((v) => v["effectId"]))).toEqual(new Set([a.effectId]));
      const { rows } = await ledger.read.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM effect_executions WHERE effect_id = $1",
        [a.effectId],
      );
      expect(Number(rows[0]?.n)).toBe(1);
    });
  }

  it(`${STRESS_PROCESSES} processes race through the same ${STRESS_INTENTS} intents: one wire call each`, async () => {
    const intents: Intent[] = Array.from({ length: STRESS_INTENTS }, (_, i) => intent(`bulk-${i}`));
    const racers = fleet.slice(0, STRESS_PROCESSES);
    const perChild = racers.map((child, k) => {
      const order = shuffled(intents, 7_000 + k);
      for (const x of order) {
        child.post(x.registerLine);
        child.post(x.dispatchLine);
      }
      return order;
    });
    const outcomes = await Promise.all(
      racers.map(async (child, k) => {
        const seen: Array<[string, string]> = [];
        for (const x of perChild[k]!) {
          const registered = await child.nextReply(120_000);
          expect(registered).toMatchObject({ kind: "result", value: { effectId: x.effectId } });
          seen.push([x.effectId, statusOf(await child.nextReply(120_000))]);
        }
        return seen;
      }),
    );
    const dispatchedBy = new Map<string, number>();
    const statuses: Record<string, number> = {};
    for (const [effectId, status] of outcomes.flat()) {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === "dispatched")
        dispatchedBy.set(effectId, (dispatchedBy.get(effectId) ?? 0) + 1);
    }
    expect(
      Object.keys(statuses).filter(
        (s) => !["dispatched", "pending_reconciliation", "denied"].includes(s),
      ),
    ).toEqual([]);
    expect(dispatchedBy.size).toBe(STRESS_INTENTS);
    expect([...dispatchedBy.values()].every((c) => c === 1)).toBe(true);
    for (const x of intents) expect(writes(x.operationId)).toBe(1);
    await expectLedgerClean(intents.map((x) => x.effectId));
  }, 300_000);

  it("control: a naive check-then-act guard under the same barrier admits every worker", async () => {
    for (const n of COUNTS) {
      const slot = { scope: `naive-slot-${n}`, effectType: "order.create" };
      const { gathered, admitted } = await naiveCheckThenAct(url, slot, n);
      expect(gathered).toBeGreaterThanOrEqual(n);
      expect(admitted).toBe(n);
    }
  });
});
