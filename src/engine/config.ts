/**
 * engine/config — the engine's tunables (D9) with their documented defaults
 * (docs/engine.md "Tunables"). Every value is validated once at open, including the rule that
 * ties the lease to the deadlines (see {@link resolveEngineConfig}). Imports: core, engine.
 */
import { availableParallelism } from "node:os";
import { DEFAULT_MAX_CLOCK_SKEW_MS } from "../core/authority-stamp.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { OVERRUN_GRACE_MS } from "./call-adapter.js";

/**
 * A per-effect-type grant that lets recovery re-dispatch a confirmed-LOST effect without a
 * human (D8). The grant reference is recorded as the authority of the new execution.
 */
export interface AutoRedispatchGrant {
  /** Recorded as `authority_ref` of the re-dispatch (e.g. "policy:ops-2026-07-shipments"). */
  readonly grantRef: string;
}

/** Engine tunables. All durations carry their unit in the name. */
export interface EngineConfig {
  /** Deadline handed to `adapter.dispatch` (reference: 30 s). */
  readonly dispatchDeadlineMs: number;
  /** Deadline handed to `adapter.statusQuery` and each `statusQueryBatch` call (reference: 10 s). */
  readonly probeDeadlineMs: number;
  /** Gap between the two ABSENT probes that confirm absence (reference: 60 s). */
  readonly rereadGapSeconds: number;
  /** First backoff after an INDETERMINATE probe; doubles per consecutive one. */
  readonly backoffBaseSeconds: number;
  /** Upper bound of the INDETERMINATE backoff. */
  readonly backoffMaxSeconds: number;
  /** Consecutive INDETERMINATE probes after which the execution is escalated to a human. */
  readonly escalationBudget: number;
  /** Attempts (primary + replay probes) allowed per execution. */
  readonly maxAttemptsPerExecution: number;
  /**
   * Worker lease length; at least 2 × max(`dispatchDeadlineMs`, `probeDeadlineMs`) + 1000 (the
   * adapter overrun grace). Renewed before every claim that needs it.
   */
  readonly leaseTtlMs: number;
  /**
   * Safety margin of a C1 replay: a replay is sent only while engine now + `probeDeadlineMs` +
   * this margin is still inside the declared idempotency window (counted from the execution's
   * first claim), so it ARRIVES inside the window; otherwise the window counts as closed and
   * the reconciler asks by status query. Covers clock skew between the ledger and the
   * destination and the claim-to-send delay. Default 60 s.
   */
  readonly replayWindowMarginSeconds: number;
  /** Newest ABSENT evidence accepted for a re-dispatch without a fresh probe (reference: 600 s). */
  readonly redispatchAbsenceMaxAgeSeconds: number;
  /** Effect types recovery may re-dispatch after confirmed absence. Default: none. */
  readonly autoRedispatch: Readonly<Record<string, AutoRedispatchGrant>>;
  /** An unmatched destination effect becomes ORPHANED only this long after its first sighting (destination time). */
  readonly orphanGraceSeconds: number;
  /** Distinct sweep runs that must have seen an effect unmatched before it is ORPHANED (≥ 2). */
  readonly sweepMinRuns: number;
  /** How far a default sweep window reaches back before the previous run's high-water mark. */
  readonly sweepOverlapSeconds: number;
  /** Upper bound of list pages one sweep run reads (a run that hits it reports `truncated`). */
  readonly sweepMaxPages: number;
  /**
   * Open executions recovery reads from the ledger per page (keyset-paged by execution id,
   * so a backlog of any size is scanned in bounded memory). Default 100.
   */
  readonly recoveryPageSize: number;
  /**
   * Effects recovery adjudicates at once (each its own destination probe and ledger writes;
   * one effect is never worked on twice in a run). 1 = one after another. Default 8. With an
   * adapter that declares batch status lookups (`queryable.batch_max`), the wire calls in
   * flight per destination; then up to this × batch_max effects reach their probe at once.
   */
  readonly recoveryConcurrency: number;
  /**
   * Of recovery's lanes, how many may be at the ledger at once (a statement or a transaction);
   * the others wait their turn while their destination calls still overlap (engine/gated-db).
   * More concurrent backends than the database has cores only contend. Default: this host's
   * CPU count (`os.availableParallelism()`), the right figure for an embedded ledger or a
   * server on the same machine; raise it for a larger server elsewhere.
   */
  readonly recoveryLedgerConcurrency: number;
  /** Settled effects a worker cycle audits at most (besides audits a late response queued). */
  readonly auditPerCycle: number;
  /** Only effects settled this recently are audited by the worker. */
  readonly auditLookbackSeconds: number;
  /**
   * How far an authority `stamped_at` may lie ahead of the database clock when it is accepted
   * (register, retry, resolve, operator appendAuthority); beyond it the stamp is refused.
   */
  readonly maxClockSkewMs: number;
  /**
   * Where the (scope, effect_type) slot serializes claims (docs/decisions/0008-scope-slot.md):
   * `"always"`, or `"inexact_attribution"` — only for adapters whose declaration cannot
   * attribute a destination effect to its operation exactly (no queryable client ref).
   */
  readonly scopeSlot: "always" | "inexact_attribution";
  /**
   * How long a dispatch waits for a busy slot to free before answering `scope_busy`
   * (0 = answer at once). At most {@link SCOPE_BUSY_WAIT_MAX_MS}.
   */
  readonly scopeBusyWaitMs: number;
}

