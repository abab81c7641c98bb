/**
 * engine/engine-time — the "now" every time-based decision of the engine uses: lag since the
 * claim, re-read and backoff schedules, audit lag, re-dispatch freshness, C1 replay windows,
 * sweep grace (§6, D2, D3). It is the DATABASE clock, read when deciding, because the times it
 * is compared with (`claimed_at`, schedules other processes stamped) are database or engine
 * times written by many processes: a host clock ahead of the database must not make an ABSENT
 * read count as past the lag, and two workers with skewed clocks must not shrink a re-read gap.
 *
 * The injectable `Clock` is ONLY a test offset on top of it:
 *   effective now = database now + offset,  offset = clock.now() − host now
 * (a manual clock reports how far it was moved since its creation instead, so database time
 * keeps running underneath and no two decisions can come out in the wrong order). With the
 * system clock the offset is exactly 0: the host clock never enters a decision. A host whose
 * own clock is skewed therefore changes nothing: its skew cancels out of the offset.
 * Imports: db, ledger, engine.
 */
import { performance } from "node:perf_hooks";
import { databaseNowMs } from "../ledger/sql-util.js";
import { systemClock, type Clock } from "./clock.js";
import type { EngineContext } from "./context.js";

/** The test offset a clock adds to database time (0 for the system clock). */
export function clockOffsetMs(clock: Clock): number {
  if (clock === systemClock) return 0;
  return clock.offsetMs?.() ?? clock.now().getTime() - Date.now();
}

/** Effective now in epoch milliseconds: database now plus the clock's test offset. */
export async function engineNowMs(ctx: Pick<EngineContext, "db" | "clock">): Promise<number> {
  return engineTimeOf(ctx, await databaseNowMs(ctx.db));
}

/**
 * Effective time of a database clock reading the caller already holds (read with other facts in
 * one statement, e.g. ledger/reconcile-inputs): that reading plus the test offset, taken now.
 */
export function engineTimeOf(ctx: Pick<EngineContext, "clock">, dbNowMs: number): number {
  return dbNowMs + clockOffsetMs(ctx.clock);
}

/**
 * Where a wire call started: the host's monotonic clock and the test offset then; for a plain
 * test clock (no `offsetMs`, a virtual time line) also that clock's own reading, so elapsed
 * virtual time is measured exactly instead of through the host's millisecond-truncated wall clock.
 */
export interface WireStart {
  readonly perfMs: number;
  readonly offsetMs: number;
  readonly clockMs: number | null;
}

/** The test offset now, and a plain clock's own reading taken with it (no database read). */
function offsetSample(clock: Clock): { readonly offsetMs: number; readonly clockMs: number | null } {
  if (clock === systemClock || clock.offsetMs !== undefined)
    return { offsetMs: clockOffsetMs(clock), clockMs: null };
  const clockMs = clock.now().getTime();
  return { offsetMs: clockMs - Date.now(), clockMs };
}

/** Engine time elapsed from `start` to a host instant and the clock sample taken with it. */
function elapsedBetween(
  start: WireStart,
  perfEndMs: number,
  end: { readonly offsetMs: number; readonly clockMs: number | null },
): number {
  return start.clockMs !== null && end.clockMs !== null
    ? end.clockMs - start.clockMs
    : perfEndMs - start.perfMs + (end.offsetMs - start.offsetMs);
}

/**
 * How long (engine time, whole ms rounded up) a wire call that started at `start` has taken
 * until now, with no database read. Recorded in every receipt the dispatcher and a replay probe
 * write, as `call_elapsed_ms`: the call ended no earlier than `claimed_at + call_elapsed_ms`
 * (the claim commits before the call starts), in real time and under a test clock alike, which
 * the receipt's own `recorded_at` (database time) does not show under a test clock.
 */
export function wireElapsedMs(ctx: Pick<EngineContext, "clock">, start: WireStart): number {
  const perfEndMs = performance.now();
  return Math.ceil(elapsedBetween(start, perfEndMs, offsetSample(ctx.clock)));
}

/**
 * The earliest instant (engine time) at which the destination can have read its state for a
 * status call started at `asked`, given `nowMs`, the engine time read from the database after
 * the answer arrived: `nowMs` less everything that has elapsed since `asked` (the call, the
 * wait for its answer and that database read). A destination may read its state at any moment
 * of the call, so an answer is dated when it was asked, never when it arrived: an ABSENT read
 * dated by its arrival could be a read made inside the declared lag, counted as past it.
 */
export function askedAtMs(ctx: Pick<EngineContext, "clock">, asked: WireStart, nowMs: number): number {
  return nowMs - wireElapsedMs(ctx, asked);
}

/** Marks the start of a wire call (no database read). */
export function startWire(ctx: Pick<EngineContext, "clock">): WireStart {
  return { perfMs: performance.now(), ...offsetSample(ctx.clock) };
}

/**
 * The latest instant (engine time, epoch ms) at which the destination could still commit a
 * call that started at `start` with `deadlineMs`: the end of the call (now), or the call's
 * deadline if that is later — a call that ended early by a dropped connection or a 5xx may
 * still be worked on by the destination until then. One database read, taken when the call
 * has ended. See docs/engine.md, "The absence rule".
 *
 * It errs late, never early: the call's elapsed time is measured up to an instant taken
 * BEFORE the database read, and the database clock is read after it, so neither the read's
 * own latency, a slow return nor its millisecond truncation can place the horizon before the instant the destination could
 * really still commit (a horizon too early is an ABSENT read counted too soon: a false LOST).
 * Decisions compare it with `engineNowMs`, which errs the other way (its offset is taken after
 * the read), so time measured between the two is never overstated.
 *
 * Null when the database cannot be read right now: the receipt then carries no stamp, and the
 * absence rule takes `recorded_at + deadline_ms` — database time, the receipt written after the
 * call ended. The host clock never stands in: one behind the database's would place the horizon
 * early.
 */
export async function commitHorizonMs(
  ctx: Pick<EngineContext, "db" | "clock">,
  start: WireStart,
  deadlineMs: number,
): Promise<number | null> {
  const perfEndMs = performance.now();
  const end = offsetSample(ctx.clock);
  let dbEndMs: number;
  try {
    dbEndMs = await databaseNowMs(ctx.db);
  } catch {
    return null;
  }
  // +1: the database reading is truncated to the millisecond (Date.parse), the elapsed time is not.
  const endMs = dbEndMs + 1 + end.offsetMs;
  const elapsedMs = elapsedBetween(start, perfEndMs, end);
  return Math.ceil(Math.max(endMs, endMs - elapsedMs + deadlineMs));
}

/**
 * What a receipt of a sent call records about its timing (dispatcher and C1 replay alike):
 * its deadline, the engine time it took (`call_elapsed_ms`, measured by the caller right after
 * the call) and, for an unknown outcome (TIMEOUT, LOST), the instant the absence rule counts
 * read lag from (`commit_horizon_at`; none when the database cannot be read now).
 */
export async function callTimingEvidence(
  ctx: Pick<EngineContext, "db" | "clock">,
  outcome: string,
  start: WireStart,
  deadlineMs: number,
  elapsedMs: number,
): Promise<{ deadline_ms: number; call_elapsed_ms: number; commit_horizon_at?: string }> {
  const horizonMs =
    outcome === "TIMEOUT" || outcome === "LOST"
      ? await commitHorizonMs(ctx, start, deadlineMs)
      : null;
  return {
    deadline_ms: deadlineMs,
    call_elapsed_ms: elapsedMs,
    ...(horizonMs === null ? {} : { commit_horizon_at: new Date(horizonMs).toISOString() }),
  };
}
