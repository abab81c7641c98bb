/**
 * engine/context — what every engine operation is handed: the ledger (as irrevon_app), the
 * adapters, tunables, clock, crash points, this process's lease and the event sink.
 * Imports: core, db, ledger, adapters, engine.
 */
import type { Db } from "../db/db.js";
import type { AdapterRegistry } from "./adapter-registry.js";
import type { Clock } from "./clock.js";
import type { EngineConfig } from "./config.js";
import type { CrashPoints } from "./crash-points.js";
import type { EngineEventName, EngineEventSeverity, EngineEventSink } from "./events.js";
import type { LeaseKeeper } from "./lease-keeper.js";

/** Everything one engine operation needs; built once by `openIrrevon`. */
export interface EngineContext {
  readonly db: Db;
  readonly adapters: AdapterRegistry;
  readonly config: EngineConfig;
  readonly clock: Clock;
  readonly crash: CrashPoints;
  readonly lease: LeaseKeeper;
  readonly events: EngineEventSink;
}

/** Emits one event (never throws). */
export function emit(
  ctx: EngineContext,
  name: EngineEventName,
  severity: EngineEventSeverity,
  fields: Record<string, unknown>,
): void {
  try {
    ctx.events({ ...fields, event_name: name, severity, ts: new Date().toISOString() });
  } catch {
    // An operator's sink must not change an outcome.
  }
}
