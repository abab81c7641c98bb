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
 * registration's parameters stay the dispatched payload.
 *
 * One call (`ledger_register`, sql/migrations/0050): the stamp-skew check against the
 * database clock, the D4 check, the insert or the replay adjudication, and the latest
 * execution, all in one statement; refusals come back as values and are raised here, with
 * nothing written. A fused register-and-claim asks for the claim inputs in the same call.
 * Imports: core, db, ledger.
 */
import { canonicalDigest } from "../core/canonical.js";
import type { ValidatedIntent } from "../core/contract.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { assertNoIdentityCollision } from "../core/identity.js";
import { normalizeRfc3339 } from "../core/rfc3339.js";
import type { LifecycleState } from "../core/state-tables.js";
import { revealForAdapter } from "../core/taint.js";
import { checkAuthorityStamp } from "../core/authority-stamp.js";
import type { Db, Queryable } from "../db/db.js";
import { parseClaimInputs, type ClaimInputs } from "./gate-inputs.js";
import { jsonParam } from "./sql-util.js";

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
  /**
   * Runs inside the transaction after every insert, before COMMIT (crash seam
   * persist.pre_commit). Without it the call is one statement in its own transaction.
   */
  readonly beforeCommit?: () => Promise<void>;
  /**
   * Refuse a stamp further than this ahead of the database clock (contract_invalid,
   * limit max_clock_skew), checked in the same call before anything is written.
   */
  readonly maxClockSkewMs?: number;
}

/** Options of {@link registerIn}. */
export interface RegisterInOptions {
  readonly maxClockSkewMs?: number;
  /** Take the (scope, effect_type) slot lock first (a fused claim that uses the slot). */
  readonly lockSlot?: boolean;
  /** Return the claim inputs of the effect as well (a fused register-and-claim). */
  readonly withInputs?: boolean;
}

/** A registration, with the claim inputs when they were asked for. */
export interface Registered extends RegisterResult {
  readonly inputs: ClaimInputs | null;
}

interface RegisterRow {
  readonly status: "ok" | "future_stamp" | "collision" | "conflict" | "raced" | "no_execution";
  readonly now_ms?: number | string;
  readonly stored_canonical?: string;
  readonly stored?: { effect_class: string; adapter_id: string; branch_ref: string | null };
  readonly created?: boolean;
  readonly variant_digest?: string | null;
  readonly authority_refresh?: boolean;
  readonly operation_id?: string;
  readonly frontier?: LifecycleState;
  readonly inputs?: Record<string, unknown> | null;
  readonly version?: string | null;
}

function conflictError(
  intent: ValidatedIntent,
  stored: NonNullable<RegisterRow["stored"]>,
): IrrevonError {
  const mismatches: Record<string, { stored: string | null; incoming: string | null }> = {};
  if (stored.effect_class !== intent.effectClass)
    mismatches["effect_class"] = { stored: stored.effect_class, incoming: intent.effectClass };
  if (stored.adapter_id !== intent.adapterId)
    mismatches["adapter_id"] = { stored: stored.adapter_id, incoming: intent.adapterId };
  if (stored.branch_ref !== intent.branchRef)
    mismatches["branch_ref"] = { stored: stored.branch_ref, incoming: intent.branchRef };
  return new IrrevonError(
    ErrorCode.identity_conflict,
    "re-registration disagrees with the stored record on must-match fields",
    {
      details: {
        effect_id: intent.identity.intentId,
        mismatches,
        stored_record_digest: canonicalDigest({
          effect_id: intent.identity.intentId,
          effect_class: stored.effect_class,
          adapter_id: stored.adapter_id,
          branch_ref: stored.branch_ref,
        }),
      },
    },
  );
}

/**
 * One `ledger_register` call on `q` (the ledger, or an open transaction). Raises the
 * documented error for a refusal (nothing was written).
 */
