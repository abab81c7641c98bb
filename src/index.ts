/**
 * irrevon — public entry point of the package. An effect ledger between an agent (or any
 * program) and a destination API: intents are persisted before dispatch, every dispatch
 * passes a commit gate, unknown outcomes are AMBIGUOUS until the destination is asked, and
 * the evidence is kept in an append-only ledger. Start with {@link openIrrevon}.
 */

// Engine
export { openIrrevon } from "./engine/irrevon.js";
export type {
  Irrevon,
  OpenIrrevonOptions,
  EffectStatus,
  ManualSettlement,
  RetryOptions,
  OperatorControls,
} from "./engine/irrevon.js";
export type { DatabaseOption } from "./engine/open-database.js";
export type {
  RunRequest,
  RunResult,
  RunCommitted,
  RunDenied,
  RunFailed,
  RunAmbiguous,
  ParameterVariant,
} from "./engine/run-result.js";
export type {
  DispatchOutcome,
  DispatchOptions,
  Dispatched,
  Denied,
  PendingReconciliation,
  ScopeBusyResult,
} from "./engine/dispatcher.js";
export type { RegisterAndDispatchOutcome } from "./engine/register-dispatch.js";
export type { ReconcileOutcome, ParkReason } from "./engine/reconcile-types.js";
export type { RecoveryReport } from "./engine/recovery.js";
export type { AuditOutcome } from "./engine/audit-settled.js";
export { runWorker } from "./engine/worker.js";
export type { WorkerOptions, WorkerSummary } from "./engine/worker.js";
export { createLogSink } from "./engine/log-sink.js";
export type { LogSink, LogSinkOptions } from "./engine/log-sink.js";
export type { SweepReport } from "./engine/sweep.js";
export type { SweepWindow } from "./engine/sweep-window.js";
export type { ResolveOutcome, ResolveEvidence, ResolveActor } from "./engine/resolution.js";
export type { CycleReport, CycleOptions } from "./engine/worker-cycle.js";
export type { LedgerGauges } from "./ledger/worker-gauges.js";
export type { FindingFilter } from "./ledger/resolution-list.js";
export type { IntentContractInput } from "./core/contract-input.js";
export { ClassifierProposal } from "./advisory/classifier-proposal.js";
export { DEFAULT_ENGINE_CONFIG, resolveEngineConfig } from "./engine/config.js";
export type { EngineConfig, AutoRedispatchGrant } from "./engine/config.js";
export { systemClock, manualClock } from "./engine/clock.js";
export type { Clock, ManualClock } from "./engine/clock.js";
export {
  CrashSeam,
  CRASH_SEAMS,
  NO_CRASH_POINTS,
  crashPointsFromEnv,
} from "./engine/crash-points.js";
export type { CrashPoints } from "./engine/crash-points.js";
export { EngineEventName, discardEvents, stderrEvents } from "./engine/events.js";
export type { EngineEventSink, EngineEventSeverity } from "./engine/events.js";

// Ledger results
export type { RegisterResult } from "./ledger/register-intent.js";
export type { EffectInspection } from "./ledger/inspect-effect.js";
export type {
  EvidenceJson,
  InspectAttempt,
  InspectAuthority,
  InspectEscalation,
  InspectExecution,
  InspectFinding,
  InspectGateDecision,
  InspectLateResponse,
  InspectParameterVariant,
  InspectProbe,
  InspectReceipt,
  InspectRecord,
  InspectResolution,
  InspectTransition,
} from "./ledger/inspect-types.js";
export type { OpenedExecution } from "./ledger/open-retry-execution.js";
export type { AuthorityInput } from "./ledger/append-authority.js";
export type { DenyEntryInput, CancelBranchOptions } from "./ledger/operator-controls.js";
export type { GateCheckResult, GateCheckStatus } from "./ledger/gate-evaluate.js";
export type { ReceiptRow } from "./ledger/types.js";
export type { FindingState } from "./ledger/resolve-finding.js";

// Adapters
export type {
  Adapter,
  CapabilityDeclaration,
  DispatchOrder,
  DispatchResult,
  QueryKey,
  StatusResult,
  ListedEffect,
  ListPage,
} from "./adapters/contract.js";
export {
  loadDeclaration,
  declarationDigest,
  parseIsoDurationSeconds,
} from "./adapters/declaration.js";
export { RefdestAdapter } from "./adapters/refdest-adapter.js";
export type { RefdestAdapterOptions } from "./adapters/refdest-adapter.js";
export { refdestDeclaration } from "./adapters/declarations/refdest.js";
export { defineAdapter } from "./adapters/define-adapter.js";
export type {
  AdapterDefinition,
  C1AdapterDefinition,
  C2AdapterDefinition,
  C3AdapterDefinition,
  C1DeclarationInput,
  C2DeclarationInput,
  C3DeclarationInput,
  CallContext,
  ConsistencyInput,
  DurationText,
  FindResult,
  PayloadProblemInput,
  QueryableInput,
  QueryKeyName,
} from "./adapters/define-adapter-types.js";

// Schema
export { migrationsHash as migrationSetDigest } from "./db/migrator.js";

// Core
export { IrrevonError, ContractInvalidError, ErrorCode, isIrrevonError } from "./core/errors.js";
export type { ValueKind } from "./core/errors.js";
export { validateIntentContract } from "./core/contract.js";
export type { ValidatedIntent } from "./core/contract.js";
export { deriveIdentity, operationId, idempotencyKey, IDENTITY_VERSION } from "./core/identity.js";
export { canonicalDigest } from "./core/canonical.js";
export type {
  LifecycleState,
  Classification,
  ResolutionStatus,
  TransportOutcome,
  FailureKind,
  GateCheck,
  GateVariant,
  EffectClass,
  Actor,
  Cause,
  AttemptKind,
  ExecutionOpener,
  FindingCreator,
  ProbeKind,
  ProbeResult,
  ReceiptRecorder,
  ResolutionAction,
  ResolutionActor,
} from "./core/state-tables.js";

// Database
export type { Db, DbRole } from "./db/db.js";

// Agent tools (framework-neutral core of the bindings)
export { defineGuardedTool, toolResultForModel } from "./agent/guarded-tool.js";
export type {
  GuardedTool,
  GuardedToolDefinition,
  ToolResultForModel,
} from "./agent/guarded-tool.js";

// Agent tools: when a guarded result is shown to the model as an error (all bindings)
export { isToolError } from "./agent/tool-error.js";
