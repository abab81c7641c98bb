/**
 * ledger/gate-evaluate — the commit gate's four checks (§4) as a pure function of inputs
 * the claim transaction read under its locks. Checks run in order (deny_list → authority →
 * branch_lineage → dedup); the first deny stops and later checks are `not_reached`.
 * Unlike the reference (GAP 9), a latest execution in SETTLED_FAILED is denied BY the dedup
 * check itself with cause `retryable_failed`, so the stored checks always show which check
 * denied and why. The dedup check reads evidence as well as lifecycle: an effect the
 * destination is known to hold (a PRESENT probe, a CONTRADICTED `failed_but_present` finding
 * in any resolution status, a late OK response) is never sent again, whatever the lifecycle
 * says — cause `present_at_destination`. Imports: core.
 */
import { canonicalDigest } from "../core/canonical.js";
import type { EffectClass, GateCheck, GateVariant, LifecycleState } from "../core/state-tables.js";
import { GATE_CHECK_ORDER } from "../core/state-tables.js";

/** The current authority of the effect as the claim read it (latest link). */
export interface GateAuthority {
  readonly authorityId: number;
  readonly authorityRef: string;
  readonly scope: string;
  readonly stampedAt: string;
  /** COALESCE(expires_at, stamped_at + policy max_age); null when no policy applies. */
  readonly expiresAt: string | null;
  /** DB now() > expiresAt (strict), computed in SQL at microsecond precision. */
  readonly isExpired: boolean;
}

/** One execution of the effect with what the dedup check cites. */
export interface GateExecution {
  readonly executionId: number;
  readonly step: number;
  readonly operationId: string;
  readonly frontier: LifecycleState;
  readonly receiptIds: readonly number[];
  readonly findingIds: readonly number[];
}

/** Facts showing that the destination holds an effect of the record. */
export interface PresenceEvidence {
  /** status_probes that answered PRESENT (reconcile, audit or sweep). */
  readonly probeIds: readonly number[];
  /** CONTRADICTED findings with direction `failed_but_present`, whatever their resolution. */
  readonly findingIds: readonly number[];
  /** late_responses reporting OK: the destination said it created the effect. */
  readonly lateResponseIds: readonly number[];
}

/** True when any fact shows the destination holds the effect. */
export function showsPresence(p: PresenceEvidence): boolean {
  return p.probeIds.length + p.findingIds.length + p.lateResponseIds.length > 0;
}

/** Everything the gate decides on. Advisory output has no field here (I9). */
export interface GateInputs {
  readonly effectId: string;
  readonly variant: GateVariant;
  /** DB now() of the claim transaction, ISO 8601 with microseconds. */
  readonly gateTime: string;
  readonly record: {
    readonly effectClass: EffectClass;
    readonly effectType: string;
    readonly scope: string;
    readonly branchRef: string | null;
  };
  /** Unlifted deny entries whose non-null columns all equal the record's. */
  readonly denyHits: ReadonlyArray<{ readonly denyId: number; readonly reason: string }>;
  readonly authority: GateAuthority | null;
  readonly branchCancelled: boolean;
  /** All executions, ascending by step; the last one is the one being claimed. */
  readonly executions: readonly GateExecution[];
  readonly parameterVariantDigests: readonly string[];
  /** Evidence that the destination holds an effect of this record (any execution). */
  readonly presence: PresenceEvidence;
  /** A replay of it, or a recovery re-dispatch: the execution that may not block itself. */
  readonly waiveExecutionId?: number;
}

/** A check's verdict; `not_reached` after an earlier deny. */
export type GateCheckStatus = "passed" | "denied" | "not_reached";

/** One check as stored in `gate_decisions.checks`. */
export interface GateCheckResult {
  readonly check: GateCheck;
  readonly status: GateCheckStatus;
  readonly evidence?: Readonly<Record<string, unknown>>;
}

/** The decision, ready to be stored in gate_decisions. */
export interface GateDecision {
  readonly outcome: "ALLOW" | "DENY";
  readonly denyCheck: GateCheck | null;
  /** The deny cause (e.g. `expired`, `duplicate_intent`, `retryable_failed`); null on ALLOW. */
  readonly cause: string | null;
  readonly checks: readonly GateCheckResult[];
  readonly evidence: Readonly<Record<string, unknown>>;
}

type Verdict =
  | { readonly denied: false; readonly evidence: Record<string, unknown> }
  | { readonly denied: true; readonly evidence: Record<string, unknown> };

const BLOCKING_FRONTIERS: readonly LifecycleState[] = [
  "DISPATCHED",
  "AMBIGUOUS",
  "SETTLED_COMMITTED",
];

function checkDenyList(inputs: GateInputs): Verdict {
  const entries = inputs.denyHits.map((h) => ({ deny_id: h.denyId, reason: h.reason }));
  if (entries.length > 0)
    return { denied: true, evidence: { cause: "deny_listed", deny_entries: entries } };
  return { denied: false, evidence: { deny_entries: [] } };
}

