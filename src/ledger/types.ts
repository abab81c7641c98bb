/**
 * ledger/types — shapes shared by the ledger operations: the stored record as the engine
 * reads it, an execution with its frontier, receipts, and the worker lease that stamps
 * ownership-dependent writes. Imports: core.
 */
import type {
  EffectClass,
  ExecutionOpener,
  FailureKind,
  LifecycleState,
  TransportOutcome,
} from "../core/state-tables.js";

/** The lease a write is made under (D2). Every attempt and receipt the engine writes carries one. */
export interface WorkerLease {
  readonly workerId: string;
  readonly fencingToken: number;
}

/** An effect record as stored (parameters stay JSON; they were revealed only to be stored). */
export interface StoredRecord {
  readonly effectId: string;
  readonly effectType: string;
  readonly effectClass: EffectClass;
  readonly scope: string;
  readonly stableIds: Readonly<Record<string, string>>;
  readonly adapterId: string;
  readonly declarationDigest: string;
  readonly parametersDigest: string;
  readonly branchRef: string | null;
  readonly identityVersion: number;
  readonly contractCanonical: string;
  readonly createdAt: string;
}

/** One execution and its frontier (latest lifecycle state). */
export interface ExecutionFrontier {
  readonly executionId: number;
  readonly effectId: string;
  readonly step: number;
  readonly operationId: string;
  readonly openedBy: ExecutionOpener;
  readonly frontier: LifecycleState;
}

/** A recorded receipt. */
export interface ReceiptRow {
  readonly receiptId: number;
  readonly attemptId: number;
  readonly executionId: number;
  readonly transportOutcome: TransportOutcome;
  readonly failureKind: FailureKind | null;
  readonly destinationRef: string | null;
  readonly responseDigest: string | null;
  readonly recordedBy: string;
  readonly recordedAt: string;
}
