/**
 * One tiny run of the engine benchmark's single-vs-batched recovery comparison
 * (bench/engine/recovery-batching), so the harness cannot rot: a small backlog against a
 * destination with latency, recovered with single status queries and then with batch lookups.
 * Checks counts and the report's row and section, never the speed.
 */
import { describe, expect, it } from "vitest";
import { createPgliteBenchDatabase } from "../../src/bench/engine/bench-database.js";
import {
  judgeRecoveryBatching,
  measureRecoveryBatching,
  RECOVERY_BATCHING_KEY,
  renderRecoveryBatching,
} from "../../src/bench/engine/recovery-batching.js";
import type { MeasuredRun } from "../../src/bench/engine/report-types.js";

const EFFECTS = 10;

describe("engine benchmark: recovery against a destination with latency, single vs batched", () => {
  it("recovers the backlog both ways; the batched side sends batch calls only, and fewer", async () => {
    const db = await createPgliteBenchDatabase();
    try {
      const r = await measureRecoveryBatching(db, {
        effects: EFFECTS,
        latencyMs: 20,
        batchMax: 10,
        tag: `smoke${Date.now().toString(36)}`,
      });
      const reads = EFFECTS / 2 + 2 * (EFFECTS / 2);
      expect(r.single).toMatchObject({
        adjudicated: EFFECTS,
        statusQueries: reads,
        wireCalls: reads,
        batchCalls: 0,
        latencyMs: 20,
      });
      expect(r.batched).toMatchObject({
        adjudicated: EFFECTS,
        statusQueries: 0,
        batchMax: 10,
        latencyMs: 20,
      });
      expect(r.batched.batchCalls).toBe(r.batched.wireCalls);
      // CPU over the recovery call: the one process runs engine, destination and PGlite.
      expect(r.single.engineCpuMsPerEffect).toBeGreaterThan(0);
      expect(r.single.serverCpuMsPerEffect).toBeNull();
      expect(r.batched.wireCalls).toBeGreaterThanOrEqual(Math.ceil(reads / 10));
      expect(r.batched.wireCalls).toBeLessThan(reads);

      const run = { extra: { [RECOVERY_BATCHING_KEY]: [r] } } as unknown as MeasuredRun;
      const [row] = judgeRecoveryBatching(run);
      expect(row?.name).toBe(
        `recovery of ${EFFECTS} AMBIGUOUS effects, destination latency 20 ms: single queries vs batched (pglite)`,
      );
      expect(row?.met).toBeNull();
      const md = renderRecoveryBatching(run).join("\n");
      expect(md).toContain("| pglite | 10 | 20 | single queries |");
      expect(md).toContain("| pglite | 10 | 20 | batched (≤ 10 keys) |");
    } finally {
      await db.close();
    }
  }, 120_000);
});
