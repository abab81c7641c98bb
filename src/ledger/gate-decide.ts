/**
 * ledger/gate-decide — the one place a commit-gate decision is made and recorded. Every claim
 * of a request that can create an effect (first send, retry, human or policy re-dispatch, C1
 * replay probe) calls `decideGate` inside its claim transaction, after the slot and record
 * locks: it reads the inputs (gate-inputs), runs the four checks (gate-evaluate) and persists
 * the decision (the only INSERT INTO gate_decisions), ALLOW and DENY alike. Only an ALLOW lets
 * the claim write an attempt (claim-attempt), and only a claim it returns (a
 * `GateAllowedClaim`) can be handed to the wire (engine/gated-send).
 *
 * Automatic work (a worker's replay probe or resumed re-dispatch) asks with
 * `suppressRepeatedDeny`: a deny identical to the last one recorded for the same execution and
 * variant (same check and cause, same cited facts, gate time aside) is NOT recorded again, so
 * a standing deny entry costs one decision row and one escalation, not one per worker cycle.
 * Anything that changed (an entry lifted, a new authority) is decided and recorded anew.
 * Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import type { GateVariant } from "../core/state-tables.js";
import type { Queryable } from "../db/db.js";
import { evaluateGate, type GateDecision } from "./gate-evaluate.js";
import { gateInputsOf, readGateInputs, type ClaimInputs } from "./gate-inputs.js";
import { jsonParam, toId } from "./sql-util.js";
import type { ExecutionFrontier, StoredRecord } from "./types.js";

declare const gateAllowedBrand: unique symbol;

/**
 * A claimed attempt the gate allowed: the only thing engine/gated-send accepts. Produced only
 * by ledger/claim-attempt after an ALLOW decision was persisted in the same transaction.
 */
export interface GateAllowedClaim {
  readonly decisionId: number;
  readonly attemptId: number;
  readonly executionId: number;
  readonly operationId: string;
  readonly [gateAllowedBrand]: true;
}

/** A persisted (or, for a repeated deny, previously persisted) decision. */
export interface RecordedDecision {
  readonly decision: GateDecision;
  readonly decisionId: number;
  /** True when this deny repeats the last recorded one and no new row was written. */
  readonly repeated: boolean;
}

/** What the deny rests on, gate time aside: equal keys mean nothing changed. */
function denyKey(evidence: Readonly<Record<string, unknown>>): string {
  const rest: Record<string, unknown> = { ...evidence };
  delete rest["input_digest"];
  delete rest["gate_time"];
  return canonicalDigest(rest);
}

/** The last recorded decision a new deny may repeat (see the file header). */
interface PriorDecision {
  readonly decisionId: number;
  readonly outcome: string;
  readonly denyCheck: string | null;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** The id of `last` when `decision` is the same deny (gate time aside), else null. */
export function repeatedDenyOf(
  last: PriorDecision | undefined,
  decision: GateDecision,
): number | null {
  if (last === undefined || last.outcome !== "DENY" || last.denyCheck !== decision.denyCheck)
    return null;
  return denyKey(last.evidence) === denyKey(decision.evidence) ? last.decisionId : null;
}

async function repeatedDeny(
  tx: Queryable,
  executionId: number,
  variant: GateVariant,
  decision: GateDecision,
): Promise<number | null> {
  const { rows } = await tx.query<{
    decision_id: unknown;
    outcome: string;
    deny_check: string | null;
    evidence: Record<string, unknown>;
  }>(
    `SELECT decision_id, outcome, deny_check, evidence FROM gate_decisions
      WHERE execution_id = $1 AND variant = $2 ORDER BY decision_id DESC LIMIT 1`,
    [executionId, variant],
  );
  const last = rows[0];
  return repeatedDenyOf(
    last === undefined
      ? undefined
      : {
          decisionId: toId(last.decision_id),
          outcome: last.outcome,
          denyCheck: last.deny_check,
          evidence: last.evidence,
        },
    decision,
  );
}

/**
 * The decision on claim inputs already read (the hot path: the locked claim records it).
 * `repeatOf` names the previous identical deny when `suppressRepeatedDeny` asks for it.
 */
export function decideOnInputs(
  inputs: ClaimInputs,
  variant: GateVariant,
  options: { readonly waiveExecutionId?: number; readonly suppressRepeatedDeny?: boolean } = {},
): { readonly decision: GateDecision; readonly repeatOf: number | null } {
  const decision = evaluateGate(gateInputsOf(inputs, variant, options.waiveExecutionId));
  const repeatOf =
    decision.outcome === "DENY" && options.suppressRepeatedDeny === true
      ? repeatedDenyOf(inputs.lastDecisions[variant], decision)
      : null;
  return { decision, repeatOf };
}

/** Reads, evaluates and records the gate decision for `execution` (see the file header). */
export async function decideGate(
  tx: Queryable,
  input: {
    readonly record: StoredRecord;
    readonly executions: readonly ExecutionFrontier[];
    readonly execution: ExecutionFrontier;
    readonly variant: GateVariant;
    /** The execution that may not block itself (a replay of it, a recovery re-dispatch). */
    readonly waiveExecutionId?: number;
    readonly suppressRepeatedDeny?: boolean;
  },
): Promise<RecordedDecision> {
  const inputs = await readGateInputs(tx, input.record, input.variant, input.waiveExecutionId);
  const decision = evaluateGate(inputs);
  if (decision.outcome === "DENY" && input.suppressRepeatedDeny === true) {
    const previous = await repeatedDeny(tx, input.execution.executionId, input.variant, decision);
    if (previous !== null) return { decision, decisionId: previous, repeated: true };
  }
  const { rows } = await tx.query<{ decision_id: unknown }>(
    `INSERT INTO gate_decisions (effect_id, execution_id, variant, outcome, deny_check, checks, evidence)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb) RETURNING decision_id`,
    [
      input.record.effectId,
      input.execution.executionId,
      input.variant,
      decision.outcome,
      decision.denyCheck,
      jsonParam(decision.checks),
      jsonParam(decision.evidence),
    ],
  );
  return { decision, decisionId: toId(rows[0]?.decision_id), repeated: false };
}
