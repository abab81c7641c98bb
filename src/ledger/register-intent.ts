/**
 * ledger/register-intent — persist before dispatch (§3.8, §1.4). In ONE transaction:
 * `INSERT effect_records … ON CONFLICT DO NOTHING`; a new record gets its authority, the
 * link, and `ledger_open_execution(register)` (∅→INTENDED→PERSISTED, or →CANCELLED on a
 * cancelled branch). A replay (same intent id) is adjudicated against the stored record:
 *   - a different stored preimage ⇒ identity_collision (D4), nothing written;
 *   - effect_class / adapter_id / branch_ref differ ⇒ identity_conflict with the
 *     mismatches, nothing written;
 *   - parameters_digest or event_time differ ⇒ a parameter_variants row;
 *   - authority_ref or stamped_at differ from the current authority ⇒ appended authority.
 * Instants are compared as instants (two spellings of one time are the same value).
 *
 * Storage boundary: this is the one place the ledger reveals the ModelTainted parameters,
 * to store them verbatim as the payload an adapter will later receive. They never reach
 * identity (which was derived before, from business facts only) and the first
 * registration's parameters stay the dispatched payload. Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import type { ValidatedIntent } from "../core/contract.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { assertNoIdentityCollision } from "../core/identity.js";
import { normalizeRfc3339 } from "../core/rfc3339.js";
import type { LifecycleState } from "../core/state-tables.js";
import { revealForAdapter } from "../core/taint.js";
import type { Db, Queryable } from "../db/db.js";
import { latestExecution } from "./read-records.js";
import { jsonParam, toId } from "./sql-util.js";

/** What registration reports (the reference's exchange shape, camel-cased). */
export interface RegisterResult {
  readonly effectId: string;
  readonly operationId: string;
  readonly lifecycle: LifecycleState;
  readonly replayed: boolean;
  /** The incoming parameters digest when a variant row was written, else null. */
  readonly parameterVariantDigest: string | null;
  /** True when a new authority was appended (replay with a new authority_ref/stamped_at). */
  readonly authorityRefresh: boolean;
}

/** Options of {@link registerIntent}. */
export interface RegisterOptions {
  /** Runs inside the transaction after every insert, before COMMIT (crash seam persist.pre_commit). */
  readonly beforeCommit?: () => Promise<void>;
}

async function appendAuthorityIn(
  q: Queryable,
  effectId: string,
  authorityRef: string,
  scope: string,
  stampedAt: string,
): Promise<number> {
  const a = await q.query<{ authority_id: unknown }>(
    "INSERT INTO authorities (authority_ref, scope, stamped_at) VALUES ($1, $2, $3::timestamptz) RETURNING authority_id",
    [authorityRef, scope, stampedAt],
  );
  const authorityId = toId(a.rows[0]?.authority_id);
  await q.query("INSERT INTO effect_authorities (effect_id, authority_id) VALUES ($1, $2)", [
    effectId,
    authorityId,
  ]);
  return authorityId;
}

async function insertNew(
  q: Queryable,
  intent: ValidatedIntent,
  declarationDigest: string,
  stampedAt: string,
  eventTime: string | null,
): Promise<boolean> {
  const parameters = revealForAdapter(intent.parameters); // storage boundary, see header
  const inserted = await q.query(
    `INSERT INTO effect_records (effect_id, identity_version, contract_canonical, effect_type, effect_class, scope,
                                 stable_ids, adapter_id, declaration_digest, parameters, parameters_digest,
                                 branch_ref, event_time)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10::jsonb, $11, $12, $13::timestamptz)
     ON CONFLICT (effect_id) DO NOTHING RETURNING effect_id`,
    [
      intent.identity.intentId,
      intent.identity.identityVersion,
      intent.identity.canonical,
      intent.effectType,
      intent.effectClass,
      intent.scope,
      jsonParam(intent.stableIds),
      intent.adapterId,
      declarationDigest,
      jsonParam(parameters),
      intent.parametersDigest,
      intent.branchRef,
      eventTime,
    ],
  );
  if (inserted.rows.length === 0) return false;
  await appendAuthorityIn(
    q,
    intent.identity.intentId,
    intent.authorityRef,
    intent.scope,
    stampedAt,
  );
  await q.query("SELECT * FROM ledger_open_execution($1, 'register')", [intent.identity.intentId]);
  return true;
}

interface StoredForReplay {
  contract_canonical: string;
  effect_class: string;
  adapter_id: string;
  branch_ref: string | null;
  parameters_digest: string;
  event_time_differs: boolean;
  authority_ref: string | null;
  stamped_at_differs: boolean | null;
}

