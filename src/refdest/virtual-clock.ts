/**
 * refdest/virtual-clock — the reference destination's deterministic clock (§5.7).
 * Destination time is `2026-07-21T00:00:00Z + (request_count + advanced) seconds`: every
 * public API call (and every out-of-band creation) ticks it by one second, and the control API
 * may jump it forward (to expire an idempotency window or a read lag without thousands of
 * requests). Wall-clock time never enters destination state, so two runs with the same seed
 * and schedule produce the same timestamps. Imports: nothing.
 */

/** The destination's epoch: request 0 happens at this instant. */
export const REFDEST_EPOCH_ISO = "2026-07-21T00:00:00Z";
const EPOCH_MS = Date.parse(REFDEST_EPOCH_ISO);

/** Render a destination time (whole seconds after the epoch) as `YYYY-MM-DDTHH:MM:SSZ`. */
export function isoAtSeconds(secondsAfterEpoch: number): string {
  return new Date(EPOCH_MS + secondsAfterEpoch * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Seconds (possibly fractional) after the epoch of an ISO 8601 instant, or null if it is not one we accept. */
export function secondsAfterEpochOf(iso: string): number | null {
  // Require an explicit zone so a window bound is never interpreted in local time.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(iso))
    return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? (ms - EPOCH_MS) / 1000 : null;
}

/** Request counter plus manual advances; `now` is in whole seconds after the epoch. */
export class VirtualClock {
  #requestCount = 0;
  #advancedSeconds = 0;

  /** Count one request and return its sequence number (1-based). */
  tick(): number {
    this.#requestCount += 1;
    return this.#requestCount;
  }

  /** Jump destination time forward; used by the control API only. */
  advance(seconds: number): void {
    this.#advancedSeconds += seconds;
  }

  get requestCount(): number {
    return this.#requestCount;
  }

  get nowSeconds(): number {
    return this.#requestCount + this.#advancedSeconds;
  }

  get nowIso(): string {
    return isoAtSeconds(this.nowSeconds);
  }
}