/** Upper bound of `scopeBusyWaitMs`: a caller waiting longer should be told and retry. */
export const SCOPE_BUSY_WAIT_MAX_MS = 60_000;

/** The defaults, as documented in docs/engine.md. */
export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  dispatchDeadlineMs: 30_000,
  probeDeadlineMs: 10_000,
  rereadGapSeconds: 60,
  backoffBaseSeconds: 30,
  backoffMaxSeconds: 3_600,
  escalationBudget: 5,
  maxAttemptsPerExecution: 3,
  leaseTtlMs: 120_000,
  replayWindowMarginSeconds: 60,
  redispatchAbsenceMaxAgeSeconds: 600,
  autoRedispatch: {},
  orphanGraceSeconds: 1_800,
  sweepMinRuns: 2,
  sweepOverlapSeconds: 600,
  sweepMaxPages: 1_000,
  recoveryPageSize: 100,
  recoveryConcurrency: 8,
  // Clamped to RECOVERY_CONCURRENCY_MAX (declared below: 256).
  recoveryLedgerConcurrency: Math.min(availableParallelism(), 256),
  auditPerCycle: 10,
  auditLookbackSeconds: 86_400,
  maxClockSkewMs: DEFAULT_MAX_CLOCK_SKEW_MS,
  scopeSlot: "always",
  scopeBusyWaitMs: 0,
};

/**
 * Upper bound of a knob, by the unit in its name: milliseconds end up in timers (Node turns a
 * delay above 2^31−1 ms into 1 ms without an error), seconds in instants that must stay
 * representable (366 days, the declaration duration bound), counts in loops.
 */
export function configMaxFor(name: string): number {
  if (name.endsWith("Ms")) return 2_147_483_647;
  if (name.endsWith("Seconds")) return 366 * 86_400;
  return 1_000_000;
}

function requireNumber(name: string, value: number, min: number, maxOverride?: number): void {
  const max = maxOverride ?? configMaxFor(name);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new IrrevonError(
      ErrorCode.config_invalid,
      `engine config ${name} must be a number in [${min}, ${max}]`,
      {
        details: { field: name, min, max, value },
      },
    );
  }
}

/** Upper bounds of the recovery knobs (a page is held in memory; a lane holds a connection). */
export const RECOVERY_PAGE_SIZE_MAX = 10_000;
export const RECOVERY_CONCURRENCY_MAX = 256;

/** A whole number in [1, max]; the refusal names the field, the range and the fix. */
function requireCount(name: string, value: number, max: number): void {
  if (Number.isInteger(value) && value >= 1 && value <= max) return;
  const fix = Number.isFinite(value) ? Math.min(max, Math.max(1, Math.round(value))) : 1;
  throw new IrrevonError(
    ErrorCode.config_invalid,
    `engine config ${name} must be a whole number in [1, ${max}]; set it to e.g. ${fix}`,
    { details: { field: name, min: 1, max, value, fix: { [name]: fix } } },
  );
}

/**
 * A claim asks the lease keeper for 2 × deadline of lease and the dispatcher refuses to send
 * with a deadline or less left; a wire call may run the deadline plus the overrun grace. A
 * shorter lease would make every dispatch a silent LOST (not sent), or let a live call be
 * taken for abandoned, so it is refused at open.
 */
