/**
 * engine/sweep-window — which slice of destination time a sweep run lists. Windows are in
 * DESTINATION time (the created_at the destination itself reports), never the engine's wall
 * clock: a destination's clock may be skewed, or virtual (the reference destination's starts at
 * 2026-07-21 and moves one second per request). So:
 *   - an explicit window is used as given (both bounds RFC 3339 instants, from ≤ to);
 *   - the default window starts at the adapter's destination-time high-water mark (the latest
 *     created_at any earlier run listed) minus the overlap and the declared listing lag, or
 *     earlier still if a ref that is waiting to become an orphan was created before that (it
 *     must be seen again); it has no upper bound (`9999-12-31T23:59:59Z`), so everything the
 *     destination holds up to its own "now" is listed. The first run of an adapter, or one
 *     whose listing lag is undeclared (unbounded), lists from the Unix epoch.
 * Imports: core, db, ledger, adapters, engine.
 */
import { parseIsoDurationSeconds } from "../adapters/declaration.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { isRfc3339 } from "../core/rfc3339.js";
import { earliestPendingSighting, sweepHighWaterMark } from "../ledger/sweep-record.js";
import type { AdapterEntry } from "./adapter-registry.js";
import type { EngineContext } from "./context.js";

/** A listing window in destination time (RFC 3339 instants, inclusive). */
export interface SweepWindow {
  readonly from: string;
  readonly to: string;
}

/** The window a run listed and where it came from. */
export interface ResolvedSweepWindow extends SweepWindow {
  readonly source: "explicit" | "default";
}

/** Start of a first (full) listing. */
export const SWEEP_EPOCH = "1970-01-01T00:00:00.000Z";
/** Upper bound of a default window: "up to the destination's own now". */
export const SWEEP_OPEN_END = "9999-12-31T23:59:59.000Z";

function checkExplicit(window: SweepWindow): ResolvedSweepWindow {
  for (const field of ["from", "to"] as const) {
    if (!isRfc3339(window[field])) {
      throw new IrrevonError(
        ErrorCode.usage,
        `sweep window.${field} must be an RFC 3339 instant with a zone`,
        { details: { field: `window.${field}` } },
      );
    }
  }
  if (Date.parse(window.from) > Date.parse(window.to)) {
    throw new IrrevonError(ErrorCode.usage, "sweep window.from must not be after window.to", {
      details: { field: "window" },
    });
  }
  return {
    from: new Date(Date.parse(window.from)).toISOString(),
    to: new Date(Date.parse(window.to)).toISOString(),
    source: "explicit",
  };
}

/** Resolves the window of the next run of `entry` (see the file header). */
export async function resolveSweepWindow(
  ctx: EngineContext,
  entry: AdapterEntry,
  window: SweepWindow | undefined,
): Promise<ResolvedSweepWindow> {
  if (window !== undefined) return checkExplicit(window);
  const adapterId = entry.adapter.adapterId;
  const mark = await sweepHighWaterMark(ctx.db, adapterId);
  const listingLag = entry.declaration.consistency.listing_lag;
  let fromMs = Date.parse(SWEEP_EPOCH);
  if (mark !== null && listingLag !== null) {
    const backSeconds = ctx.config.sweepOverlapSeconds + parseIsoDurationSeconds(listingLag);
    fromMs = Math.max(fromMs, Date.parse(mark) - backSeconds * 1000);
  }
  const pending = await earliestPendingSighting(ctx.db, adapterId);
  if (pending !== null) fromMs = Math.min(fromMs, Date.parse(pending));
  return { from: new Date(fromMs).toISOString(), to: SWEEP_OPEN_END, source: "default" };
}
