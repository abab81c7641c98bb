/**
 * engine/worker — the background loop (`irrevon worker`, §8, D2, D3, D9). First a recovery
 * pass (adjudicate before anything else), then cycles until the signal aborts or `maxCycles`
 * is reached: each cycle is `Irrevon.cycle` (reconcile every open execution one step, close
 * abandoned attempts, policy re-dispatches, resolution catch-up, bounded audits, and a sweep of
 * every list-queryable adapter when `sweepIntervalMs` has passed since the last one), then the
 * gauges, a `worker.cycle` event and the health file. Between cycles it waits `intervalMs`,
 * waking at once when stopped. A stop request lets the current cycle finish; the caller then
 * closes the engine (which releases the lease). Nothing in a cycle sleeps: a scheduled
 * re-read is simply not due yet and is taken by a later cycle.
 *
 * Any number of workers may run against one Postgres ledger. On the embedded ledger one
 * process owns the data directory, so a second worker is refused when it opens the ledger.
 * Imports: core, ledger, engine.
 */
import { performance } from "node:perf_hooks";
import { isIrrevonError } from "../core/errors.js";
import type { LedgerGauges } from "../ledger/worker-gauges.js";
import {
  discardEvents,
  type EngineEventName,
  type EngineEventSeverity,
  type EngineEventSink,
} from "./events.js";
import type { Irrevon } from "./irrevon.js";
import type { RecoveryReport } from "./recovery.js";
import type { CycleError, CycleReport } from "./worker-cycle.js";
import { healthDocument, writeHealthFile, type WorkerHealth } from "./worker-health.js";
import { pause } from "./pause.js";

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  /** Pause between cycles. */
  readonly intervalMs: number;
  /** Minimum time between two sweeps (the first cycle sweeps). */
  readonly sweepIntervalMs: number;
  /** Stop after this many cycles (default: until the signal aborts). */
  readonly maxCycles?: number;
  /** Health file replaced after every cycle. */
  readonly healthFile?: string;
  /** Aborting it asks the worker to stop after the current cycle. */
  readonly signal?: AbortSignal;
  /** Where worker.* events go (default: discarded). */
  readonly events?: EngineEventSink;
  /** Run a recovery pass before the first cycle (default true). */
  readonly recoverFirst?: boolean;
}

/** How a worker run ended. */
export interface WorkerSummary {
  readonly workerId: string;
  readonly cycles: number;
  readonly stoppedBy: "signal" | "max_cycles";
  readonly recovery: RecoveryReport | null;
  readonly lastCycle: CycleReport | null;
  readonly gauges: LedgerGauges | null;
}

const EMPTY_GAUGES: LedgerGauges = {
  openExecutions: 0,
  ambiguousExecutions: 0,
  oldestOpenAgeSeconds: 0,
  openFindings: 0,
};

function errorFields(e: unknown): Record<string, unknown> {
  return {
    code: isIrrevonError(e) ? e.code : "internal",
    message: e instanceof Error ? e.message : String(e),
  };
}