async function adjudicateReplay(
  q: Queryable,
  intent: ValidatedIntent,
  stampedAt: string,
  eventTime: string | null,
): Promise<{ variantDigest: string | null; authorityRefresh: boolean }> {
  const effectId = intent.identity.intentId;
  const { rows } = await q.query<StoredForReplay>(
    `SELECT r.contract_canonical, r.effect_class, r.adapter_id, r.branch_ref, r.parameters_digest,
            (r.event_time IS DISTINCT FROM $2::timestamptz) AS event_time_differs,
            cur.authority_ref, (cur.stamped_at IS DISTINCT FROM $3::timestamptz) AS stamped_at_differs
       FROM effect_records r
       LEFT JOIN LATERAL (
         SELECT a.authority_ref, a.stamped_at FROM effect_authorities l
           JOIN authorities a ON a.authority_id = l.authority_id
          WHERE l.effect_id = r.effect_id ORDER BY l.link_id DESC LIMIT 1
       ) cur ON true
      WHERE r.effect_id = $1
      FOR UPDATE OF r`,
    [effectId, eventTime, stampedAt],
  );
  const stored = rows[0];
  if (stored === undefined) {
    // The conflicting insert was rolled back between our INSERT and this read.
    throw new IrrevonError(
      ErrorCode.storage_error,
      "registration raced a rolled-back insert; retry",
      {
        retryable: true,
        details: { effect_id: effectId },
      },
    );
  }
  assertNoIdentityCollision(
    { intentId: effectId, canonical: stored.contract_canonical },
    intent.identity,
  );

  const mismatches: Record<string, { stored: string | null; incoming: string | null }> = {};
  if (stored.effect_class !== intent.effectClass)
    mismatches["effect_class"] = { stored: stored.effect_class, incoming: intent.effectClass };
  if (stored.adapter_id !== intent.adapterId)
    mismatches["adapter_id"] = { stored: stored.adapter_id, incoming: intent.adapterId };
  if (stored.branch_ref !== intent.branchRef)
    mismatches["branch_ref"] = { stored: stored.branch_ref, incoming: intent.branchRef };
  if (Object.keys(mismatches).length > 0) {
    throw new IrrevonError(
      ErrorCode.identity_conflict,
      "re-registration disagrees with the stored record on must-match fields",
      {
        details: {
          effect_id: effectId,
          mismatches,
          stored_record_digest: canonicalDigest({
            effect_id: effectId,
            effect_class: stored.effect_class,
            adapter_id: stored.adapter_id,
            branch_ref: stored.branch_ref,
          }),
        },
      },
    );
  }

  let variantDigest: string | null = null;
  if (stored.parameters_digest !== intent.parametersDigest || stored.event_time_differs) {
    await q.query(
      "INSERT INTO parameter_variants (effect_id, parameters_digest, event_time) VALUES ($1, $2, $3::timestamptz)",
      [effectId, intent.parametersDigest, eventTime],
    );
    variantDigest = intent.parametersDigest;
  }
  const authorityRefresh =
    stored.authority_ref !== intent.authorityRef || stored.stamped_at_differs !== false;
  if (authorityRefresh)
    await appendAuthorityIn(q, effectId, intent.authorityRef, intent.scope, stampedAt);
  return { variantDigest, authorityRefresh };
}

/**
 * Registers a validated intent (see the file header). `declarationDigest` is the digest of
 * the configured adapter's capability declaration, stored with the record.
 */
export async function registerIntent(
  db: Db,
  intent: ValidatedIntent,
  declarationDigest: string,
  options: RegisterOptions = {},
): Promise<RegisterResult> {
  // One spelling per instant before SQL sees it (microsecond precision, UTC).
  const stampedAt = normalizeRfc3339(intent.stampedAt);
  const eventTime = intent.eventTime === null ? null : normalizeRfc3339(intent.eventTime);
  return db.transaction(async (tx) => {
    // D4 before anything is written: a stored record under this id with another preimage is
    // a collision, never a merge (the table's CHECK would otherwise reject the insert first).
    const existing = await tx.query<{ contract_canonical: string }>(
      "SELECT contract_canonical FROM effect_records WHERE effect_id = $1",
      [intent.identity.intentId],
    );
    const stored = existing.rows[0];
    if (stored !== undefined) {
      assertNoIdentityCollision(
        { intentId: intent.identity.intentId, canonical: stored.contract_canonical },
        intent.identity,
      );
    }
    const created = await insertNew(tx, intent, declarationDigest, stampedAt, eventTime);
    const replay = created
      ? { variantDigest: null, authorityRefresh: false }
      : await adjudicateReplay(tx, intent, stampedAt, eventTime);
    const latest = await latestExecution(tx, intent.identity.intentId);
    if (latest === null) {
      throw new IrrevonError(ErrorCode.internal, "registered record has no execution", {
        details: { effect_id: intent.identity.intentId },
      });
    }
    if (created && options.beforeCommit !== undefined) await options.beforeCommit();
    return {
      effectId: intent.identity.intentId,
      operationId: latest.operationId,
      lifecycle: latest.frontier,
      replayed: !created,
      parameterVariantDigest: replay.variantDigest,
      authorityRefresh: replay.authorityRefresh,
    };
  });
}
