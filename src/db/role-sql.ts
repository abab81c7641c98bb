/**
 * db/role-sql — the statements that put a transaction or session into one of the ledger's
 * roles. Role names come from the closed DbRole set and are checked here, because they are
 * interpolated into SQL (SET ROLE takes no parameters). Imports: core, db.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { DB_ROLES, DbRole } from "./db.js";

/** Throws unless `role` is one of the three ledger roles. */
export function assertRole(role: string): asserts role is DbRole {
  if (!(DB_ROLES as readonly string[]).includes(role)) {
    throw new IrrevonError(ErrorCode.usage, `unknown database role ${JSON.stringify(role)}`, {
      details: { role, allowed: DB_ROLES },
    });
  }
}

/** Whether a handle acting as `role` must run read-only transactions. */
export function isReadOnlyRole(role: DbRole): boolean {
  return role === DbRole.read;
}

/**
 * Statements that open a transaction as `role`. READ ONLY must precede the first query of the
 * transaction, so it comes first.
 */
export function transactionPreamble(role: DbRole | null, readOnly: boolean): string[] {
  const out: string[] = [];
  if (readOnly || (role !== null && isReadOnlyRole(role))) out.push("SET TRANSACTION READ ONLY");
  if (role !== null) {
    assertRole(role);
    out.push(`SET LOCAL ROLE ${role}`);
  }
  return out;
}

/** Largest integer a bigint id may have and still be a JS number. */
export function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    throw new IrrevonError(
      ErrorCode.storage_error,
      `bigint ${text} exceeds the safe integer range`,
      { details: { value: text } },
    );
  }
  return n;
}