function checkOptions(options: WorkerOptions): void {
  for (const [name, value] of [
    ["intervalMs", options.intervalMs],
    ["sweepIntervalMs", options.sweepIntervalMs],
  ] as const) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be >= 0`);
  }
  if (
    options.maxCycles !== undefined &&
    (!Number.isSafeInteger(options.maxCycles) || options.maxCycles < 1)
  )
    throw new RangeError("maxCycles must be a positive integer");
}

/** Runs the worker loop on an open engine (see the file header). */
export async function runWorker(irrevon: Irrevon, options: WorkerOptions): Promise<WorkerSummary> {
  checkOptions(options);
  const sink = options.events ?? discardEvents;
  const log = (
    name: EngineEventName,
    severity: EngineEventSeverity,
    fields: Record<string, unknown>,
  ): void => {
    try {
      sink({ ...fields, event_name: name, severity, ts: new Date().toISOString() });
    } catch {
      // A log sink never changes what the worker does.
    }
  };
  const { signal } = options;
  const workerId = irrevon.workerId;
  log("worker.started", "info", {
    worker_id: workerId,
    interval_ms: options.intervalMs,
    sweep_interval_ms: options.sweepIntervalMs,
    max_cycles: options.maxCycles ?? null,
  });

  let recovery: RecoveryReport | null = null;
  if (options.recoverFirst !== false) {
    try {
      recovery = await irrevon.recover();
    } catch (e) {
      log("worker.cycle_error", "error", {
        worker_id: workerId,
        step: "recovery",
        ...errorFields(e),
      });
    }
  }

  const onError = (error: CycleError): void => {
    const name: EngineEventName =
      error.step === "reconcile"
        ? "worker.reconcile_error"
        : error.step === "sweep"
          ? "worker.sweep_error"
          : "worker.step_error";
    log(name, "error", {
      worker_id: workerId,
      step: error.step,
      effect_id: error.effectId ?? null,
      adapter_id: error.adapterId ?? null,
      code: error.code,
      message: error.message,
    });
  };

  let cycles = 0;
  let lastSweepAt: number | null = null;
  let lastCycle: CycleReport | null = null;
  let gauges: LedgerGauges | null = null;
  let lastSummary: WorkerHealth["last_cycle"] = null;
  const writeHealth = (state: WorkerHealth["state"]): void => {
    if (options.healthFile === undefined) return;
    try {
      writeHealthFile(
        options.healthFile,
        healthDocument({
          workerId,
          state,
          cycle: cycles,
          gauges: gauges ?? EMPTY_GAUGES,
          lastCycle: lastSummary,
        }),
      );
    } catch (e) {
      log("worker.step_error", "error", {
        worker_id: workerId,
        step: "health_file",
        ...errorFields(e),
      });
    }
  };

  while (
    signal?.aborted !== true &&
    (options.maxCycles === undefined || cycles < options.maxCycles)
  ) {
    const started = performance.now();
    const sweep = lastSweepAt === null || started - lastSweepAt >= options.sweepIntervalMs;
    if (sweep) lastSweepAt = started;
    let report: CycleReport | null = null;
    try {
      report = await irrevon.cycle({ sweep, onError });
      lastCycle = report;
    } catch (e) {
      log("worker.cycle_error", "error", {
        worker_id: workerId,
        cycle: cycles + 1,
        ...errorFields(e),
      });
    }
    try {
      gauges = await irrevon.gauges();
    } catch (e) {
      log("worker.cycle_error", "error", {
        worker_id: workerId,
        step: "gauges",
        ...errorFields(e),
      });
    }
    cycles += 1;
    const durationMs = Math.round(performance.now() - started);
    lastSummary = {
      duration_ms: durationMs,
      adjudicated: report?.adjudicated ?? 0,
      escalated: report?.escalated ?? 0,
      errors: report?.errors.length ?? 1,
    };
    log("worker.cycle", "info", {
      worker_id: workerId,
      cycle: cycles,
      duration_ms: durationMs,
      reconciled: report?.reconciled ?? 0,
      adjudicated: report?.adjudicated ?? 0,
      escalated: report?.escalated ?? 0,
      in_flight: report?.inFlight ?? 0,
      parked: report?.parked ?? 0,
      redispatched: report?.redispatched ?? 0,
      resumed: report?.resumed ?? 0,
      closed_findings: report?.closedFindings ?? 0,
      audited: report?.audited ?? 0,
      swept: sweep,
      orphans_created: report?.sweeps.reduce((n, s) => n + s.orphansCreated.length, 0) ?? 0,
      errors: report?.errors.length ?? null,
      gauges:
        gauges === null
          ? null
          : {
              open_executions: gauges.openExecutions,
              ambiguous_executions: gauges.ambiguousExecutions,
              oldest_open_age_s: gauges.oldestOpenAgeSeconds,
              open_findings: gauges.openFindings,
            },
    });
    writeHealth("running");
    if (options.maxCycles !== undefined && cycles >= options.maxCycles) break;
    await pause(options.intervalMs, signal);
  }

  const stoppedBy = signal?.aborted === true ? "signal" : "max_cycles";
  if (stoppedBy === "max_cycles") log("worker.completed", "info", { worker_id: workerId, cycles });
  writeHealth("stopped");
  log("worker.stopped", "info", { worker_id: workerId, cycles, stopped_by: stoppedBy });
  return { workerId, cycles, stoppedBy, recovery, lastCycle, gauges };
}
