/**
 * ledger/operator-controls — the gate's operator inputs as APIs (the reference had none,
 * GAP 11): add and lift deny-list entries, cancel a branch. All are appended facts; a lift
 * is a new row, never a delete. Imports: core, db, ledger.
 */
import { checkCallerText } from "../core/caller-text.js";
import { CONTRACT_LIMITS } from "../core/contract-schema.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { EffectClass } from "../core/state-tables.js";
import { EFFECT_CLASSES } from "../core/state-tables.js";
import type { Db } from "../db/db.js";
import { jsonParam, toId } from "./sql-util.js";

/** A deny-list entry; unset columns are wildcards. */
export interface DenyEntryInput {
  readonly effectClass?: EffectClass;
  readonly effectType?: string;
  readonly scope?: string;
  readonly reason: string;
}

/** Adds a deny entry (null columns are wildcards; at least one must be set). Returns deny_id. */
export async function addDenyEntry(db: Db, input: DenyEntryInput): Promise<number> {
  checkDenyEntry(input);
  const { rows } = await db.query<{ deny_id: unknown }>(
    "INSERT INTO deny_entries (effect_class, effect_type, scope, reason) VALUES ($1, $2, $3, $4) RETURNING deny_id",
    [input.effectClass ?? null, input.effectType ?? null, input.scope ?? null, input.reason],
  );
  return toId(rows[0]?.deny_id);
}

/**
 * What a deny entry must hold (at least one column, a known effect_class, a reason), checked
 * before anything is opened or written; `usage` naming the field and the allowed values.
 */
export function checkDenyEntry(input: DenyEntryInput): void {
  if (
    input.effectClass === undefined &&
    input.effectType === undefined &&
    input.scope === undefined
  ) {
    throw new IrrevonError(
      ErrorCode.usage,
      "a deny entry must name an effect_class, effect_type or scope",
      { details: { field: "deny_entry" } },
    );
  }
  if (input.effectClass !== undefined && !EFFECT_CLASSES.includes(input.effectClass)) {
    throw new IrrevonError(
      ErrorCode.usage,
      `unknown effect_class ${JSON.stringify(input.effectClass)}; use one of ${EFFECT_CLASSES.join(", ")}`,
      { details: { field: "effect_class", value: input.effectClass, allowed: EFFECT_CLASSES } },
    );
  }
  if (typeof input.reason !== "string" || input.reason.length === 0) {
    throw new IrrevonError(ErrorCode.usage, "a deny entry needs a reason", {
      details: { field: "reason" },
    });
  }
  // An entry matches contracts: one the contract limits rule out would silently match nothing.
  if (input.effectType !== undefined)
    checkCallerText(input.effectType, "effect_type", ErrorCode.usage, {
      max: CONTRACT_LIMITS.effectTypeMaxChars,
    });
  if (input.scope !== undefined)
    checkCallerText(input.scope, "scope", ErrorCode.usage, { max: CONTRACT_LIMITS.scopeMaxChars });
  checkCallerText(input.reason, "reason", ErrorCode.usage);
}

/** Lifts a deny entry. Lifting twice is refused by the unique lift (illegal_state). */
export async function liftDenyEntry(db: Db, denyId: number): Promise<number> {
  return db.transaction(async (tx) => {
    const exists = await tx.query("SELECT 1 FROM deny_entries WHERE deny_id = $1", [denyId]);
    if (exists.rows.length === 0)
      throw new IrrevonError(ErrorCode.not_found, `no deny entry ${denyId}`, {
        details: { deny_id: denyId },
      });
    const lifted = await tx.query<{ lift_id: unknown }>(
      "INSERT INTO deny_lifts (deny_id) VALUES ($1) ON CONFLICT (deny_id) DO NOTHING RETURNING lift_id",
      [denyId],
    );
    const row = lifted.rows[0];
    if (row === undefined)
      throw new IrrevonError(ErrorCode.illegal_state, "deny entry already lifted", {
        details: { deny_id: denyId },
      });
    return toId(row.lift_id);
  });
}

/** Options of {@link cancelBranch}. */
export interface CancelBranchOptions {
  /**
   * Also move every PERSISTED execution on the branch to CANCELLED (actor human). Without
   * it, such executions stay PERSISTED and the gate's branch_lineage check denies them.
   */
  readonly cancelPersisted?: boolean;
}

/** What a branch cancellation must hold, checked before anything is opened or written. */
export function checkBranchCancel(branchRef: string, reason: string): void {
  if (typeof branchRef !== "string" || branchRef.length === 0 || branchRef.length > 512) {
    throw new IrrevonError(
      ErrorCode.usage,
      `branch_ref must be 1 to 512 characters; got ${typeof branchRef === "string" ? branchRef.length : typeof branchRef}`,
      { details: { field: "branch_ref", limit: 512 } },
    );
  }
  if (typeof reason !== "string" || reason.length === 0)
    throw new IrrevonError(ErrorCode.usage, "a cancellation needs a reason", {
      details: { field: "reason" },
    });
  checkCallerText(reason, "reason", ErrorCode.usage);
}

/**
 * Cancels a branch: later registrations on it are INTENDED→CANCELLED, and the gate denies
 * dispatch of records on it. Idempotent. Returns the executions it cancelled.
 */
export async function cancelBranch(
  db: Db,
  branchRef: string,
  reason: string,
  options: CancelBranchOptions = {},
): Promise<number[]> {
  checkBranchCancel(branchRef, reason);
  return db.transaction(async (tx) => {
    await tx.query(
      "INSERT INTO branch_cancellations (branch_ref, reason) VALUES ($1, $2) ON CONFLICT (branch_ref) DO NOTHING",
      [branchRef, reason],
    );
    if (options.cancelPersisted !== true) return [];
    const { rows } = await tx.query<{ execution_id: unknown }>(
      `SELECT f.execution_id FROM effect_frontiers f JOIN effect_records r ON r.effect_id = f.effect_id
        WHERE r.branch_ref = $1 AND f.frontier = 'PERSISTED' ORDER BY f.execution_id`,
      [branchRef],
    );
    const cancelled: number[] = [];
    for (const row of rows) {
      const id = toId(row.execution_id);
      await tx.query(
        "SELECT ledger_transition($1, 'PERSISTED', 'CANCELLED', 'branch_cancelled', 'human', $2::jsonb)",
        [id, jsonParam({ branch_ref: branchRef, reason })],
      );
      cancelled.push(id);
    }
    return cancelled;
  });
}
