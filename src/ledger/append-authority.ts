/**
 * ledger/append-authority — a new authority stamp linked to an effect; the latest link is
 * the current authority the gate checks (§4 check 2). Never updates an old stamp (I7).
 * Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { isRfc3339, normalizeRfc3339 } from "../core/rfc3339.js";
import type { Db, Queryable } from "../db/db.js";
import { requireRecord } from "./read-records.js";
import { toId } from "./sql-util.js";

/** An authority stamp: who allowed the effect, and when. */
export interface AuthorityInput {
  readonly authorityRef: string;
  /** RFC 3339. */
  readonly stampedAt: string;
}

/** Validates an authority stamp; throws resolution_invalid naming the bad field. */
export function checkAuthorityInput(
  input: Partial<AuthorityInput> | undefined,
  code: "resolution_invalid" | "contract_invalid" = "resolution_invalid",
): AuthorityInput {
  const ref = input?.authorityRef;
  const stamped = input?.stampedAt;
  if (typeof ref !== "string" || ref.length === 0 || ref.length > 512) {
    throw new IrrevonError(ErrorCode[code], "a fresh authority_ref (1..512 chars) is required", {
      details: { field: "authority_ref" },
    });
  }
  if (!isRfc3339(stamped)) {
    throw new IrrevonError(ErrorCode[code], "a fresh stamped_at (RFC 3339) is required", {
      details: { field: "stamped_at" },
    });
  }
  return { authorityRef: ref, stampedAt: stamped };
}

/** Appends inside the caller's transaction; returns the authority id. */
export async function appendAuthorityIn(
  q: Queryable,
  effectId: string,
  input: AuthorityInput,
): Promise<number> {
  const record = await requireRecord(q, effectId);
  const a = await q.query<{ authority_id: unknown }>(
    "INSERT INTO authorities (authority_ref, scope, stamped_at) VALUES ($1, $2, $3::timestamptz) RETURNING authority_id",
    [input.authorityRef, record.scope, normalizeRfc3339(input.stampedAt)],
  );
  const authorityId = toId(a.rows[0]?.authority_id);
  await q.query("INSERT INTO effect_authorities (effect_id, authority_id) VALUES ($1, $2)", [
    effectId,
    authorityId,
  ]);
  return authorityId;
}

/** Appends a new current authority for `effectId` (operator API). */
export async function appendAuthority(
  db: Db,
  effectId: string,
  input: AuthorityInput,
): Promise<number> {
  const checked = checkAuthorityInput(input, "contract_invalid");
  return db.transaction((tx) => appendAuthorityIn(tx, effectId, checked));
}
