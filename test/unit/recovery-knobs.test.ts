/**
 * Recovery at scale (issue 11 item 4): the page size and lane count are validated at open
 * (config_invalid naming the field, the range and a fix), and the bounded pool hands every
 * item to exactly one call, never runs more than the limit at once, keeps the input order,
 * and stops starting items after a failure while waiting for the running ones.
 */
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { mapBounded } from "../../src/engine/bounded-pool.js";
import {
  DEFAULT_ENGINE_CONFIG,
  RECOVERY_CONCURRENCY_MAX,
  RECOVERY_PAGE_SIZE_MAX,
  resolveEngineConfig,
} from "../../src/engine/config.js";
import { expectCode } from "./helpers/contracts.js";

describe("recovery knobs", () => {
  it("documented defaults: page 100, concurrency 8", () => {
    expect(DEFAULT_ENGINE_CONFIG).toMatchObject({ recoveryPageSize: 100, recoveryConcurrency: 8 });
    expect(resolveEngineConfig({ recoveryPageSize: 1, recoveryConcurrency: 1 })).toMatchObject({
      recoveryPageSize: 1,
      recoveryConcurrency: 1,
    });
  });

  it("the ledger's turns default to this host's CPU count", () => {
    expect(DEFAULT_ENGINE_CONFIG.recoveryLedgerConcurrency).toBe(
      Math.min(availableParallelism(), RECOVERY_CONCURRENCY_MAX),
    );
  });

  it.each([
    ["recoveryPageSize", 0, 1],
    ["recoveryPageSize", RECOVERY_PAGE_SIZE_MAX + 1, RECOVERY_PAGE_SIZE_MAX],
    ["recoveryPageSize", 2.5, 3],
    ["recoveryConcurrency", 0, 1],
    ["recoveryConcurrency", RECOVERY_CONCURRENCY_MAX + 1, RECOVERY_CONCURRENCY_MAX],
    ["recoveryConcurrency", Number.NaN, 1],
    ["recoveryLedgerConcurrency", 0, 1],
    ["recoveryLedgerConcurrency", RECOVERY_CONCURRENCY_MAX + 1, RECOVERY_CONCURRENCY_MAX],
  ])("%s = %d → config_invalid with the range and a fix", (field, value, fix) => {
    const error = expectCode(() => resolveEngineConfig({ [field]: value }), "config_invalid");
    expect(error.details).toMatchObject({ field, min: 1, fix: { [field]: fix } });
    expect(error.message).toContain(field);
  });
});

describe("mapBounded", () => {
  const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

  it("each item exactly once, in order, never more than the limit at once", async () => {
    const items = Array.from({ length: 57 }, (_, i) => i);
    const calls = new Map<number, number>();
    let running = 0;
    let peak = 0;
    const out = await mapBounded(items, 5, async (x) => {
      calls.set(x, (calls.get(x) ?? 0) + 1);
      running += 1;
      peak = Math.max(peak, running);
      for (let k = 0; k < (x % 4) + 1; k++) await tick();
      running -= 1;
      return x * 2;
    });
    expect(out).toEqual(items.map((x) => x * 2));
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
    expect(calls.size).toBe(items.length);
    expect(peak).toBe(5);
  });

  it("after a failure starts nothing new, waits for the running calls, then throws it", async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = mapBounded([0, 1, 2, 3, 4, 5, 6, 7], 3, async (x) => {
      started.push(x);
      await tick();
      if (x === 1) throw new Error("boom");
      await tick();
      finished.push(x);
      return x;
    });
    await expect(run).rejects.toThrow("boom");
    expect(started).toEqual([0, 1, 2]);
    expect(finished.sort()).toEqual([0, 2]);
  });

  it("an empty list and a limit above the list length are fine", async () => {
    expect(await mapBounded([], 8, () => Promise.resolve(1))).toEqual([]);
    expect(await mapBounded([1, 2], 64, (x) => Promise.resolve(x + 1))).toEqual([2, 3]);
  });
});
