/**
 * engine/clock — the engine's notion of "now" for lag, re-read and backoff decisions.
 * Injectable so tests advance time instead of waiting (D3). Gate expiry and lease expiry
 * use the database clock instead, because several processes must agree on them.
 * Imports: nothing.
 */

/** A source of the current time. */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and deterministic demos. */
export interface ManualClock extends Clock {
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** Sets the clock to `at`. */
  set(at: Date): void;
}

/** Creates a {@link ManualClock} starting at `start` (default: the wall clock now). */
export function manualClock(start: Date = new Date()): ManualClock {
  let nowMs = start.getTime();
  return {
    now: () => new Date(nowMs),
    advance: (ms) => {
      nowMs += ms;
    },
    set: (at) => {
      nowMs = at.getTime();
    },
  };
}