export async function registerIn(
  q: Queryable,
  intent: ValidatedIntent,
  declarationDigest: string,
  options: RegisterInOptions = {},
): Promise<Registered> {
  // One spelling per instant before SQL sees it (microsecond precision, UTC).
  const stampedAt = normalizeRfc3339(intent.stampedAt);
  const eventTime = intent.eventTime === null ? null : normalizeRfc3339(intent.eventTime);
  const parameters = revealForAdapter(intent.parameters); // storage boundary, see header
  const effectId = intent.identity.intentId;
  const { rows } = await q.query<{ r: RegisterRow }>(
    "SELECT ledger_register($1::jsonb, $2, $3, $4) AS r",
    [
      jsonParam({
        effect_id: effectId,
        identity_version: intent.identity.identityVersion,
        contract_canonical: intent.identity.canonical,
        effect_type: intent.effectType,
        effect_class: intent.effectClass,
        scope: intent.scope,
        stable_ids: intent.stableIds,
        adapter_id: intent.adapterId,
        declaration_digest: declarationDigest,
        parameters,
        parameters_digest: intent.parametersDigest,
        branch_ref: intent.branchRef,
        event_time: eventTime,
        authority_ref: intent.authorityRef,
        stamped_at: stampedAt,
      }),
      options.maxClockSkewMs ?? null,
      options.lockSlot ?? false,
      options.withInputs ?? false,
    ],
  );
  const row = rows[0]?.r;
  switch (row?.status) {
    case "future_stamp": {
      const maxClockSkewMs = options.maxClockSkewMs ?? 0;
      checkAuthorityStamp(intent.stampedAt, { nowMs: Number(row.now_ms), maxClockSkewMs });
      // The database found the stamp too far ahead at microsecond precision.
      throw new IrrevonError(
        ErrorCode.contract_invalid,
        `stamped_at lies more than ${maxClockSkewMs} ms after the database clock`,
        {
          details: {
            path: "$.stamped_at",
            field: "stamped_at",
            limit: "max_clock_skew",
            limit_value: maxClockSkewMs,
          },
        },
      );
    }
    case "collision":
      assertNoIdentityCollision(
        { intentId: effectId, canonical: row.stored_canonical ?? "" },
        intent.identity,
      );
      throw new IrrevonError(
        ErrorCode.internal,
        "ledger_register reported a collision it did not find",
        {
          details: { effect_id: effectId },
        },
      );
    case "conflict":
      throw conflictError(
        intent,
        row.stored ?? { effect_class: "", adapter_id: "", branch_ref: null },
      );
    case "raced":
      // The conflicting insert was rolled back between our INSERT and the replay read.
      throw new IrrevonError(
        ErrorCode.storage_error,
        "registration raced a rolled-back insert; retry",
        {
          retryable: true,
          details: { effect_id: effectId },
        },
      );
    case "ok":
      return {
        effectId,
        operationId: row.operation_id ?? "",
        lifecycle: row.frontier ?? "INTENDED",
        replayed: row.created !== true,
        parameterVariantDigest: row.variant_digest ?? null,
        authorityRefresh: row.authority_refresh === true,
        inputs:
          row.inputs === null || row.inputs === undefined || typeof row.version !== "string"
            ? null
            : parseClaimInputs(row.inputs, row.version),
      };
    case "no_execution":
    case undefined:
    default:
      throw new IrrevonError(ErrorCode.internal, "registered record has no execution", {
        details: { effect_id: effectId, status: String(row?.status) },
      });
  }
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
  const skew =
    options.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: options.maxClockSkewMs };
  const beforeCommit = options.beforeCommit;
  const registered =
    beforeCommit === undefined
      ? await registerIn(db, intent, declarationDigest, skew)
      : await db.transaction(async (tx) => {
          const r = await registerIn(tx, intent, declarationDigest, skew);
          if (!r.replayed) await beforeCommit();
          return r;
        });
  const { inputs: _inputs, ...result } = registered;
  return result;
}
