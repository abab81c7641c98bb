/**
 * testing/refdest-harness — the in-memory reference destination wired to its adapter without
 * sockets (`inProcessRefdest`), and a ready conformance harness for it (`refdestHarness`).
 * Destination time is frozen and moves only when told (`advanceMs`), so lag checks are
 * deterministic and instant. Imports: adapters, refdest, testing.
 */
import type { Adapter, CapabilityDeclaration } from "../adapters/contract.js";
import { refdestDeclaration } from "../adapters/declarations/refdest.js";
import { RefdestAdapter } from "../adapters/refdest-adapter.js";
import {
  createInProcessTransport,
  createRefdest,
  frozenTimeSource,
  type Refdest,
  type RefdestTimeSource,
} from "../refdest/index.js";
import type { ConformanceHarness, HarnessFactory } from "./conformance-types.js";

/** The origin the in-process adapter is configured with (never dialled). */
export const IN_PROCESS_BASE_URL = "http://127.0.0.1:4100";

export interface InProcessRefdestOptions {
  readonly tier: "C1" | "C2" | "C3";
  /** Non-negative safe integer; destination refs are derived from it. Default 1. */
  readonly seed?: number;
  /** Read lag of every created effect, seconds of destination time (C1/C2). Default 0. */
  readonly lagSeconds?: number;
  /** Destination time source; default real monotonic time. Use `frozenTimeSource` for fake time. */
  readonly clock?: RefdestTimeSource;
  /**
   * Declare the destination's batch status lookup (`queryable.batch_max`, 2..1000; C1/C2) in the
   * default declaration. Default: none (one key per status query).
   */
  readonly batchMax?: number;
  /** The adapter's declaration; default the tier's refdest declaration for `lagSeconds`. */
  readonly declaration?: CapabilityDeclaration;
}

/** An in-memory reference destination and a RefdestAdapter that reaches it in-process. */
export interface InProcessRefdest {
  readonly destination: Refdest;
  readonly adapter: RefdestAdapter;
}

/** Create an in-memory reference destination with an adapter wired to it (no sockets). */
export function inProcessRefdest(options: InProcessRefdestOptions): InProcessRefdest {
  const lagSeconds = options.lagSeconds ?? 0;
  const destination = createRefdest({
    tier: options.tier,
    seed: options.seed ?? 1,
    lagSeconds,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const adapter = new RefdestAdapter({
    baseUrl: IN_PROCESS_BASE_URL,
    declaration:
      options.declaration ??
      refdestDeclaration(options.tier, {
        lagSeconds,
        ...(options.batchMax === undefined ? {} : { batchMax: options.batchMax }),
      }),
    transport: createInProcessTransport(destination),
  });
  return { destination, adapter };
}

/** Conformance-harness controls over a reference destination, for any adapter in front of it. */
export function refdestControls(destination: Refdest, adapter: Adapter): ConformanceHarness {
  const writeOp = destination.tier === "C3" ? "notify" : "create";
  return {
    adapter,
    dropNextResponse: () => {
      destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: writeOp } }]);
    },
    setReadLagMs: (ms) => {
      // A destination never lags less than its own profile: only a longer lag is injected.
      const seconds = Math.ceil(ms / 1000);
      if (seconds > destination.lagSeconds) {
        destination.schedule([
          { fault: "READ_LAG", match: { op: "create" }, param: { seconds }, once: false },
        ]);
      }
    },
    advanceMs: (ms) => {
      destination.advanceClock(Math.ceil(ms / 1000));
    },
    unknownDestinationRef: "irrevon-conformance-missing-ref",
    listWindow: () => ({ from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z" }),
    close: () => destination.cancelPendingDelays(),
  };
}

/**
 * A conformance harness factory for the reference destination and its RefdestAdapter (fake
 * time). `wrap` lets a test put another adapter in front of the same destination.
 */
export function refdestHarness(
  options: Omit<InProcessRefdestOptions, "clock"> & {
    readonly wrap?: (adapter: RefdestAdapter, destination: Refdest) => Adapter;
  },
): HarnessFactory {
  return () => {
    const { destination, adapter } = inProcessRefdest({ ...options, clock: frozenTimeSource });
    return refdestControls(destination, options.wrap?.(adapter, destination) ?? adapter);
  };
}
