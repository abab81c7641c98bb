/**
 * refdest/refdest-options — what a Refdest is built from and the typed inputs of its
 * operations, with the checks that refuse bad configuration (IrrevonError `config_invalid`
 * naming the field). Imports: core.
 */
import { IrrevonError } from "../core/errors.js";
import type { RefdestTimeSource } from "./virtual-clock.js";
import type { RefdestOp, RefdestTier } from "./wire-types.js";

export interface RefdestOptions {
  readonly tier: RefdestTier;
  /** Non-negative safe integer; refs are derived from it. */
  readonly seed: number;
  /**
   * Profile read lag for every created effect (C1/C2), in seconds of destination time — the
   * same clock as everything else here (real seconds by default). Default 0.
   */
  readonly lagSeconds?: number;
  /**
   * Where destination time comes from (default: the host's monotonic clock, real seconds).
   * Tests inject their manual clock so engine and destination share one time line, or
   * `frozenTimeSource` for byte-identical runs.
   */
  readonly clock?: RefdestTimeSource;
  /** Store every payload enriched (server fields added), so stored digests never match. */
  readonly enrichmentQuirk?: boolean;
  /** C1 replay window in seconds of destination time. Default 86 400 (the declared PT24H). */
  readonly idempotencyWindowSeconds?: number;
  /** Control token; a fresh random one when omitted. */
  readonly controlToken?: string;
}

export interface CreateInput {
  readonly effect_type: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly client_ref?: string | null | undefined;
  readonly idempotency_key?: string | null | undefined;
}
export interface NotifyInput {
  readonly effect_type: string;
  readonly payload: Readonly<Record<string, unknown>>;
}
export interface ListInput {
  readonly from: string;
  readonly to: string;
  readonly include_all?: boolean;
  readonly limit?: number;
  readonly cursor?: string | null;
}
/** One key of a batch status lookup: what `GET /effects/{ref}` or `?client_ref=` would ask. */
export interface StatusKeyInput {
  readonly by: "client_ref" | "destination_ref";
  readonly value: string;
}
export interface StatusBatchInput {
  readonly keys: readonly StatusKeyInput[];
}
export interface OobInput {
  readonly effect_type: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly client_ref?: string | null | undefined;
}

export const DEFAULT_IDEMPOTENCY_WINDOW_SECONDS = 86_400;
export const MAX_LIST_LIMIT = 100;
/** Most keys one `POST /effects/status` may carry (documented in docs/refdest.md). */
export const MAX_STATUS_BATCH_KEYS = 1000;
/** Upper bound for lags, windows and clock jumps (ten years of destination time). */
export const MAX_SECONDS = 10 * 365 * 86_400;

/** The public operations each tier serves (`oob` is control-only and always available). */
export const TIER_OPS: Readonly<Record<RefdestTier, readonly RefdestOp[]>> = {
  C1: ["create", "get", "query", "query_batch", "list"],
  C2: ["create", "get", "query", "query_batch", "list"],
  C3: ["notify"],
};

/** Throws config_invalid unless the tier is C1, C2 or C3. */
export function checkTier(tier: unknown): RefdestTier {
  if (tier !== "C1" && tier !== "C2" && tier !== "C3") {
    throw new IrrevonError("config_invalid", "tier must be C1, C2 or C3", {
      details: { field: "tier" },
    });
  }
  return tier;
}

/** Throws config_invalid unless the value is a non-negative safe integer. */
export function checkSeed(seed: unknown): number {
  if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) {
    throw new IrrevonError("config_invalid", "seed must be a non-negative safe integer", {
      details: { field: "seed" },
    });
  }
  return seed;
}

/** Throws config_invalid unless the value is an integer number of seconds in [0, max]. */
export function checkSeconds(field: string, value: unknown, max = MAX_SECONDS): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new IrrevonError("config_invalid", `${field} must be an integer in [0, ${max}]`, {
      details: { field },
    });
  }
  return value;
}
