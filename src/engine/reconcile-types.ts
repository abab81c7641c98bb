/**
 * engine/reconcile-types — the reconciler's result union and the per-call context shared by
 * the reconciler and the C1 replay probe. Imports: core, ledger, engine.
 */
import type { LifecycleState } from "../core/state-tables.js";
import type { FindingState } from "../ledger/resolve-finding.js";
import type { ExecutionFrontier, StoredRecord } from "../ledger/types.js";
import type { AdapterEntry } from "./adapter-registry.js";
import type { EngineContext } from "./context.js";
import type { SettleActor } from "./reconcile-settle.js";
import type { ProbeChannel } from "./status-batcher.js";

/** Why an execution stays AMBIGUOUS for now. */
export type ParkReason =
  | "indeterminate"
  | "backoff"
  | "no_covering_key"
  | "opaque_destination"
  | "scope_busy"
  | "replay_unresolved";

/** What one reconcile call did. Expected outcomes are values. */
export type ReconcileOutcome =
  | {
      readonly status: "settled";
      readonly effectId: string;
      readonly lifecycle: LifecycleState;
      readonly findings: readonly FindingState[];
    }
  | {
      readonly status: "committed";
      readonly effectId: string;
      readonly classification: "CONFIRMED_UNIQUE" | "DUPLICATE";
      readonly cause: "reconciled_present" | "replay_ok";
      readonly probeIds: readonly number[];
      readonly findingId: number | null;
    }
  | {
      readonly status: "failed";
      readonly effectId: string;
      readonly cause: "reconciled_absent" | "replay_failed";
      readonly probeIds: readonly number[];
      readonly findingId: number | null;
      readonly escalated: boolean;
    }
  | { readonly status: "in_flight"; readonly effectId: string; readonly attemptId: number }
  | {
      readonly status: "awaiting_lag";
      readonly effectId: string;
      readonly probeId: number | null;
      readonly notBefore: string;
    }
  | {
      readonly status: "reread_scheduled";
      readonly effectId: string;
      readonly probeId: number;
      readonly rereadNotBefore: string;
    }
  | {
      readonly status: "parked";
      readonly effectId: string;
      readonly reason: ParkReason;
      readonly nextDueAt: string | null;
      readonly escalated: boolean;
      readonly probeId: number | null;
    };

/** One reconcile call's working set. */
export interface ReconcileStep {
  readonly ctx: EngineContext;
  readonly record: StoredRecord;
  readonly execution: ExecutionFrontier;
  readonly entry: AdapterEntry;
  readonly actor: SettleActor;
  readonly mode: "online" | "recovery";
  /**
   * The recovery run's shared wire (engine/status-batcher): status queries batched when the
   * adapter offers it, and a bound on calls in flight per destination. Absent: each status
   * query and replay is its own guarded call, as online.
   */
  readonly channel?: ProbeChannel;
}
