/**
 * engine/events — the closed catalog of structured events the engine emits (§8 "Logs").
 * Decisions never read logs; these exist for operators. The sink is injectable; the
 * default discards. Imports: nothing.
 */

export const EngineEventName = {
  intent_registered: "intent_registered",
  gate_decision: "gate_decision",
  dispatched: "dispatched",
  settled: "settled",
  ambiguous_parked: "ambiguous_parked",
  finding_created: "finding_created",
  finding_resolved: "finding_resolved",
  escalated: "escalated",
  recovery_completed: "recovery_completed",
  attempt_abandoned: "attempt_abandoned",
  lease_error: "lease_error",
  sweep_completed: "sweep_completed",
  worker_started: "worker.started",
  worker_cycle: "worker.cycle",
  worker_completed: "worker.completed",
  worker_stop_requested: "worker.stop_requested",
  worker_stopped: "worker.stopped",
  worker_reconcile_error: "worker.reconcile_error",
  worker_sweep_error: "worker.sweep_error",
  worker_step_error: "worker.step_error",
  worker_cycle_error: "worker.cycle_error",
  late_response: "late_response",
} as const;
/** One event name of the closed catalog. */
export type EngineEventName = (typeof EngineEventName)[keyof typeof EngineEventName];

/** How loud an event is. */
export type EngineEventSeverity = "debug" | "info" | "warn" | "error";

/** Receives engine events. Must not throw. */
export type EngineEventSink = (event: {
  readonly event_name: EngineEventName;
  readonly severity: EngineEventSeverity;
  readonly ts: string;
  readonly [field: string]: unknown;
}) => void;

/** A sink that drops every event (the default). */
export const discardEvents: EngineEventSink = () => undefined;

/** A sink writing one JSON line per event to stderr. */
export const stderrEvents: EngineEventSink = (event) => {
  process.stderr.write(`${JSON.stringify(event)}\n`);
};
