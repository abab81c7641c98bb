/**
 * engine/clock — the injectable time source, which is a TEST OFFSET relative to the database
 * clock, not a time base: every decision reads the database clock and adds the clock's offset
 * (engine-time). The offset of a plain clock is `now() − host now`; the system clock's is 0, so
 * a host clock skewed against the database changes no decision. A manual clock's offset is how
 * far it has been moved since it was created (`advance`, `set`): a test advances time instead
 * of waiting (D3), while database time keeps running underneath, so two decisions N ms of
 * advance apart are always at least N ms apart. Gate expiry and lease expiry use the database
 * clock with no offset. Imports: nothing.
 */

/** A source of the current time; only its offset from the host clock matters (a test offset). */
export interface Clock {
  now(): Date;
  /**
   * The test offset in ms added to database time. Optional: when absent it is
   * `now() − host now`.
   */
  offsetMs?(): number;
}

/** The wall clock (offset 0: decisions use pure database time). */
export const systemClock: Clock = { now: () => new Date(), offsetMs: () => 0 };

/** A clock that only moves when told to; for tests and deterministic demos. */
export interface ManualClock extends Clock {
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** Sets the clock to `at`. */
  set(at: Date): void;
  /** How far the clock has been moved from the host clock at its creation, in ms. */
  offsetMs(): number;
}

/** Creates a {@link ManualClock} starting at `start` (default: the wall clock now). */
export function manualClock(start: Date = new Date()): ManualClock {
  const createdAtHostMs = Date.now();
  let nowMs = start.getTime();
  return {
    now: () => new Date(nowMs),
    offsetMs: () => nowMs - createdAtHostMs,
    advance: (ms) => {
      nowMs += ms;
    },
    set: (at) => {
      nowMs = at.getTime();
    },
  };
}
