/**
 * irrevon/testing — the public test kit (package subpath `irrevon/testing`): the in-memory
 * reference destination and an in-process transport to it, a fake clock, and the adapter
 * conformance suite with a ready harness for the reference destination. The internal test
 * support in this folder (engine-child, history-checker) is not exported here.
 */
export {
  createRefdest,
  createInProcessTransport,
  Refdest,
  frozenTimeSource,
  monotonicTimeSource,
  FaultKind,
} from "../refdest/index.js";
export type { RefdestOptions, RefdestTimeSource, FaultEntry, TruthDump } from "../refdest/index.js";
export { RefdestAdapter } from "../adapters/refdest-adapter.js";
export { refdestDeclaration } from "../adapters/declarations/refdest.js";
export { manualClock, systemClock } from "../engine/clock.js";
export type { Clock, ManualClock } from "../engine/clock.js";
export {
  inProcessRefdest,
  refdestControls,
  refdestHarness,
  IN_PROCESS_BASE_URL,
} from "./refdest-harness.js";
export type { InProcessRefdest, InProcessRefdestOptions } from "./refdest-harness.js";
export { checkAdapterConformance, assertConformant } from "./conformance.js";
export { CONFORMANCE_CHECKS } from "./conformance-types.js";
export type {
  ConformanceCheck,
  ConformanceCheckName,
  ConformanceHarness,
  ConformanceOptions,
  ConformanceReport,
  HarnessFactory,
} from "./conformance-types.js";
