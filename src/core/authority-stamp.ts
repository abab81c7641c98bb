/**
 * core/authority-stamp — an authority stamp may not lie in the future beyond a clock-skew
 * tolerance. Authority expires at `stamped_at + max_age`, so a stamp in year 9999 would never
 * expire and every later dispatch would pass the freshness check on a belief nobody holds.
 * Whoever accepts a stamp (registration, a fresh authority on retry, resolve or the operator
 * API) passes the clock the gate's freshness check uses — the database clock — as `nowMs`.
 *
 * Imports: core/errors, core/rfc3339.
 */
import { ContractInvalidError, ErrorCode, IrrevonError } from "./errors.js";
import { epochMicrosOf, formatUtcMicros, parseRfc3339 } from "./rfc3339.js";

/** Default tolerance for a stamp ahead of the database clock (docs/engine.md). */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 300_000;

/** What the check compares against. */
export interface StampClock {
  /** The database clock now, in epoch milliseconds. */
  readonly nowMs: number;
  /** How far a stamp may lie ahead of `nowMs` (inclusive). */
  readonly maxClockSkewMs: number;
}

/**
 * Throws when `stampedAt` lies more than `maxClockSkewMs` after `nowMs` (exactly at the
 * tolerance is accepted). The error names the field (`details.path`, `details.field`), the
 * limit `max_clock_skew` and its value in ms; `code` picks the error code the caller's API
 * uses for bad input (`contract_invalid` for contracts and the operator API,
 * `resolution_invalid` for a fresh authority on retry and resolve). A text that is not a
 * valid date-time is left to the caller's own format check.
 */
export function checkAuthorityStamp(
  stampedAt: string,
  clock: StampClock,
  code: "contract_invalid" | "resolution_invalid" = "contract_invalid",
  path = "$.stamped_at",
): void {
  if (parseRfc3339(stampedAt) === undefined) return;
  const stampMicros = epochMicrosOf(stampedAt);
  const latestMicros = BigInt(Math.trunc(clock.nowMs + clock.maxClockSkewMs)) * 1000n;
  if (stampMicros <= latestMicros) return;
  const details = {
    path,
    field: "stamped_at",
    limit: "max_clock_skew",
    limit_value: clock.maxClockSkewMs,
    latest_allowed: formatUtcMicros(latestMicros),
  };
  const message = `stamped_at lies more than ${clock.maxClockSkewMs} ms after the database clock`;
  if (code === "contract_invalid") {
    throw new ContractInvalidError(message, path, "max_clock_skew", "string", details);
  }
  throw new IrrevonError(ErrorCode.resolution_invalid, message, { details });
}