function checkAuthority(inputs: GateInputs): Verdict {
  const a = inputs.authority;
  if (a === null) return { denied: true, evidence: { cause: "no_authority" } };
  if (a.scope !== inputs.record.scope) {
    return {
      denied: true,
      evidence: {
        cause: "scope_binding_mismatch",
        authority_ref: a.authorityRef,
        authority_scope: a.scope,
        effect_scope: inputs.record.scope,
      },
    };
  }
  if (a.expiresAt === null)
    return {
      denied: true,
      evidence: { cause: "no_expiry_derivable", authority_ref: a.authorityRef },
    };
  if (a.isExpired) {
    return {
      denied: true,
      evidence: {
        cause: "expired",
        authority_ref: a.authorityRef,
        expired_at: a.expiresAt,
        gate_time: inputs.gateTime,
      },
    };
  }
  return {
    denied: false,
    evidence: {
      authority_id: a.authorityId,
      authority_ref: a.authorityRef,
      expires_at: a.expiresAt,
    },
  };
}

function checkBranch(inputs: GateInputs): Verdict {
  const ref = inputs.record.branchRef;
  if (ref !== null && inputs.branchCancelled)
    return { denied: true, evidence: { cause: "branch_cancelled", branch_ref: ref } };
  return { denied: false, evidence: { branch_ref: ref } };
}

function checkDedup(inputs: GateInputs): Verdict {
  const blocking = inputs.executions.filter(
    (e) => e.executionId !== inputs.waiveExecutionId && BLOCKING_FRONTIERS.includes(e.frontier),
  );
  if (blocking.length > 0) {
    return {
      denied: true,
      evidence: {
        cause: "duplicate_intent",
        blocking_executions: blocking.map((e) => ({
          execution_id: e.executionId,
          step: e.step,
          operation_id: e.operationId,
          frontier: e.frontier,
          receipt_ids: e.receiptIds,
          finding_ids: e.findingIds,
        })),
        parameter_variants: inputs.parameterVariantDigests,
      },
    };
  }
  if (showsPresence(inputs.presence)) {
    // Evidence over lifecycle: an accepted contradiction or a late OK leaves the lifecycle
    // SETTLED_FAILED, yet the destination holds the effect. Sending again would duplicate it.
    return {
      denied: true,
      evidence: {
        cause: "present_at_destination",
        probe_ids: inputs.presence.probeIds,
        finding_ids: inputs.presence.findingIds,
        late_response_ids: inputs.presence.lateResponseIds,
      },
    };
  }
  const latest = inputs.executions[inputs.executions.length - 1];
  if (latest !== undefined && latest.frontier === "SETTLED_FAILED") {
    // A clean failure is retryable, but only as a NEW execution (new step, new key, fresh
    // authority): re-dispatching this one would reuse a key the destination already saw.
    return {
      denied: true,
      evidence: {
        cause: "retryable_failed",
        settled_execution_id: latest.executionId,
        settled_operation_id: latest.operationId,
        receipt_ids: latest.receiptIds,
        retry_operation: "open_retry_execution",
      },
    };
  }
  return { denied: false, evidence: { blocking_executions: [] } };
}

const CHECKS: Record<GateCheck, (inputs: GateInputs) => Verdict> = {
  deny_list: checkDenyList,
  authority: checkAuthority,
  branch_lineage: checkBranch,
  dedup: checkDedup,
};

/** Digest of what the decision was based on, so a stored decision can be re-derived. */
export function gateInputDigest(inputs: GateInputs): string {
  const frontiers: Record<string, string> = {};
  for (const e of inputs.executions) frontiers[String(e.executionId)] = e.frontier;
  return canonicalDigest({
    effect_id: inputs.effectId,
    variant: inputs.variant,
    gate_time: inputs.gateTime,
    deny_entries: inputs.denyHits.map((h) => h.denyId),
    authority: inputs.authority === null ? null : inputs.authority.authorityId,
    branch_cancelled: inputs.branchCancelled,
    frontiers,
  });
}

/** Runs the four checks in order. Pure: same inputs, same decision. */
export function evaluateGate(inputs: GateInputs): GateDecision {
  const checks: GateCheckResult[] = [];
  let denied: { check: GateCheck; evidence: Record<string, unknown> } | null = null;
  for (const check of GATE_CHECK_ORDER) {
    if (denied !== null) {
      checks.push({ check, status: "not_reached" });
      continue;
    }
    const verdict = CHECKS[check](inputs);
    checks.push({
      check,
      status: verdict.denied ? "denied" : "passed",
      evidence: verdict.evidence,
    });
    if (verdict.denied) denied = { check, evidence: verdict.evidence };
  }
  const inputDigest = gateInputDigest(inputs);
  if (denied === null) {
    return {
      outcome: "ALLOW",
      denyCheck: null,
      cause: null,
      checks,
      evidence: { input_digest: inputDigest },
    };
  }
  const cause =
    typeof denied.evidence["cause"] === "string" ? denied.evidence["cause"] : denied.check;
  return {
    outcome: "DENY",
    denyCheck: denied.check,
    cause,
    checks,
    evidence: { input_digest: inputDigest, ...denied.evidence },
  };
}
