/**
 * ledger/append-authority — a new authority stamp linked to an effect; the latest link is
 * the current authority the gate checks (§4 check 2). Never updates an old stamp (I7).
 * Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { isRfc3339, normalizeRfc3339 } from "../core/rfc3339.js";
import type { Db, Queryable } from "../db/db.js";
import { requireRecord } from "./read-records.js";
import { isoSql, toId } from "./sql-util.js";

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

/**
 * Refuses (`resolution_invalid`, naming `stamped_at`) an authority stamp the gate would already find expired
 * for a record in `scope`: its expiry is `stamped_at + max_age` of the scope's authority policy
 * (else the default `*` policy), the rule of irrevon_claim_inputs (0050), checked against the
 * database clock. For a stamp a dispatch is about to run under (a retry, a re-dispatch): it would
 * be written, open an execution, and only then be denied at the gate; it is refused before
 * anything is written instead. (`appendAuthority` does not ask: an operator may append an
 * expired stamp on purpose, to withdraw an effect's authority.)
 */
export async function refuseExpiredAuthority(
  q: Queryable,
  scope: string,
  input: AuthorityInput,
): Promise<void> {
  const { rows } = await q.query<{ expired: boolean; expires_at: string; max_age: string }>(
    `SELECT now() > e.expiry AS expired, ${isoSql("e.expiry")} AS expires_at, e.max_age
       FROM (SELECT $1::timestamptz + p.max_age AS expiry, p.max_age::text AS max_age
               FROM authority_policies p WHERE p.scope_pattern IN ($2, '*')
              ORDER BY (p.scope_pattern = $2) DESC, p.policy_id DESC LIMIT 1) e`,
    [normalizeRfc3339(input.stampedAt), scope],
  );
  const row = rows[0];
  if (row?.expired !== true) return;
  throw new IrrevonError(
    ErrorCode.resolution_invalid,
    `the authority stamped at ${input.stampedAt} expired at ${row.expires_at} ` +
      `(authority policy max_age ${row.max_age} for scope ${JSON.stringify(scope)}); stamp a fresh authority`,
    {
      details: {
        field: "stamped_at",
        stamped_at: input.stampedAt,
        expires_at: row.expires_at,
        max_age: row.max_age,
      },
    },
  );
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
