/**
 * The commit horizon errs late, never early (engine-time): a slow database read after the wire
 * call must not pull the horizon before the instant the destination could still commit, and a
 * decision's "now" must not run ahead of the time line. A database handle whose clock reading
 * is taken when the query arrives but whose answer comes back `returnDelayMs` later stands in
 * for a loaded machine; the old sampling (offset and elapsed time taken after the read) put the
 * horizon that much too early — a false LOST on a boundary commit.
 */
import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/engine/clock.js";
import { manualClock, systemClock } from "../../src/engine/clock.js";
import { commitHorizonMs, engineNowMs, startWire } from "../../src/engine/engine-time.js";
import type { Queryable } from "../../src/db/db.js";

function slowClockDb(returnDelayMs: number): { db: Queryable } {
  return {
    db: {
      async query<R>(): Promise<{ rows: R[]; rowCount: number }> {
        const at = new Date(Date.now()).toISOString();
        await new Promise((resolve) => setTimeout(resolve, returnDelayMs));
        return { rows: [{ now: at } as R], rowCount: 1 };
      },
    } as Queryable,
  };
}

function virtualTime(startMs: number): Clock & { set(ms: number): void } {
  let nowMs = startMs;
  return { now: () => new Date(nowMs), set: (ms) => (nowMs = ms) };
}

describe("commit horizon: errs late under a slow database read", () => {
  const DEADLINE_MS = 1_013;
  const DELAY_MS = 40;

  it("a virtual time line: the horizon is never before the call's start plus its deadline", async () => {
    const clock = virtualTime(Date.parse("2026-07-21T00:00:00Z"));
    const { db } = slowClockDb(DELAY_MS);
    const ctx = { db: db as never, clock };
    const start = startWire(ctx);
    const callStart = clock.now().getTime();
    clock.set(callStart + 200); // the call lasts 200 virtual ms
    const horizon = await commitHorizonMs(ctx, start, DEADLINE_MS);
    expect(horizon).toBeGreaterThanOrEqual(callStart + DEADLINE_MS);
    // ... and "now" read through the same slow database never runs ahead of the time line.
    expect(await engineNowMs(ctx)).toBeLessThanOrEqual(clock.now().getTime());
  });

  it("a call longer than its deadline: the horizon is never before the call's end", async () => {
    const clock = virtualTime(Date.parse("2026-07-21T00:00:00Z"));
    const ctx = { db: slowClockDb(DELAY_MS).db as never, clock };
    const start = startWire(ctx);
    clock.set(clock.now().getTime() + 5_000);
    const end = clock.now().getTime();
    expect(await commitHorizonMs(ctx, start, DEADLINE_MS)).toBeGreaterThanOrEqual(end);
  });

  it("the system clock: elapsed time is measured up to an instant before the read", async () => {
    const ctx = { db: slowClockDb(DELAY_MS).db as never, clock: systemClock };
    const callStart = Date.now();
    const start = startWire(ctx);
    const horizon = await commitHorizonMs(ctx, start, DEADLINE_MS);
    expect(horizon).toBeGreaterThanOrEqual(callStart + DEADLINE_MS);
  });

  it("a manual clock moved during the call: the move counts in full", async () => {
    const clock = manualClock();
    const ctx = { db: slowClockDb(DELAY_MS).db as never, clock };
    const callStart = Date.now() + clock.offsetMs();
    const start = startWire(ctx);
    clock.advance(10_000);
    expect(await commitHorizonMs(ctx, start, DEADLINE_MS)).toBeGreaterThanOrEqual(
      callStart + 10_000,
    );
    expect(await commitHorizonMs(ctx, start, 30_000)).toBeGreaterThanOrEqual(callStart + 30_000);
  });

  it("a database that cannot be read: no horizon (null), never the host clock", async () => {
    // A host clock behind the database's would place the horizon early; with no stamp the
    // absence rule takes the receipt's own recorded_at and the deadline (database time).
    const down = {
      async query(): Promise<never> {
        throw new Error("connection terminated");
      },
    } as unknown as Queryable;
    const ctx = { db: down as never, clock: systemClock };
    expect(await commitHorizonMs(ctx, startWire(ctx), DEADLINE_MS)).toBeNull();
  });
});
