/**
 * refdest — the reference destination: a fault-injectable C1/C2/C3 destination with one clock
 * (real by default, injectable for deterministic runs), read lag and a truth log (§5.7). Public surface for the CLI, the test
 * kit, the benchmark harness and the demo. Imports: core.
 */
import { Refdest } from "./refdest.js";
import type { RefdestOptions } from "./refdest-options.js";

export { Refdest } from "./refdest.js";
export {
  DEFAULT_IDEMPOTENCY_WINDOW_SECONDS,
  MAX_LIST_LIMIT,
  MAX_STATUS_BATCH_KEYS,
} from "./refdest-options.js";
export type {
  RefdestOptions,
  CreateInput,
  NotifyInput,
  ListInput,
  OobInput,
  StatusBatchInput,
  StatusKeyInput,
} from "./refdest-options.js";
export { startRefdestServer } from "./http-server.js";
export type { RefdestServer, RefdestServerOptions } from "./http-server.js";
export { RefdestControlClient } from "./control-client.js";
export type { FaultEntryInput } from "./control-client.js";
export { createInProcessTransport } from "./in-process-transport.js";
export type { InProcessExchange, InProcessRequest } from "./in-process-transport.js";
export { routeRefdestRequest } from "./router.js";
export type { RefdestHttpRequest } from "./router.js";
export {
  FaultKind,
  FAULT_KINDS,
  FAULT_OPS,
  DEFAULT_DELAY_MS,
  MAX_DELAY_MS,
  parseFaultEntries,
} from "./fault-schedule.js";
export type { FaultEntry } from "./fault-schedule.js";
export { deriveDestinationRef, canonicalDigest } from "./destination-ref.js";
export {
  REFDEST_EPOCH_ISO,
  isoAtSeconds,
  frozenTimeSource,
  monotonicTimeSource,
} from "./virtual-clock.js";
export type { RefdestTimeSource } from "./virtual-clock.js";
export { MAX_BODY_BYTES, MAX_PAYLOAD_BYTES } from "./json-limits.js";
export { RefdestTier, RefdestOp, RefdestErrorCode, REFDEST_TIERS } from "./wire-types.js";
export type {
  EffectView,
  RefdestReply,
  RequestLogEntry,
  TruthDump,
  TruthEffect,
} from "./wire-types.js";
export { runRefdestMain, REFDEST_TOKEN_ENV } from "./main.js";

/** Create an in-process reference destination (same as `new Refdest(options)`). */
export function createRefdest(options: RefdestOptions): Refdest {
  return new Refdest(options);
}