function requireLeaseCovers(
  config: EngineConfig,
  deadlineField: "dispatchDeadlineMs" | "probeDeadlineMs",
): void {
  const deadlineMs = config[deadlineField];
  const minLeaseMs = 2 * deadlineMs + OVERRUN_GRACE_MS;
  if (config.leaseTtlMs >= minLeaseMs) return;
  const maxDeadlineMs = Math.floor((config.leaseTtlMs - OVERRUN_GRACE_MS) / 2);
  throw new IrrevonError(
    ErrorCode.config_invalid,
    `engine config leaseTtlMs must be >= 2 × ${deadlineField} + ${OVERRUN_GRACE_MS} = ${minLeaseMs}; ` +
      `raise leaseTtlMs to ${minLeaseMs} or lower ${deadlineField}` +
      (maxDeadlineMs >= 1 ? ` to at most ${maxDeadlineMs}` : ""),
    {
      details: {
        field: "leaseTtlMs",
        value: config.leaseTtlMs,
        min: minLeaseMs,
        rule: `leaseTtlMs >= 2 * ${deadlineField} + ${OVERRUN_GRACE_MS}`,
        related_field: deadlineField,
        related_value: deadlineMs,
        fix: {
          leaseTtlMs: minLeaseMs,
          ...(maxDeadlineMs >= 1 ? { [deadlineField]: maxDeadlineMs } : {}),
        },
      },
    },
  );
}

/** Merges `partial` over the defaults and validates every field. */
export function resolveEngineConfig(partial: Partial<EngineConfig> = {}): EngineConfig {
  const config: EngineConfig = { ...DEFAULT_ENGINE_CONFIG, ...partial };
  requireNumber("dispatchDeadlineMs", config.dispatchDeadlineMs, 1);
  requireNumber("probeDeadlineMs", config.probeDeadlineMs, 1);
  requireNumber("rereadGapSeconds", config.rereadGapSeconds, 0);
  requireNumber("backoffBaseSeconds", config.backoffBaseSeconds, 0);
  requireNumber("backoffMaxSeconds", config.backoffMaxSeconds, config.backoffBaseSeconds);
  requireNumber("escalationBudget", config.escalationBudget, 1);
  requireNumber("maxAttemptsPerExecution", config.maxAttemptsPerExecution, 1);
  requireNumber("leaseTtlMs", config.leaseTtlMs, 1);
  requireLeaseCovers(config, "dispatchDeadlineMs");
  requireLeaseCovers(config, "probeDeadlineMs");
  requireNumber("replayWindowMarginSeconds", config.replayWindowMarginSeconds, 0);
  requireNumber("redispatchAbsenceMaxAgeSeconds", config.redispatchAbsenceMaxAgeSeconds, 0);
  requireNumber("orphanGraceSeconds", config.orphanGraceSeconds, 0);
  // I10 / §7: one listing is never enough to call an effect an orphan.
  requireNumber("sweepMinRuns", config.sweepMinRuns, 2);
  requireNumber("sweepOverlapSeconds", config.sweepOverlapSeconds, 0);
  requireNumber("sweepMaxPages", config.sweepMaxPages, 1);
  requireCount("recoveryPageSize", config.recoveryPageSize, RECOVERY_PAGE_SIZE_MAX);
  requireCount("recoveryConcurrency", config.recoveryConcurrency, RECOVERY_CONCURRENCY_MAX);
  requireCount(
    "recoveryLedgerConcurrency",
    config.recoveryLedgerConcurrency,
    RECOVERY_CONCURRENCY_MAX,
  );
  requireNumber("auditPerCycle", config.auditPerCycle, 0);
  requireNumber("auditLookbackSeconds", config.auditLookbackSeconds, 0);
  requireNumber("maxClockSkewMs", config.maxClockSkewMs, 0);
  if (
    !Number.isFinite(config.scopeBusyWaitMs) ||
    config.scopeBusyWaitMs < 0 ||
    config.scopeBusyWaitMs > SCOPE_BUSY_WAIT_MAX_MS
  ) {
    throw new IrrevonError(
      ErrorCode.config_invalid,
      `engine config scopeBusyWaitMs must be a number in [0, ${SCOPE_BUSY_WAIT_MAX_MS}]`,
      {
        details: {
          field: "scopeBusyWaitMs",
          min: 0,
          max: SCOPE_BUSY_WAIT_MAX_MS,
          value: config.scopeBusyWaitMs,
        },
      },
    );
  }
  if (config.scopeSlot !== "always" && config.scopeSlot !== "inexact_attribution") {
    throw new IrrevonError(
      ErrorCode.config_invalid,
      'engine config scopeSlot must be "always" or "inexact_attribution"',
      { details: { field: "scopeSlot", value: String(config.scopeSlot) } },
    );
  }
  for (const [effectType, grant] of Object.entries(config.autoRedispatch)) {
    if (
      typeof grant.grantRef !== "string" ||
      grant.grantRef.length === 0 ||
      grant.grantRef.length > 512
    ) {
      throw new IrrevonError(
        ErrorCode.config_invalid,
        "auto-redispatch grant needs a grantRef of 1..512 chars",
        {
          details: { field: "autoRedispatch", effect_type: effectType },
        },
      );
    }
  }
  return config;
}
