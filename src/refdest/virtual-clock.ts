/**
 * refdest/virtual-clock — the reference destination's ONE clock (§5.7). Destination time is
 * `2026-07-21T00:00:00Z + elapsed + advanced`, where `elapsed` is measured by a time source:
 * by default the host's monotonic clock (real seconds since the destination started or was
 * reset), or one the caller injects (a test's manual clock, a frozen clock for byte-identical
 * runs). Everything time-based the destination does — created_at, read lag, the C1 idempotency
 * window — is measured on this one clock, so a declaration that states a lag or a window in
 * seconds is true of the destination in real seconds (item: "one clock per declaration"; an
 * earlier version measured lag in request ticks, so a declared PT30S could last for hours of
 * quiet traffic and yield a false LOST). Requests are still counted (sequence numbers), but
 * they no longer move time. The control API may jump time forward (`advance`). Imports: nothing.
 */
import { performance } from "node:perf_hooks";

/** The destination's epoch: destination time 0 is this instant. */
export const REFDEST_EPOCH_ISO = "2026-07-21T00:00:00Z";
const EPOCH_MS = Date.parse(REFDEST_EPOCH_ISO);

/** Where elapsed destination time comes from (milliseconds; only differences matter). */
export interface RefdestTimeSource {
  nowMs(): number;
}

/** The host's monotonic clock: real time, never stepped by NTP. */
export const monotonicTimeSource: RefdestTimeSource = { nowMs: () => performance.now() };

/** A clock that never moves on its own (only `advance` moves it): byte-identical runs. */
export const frozenTimeSource: RefdestTimeSource = { nowMs: () => 0 };

/**
 * Render a destination time (seconds after the epoch, possibly fractional) as ISO 8601 UTC:
 * `YYYY-MM-DDTHH:MM:SSZ` for whole seconds, with milliseconds otherwise.
 */
export function isoAtSeconds(secondsAfterEpoch: number): string {
  const ms = Math.floor(secondsAfterEpoch * 1000);
  return new Date(EPOCH_MS + ms).toISOString().replace(/\.000Z$/, "Z");
}

/** Seconds (possibly fractional) after the epoch of an ISO 8601 instant, or null if it is not one we accept. */
export function secondsAfterEpochOf(iso: string): number | null {
  // Require an explicit zone so a window bound is never interpreted in local time.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(iso))
    return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? (ms - EPOCH_MS) / 1000 : null;
}

/** Request counter plus destination time (elapsed on the time source, plus manual advances). */
export class VirtualClock {
  readonly #source: RefdestTimeSource;
  readonly #startMs: number;
  #requestCount = 0;
  #advancedSeconds = 0;

  constructor(source: RefdestTimeSource = monotonicTimeSource) {
    this.#source = source;
    this.#startMs = source.nowMs();
  }

  /** Count one request and return its sequence number (1-based). Time does not move. */
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

  /** Destination time in seconds after the epoch (millisecond resolution). */
  get nowSeconds(): number {
    const elapsedMs = Math.max(0, Math.floor(this.#source.nowMs() - this.#startMs));
    return elapsedMs / 1000 + this.#advancedSeconds;
  }

  get nowIso(): string {
    return isoAtSeconds(this.nowSeconds);
  }
}
