/**
 * ledger/reconcile-inputs — everything one reconcile step reads, for many effects in ONE
 * statement (`irrevon_reconcile_inputs`, sql/migrations/0052): the record, the latest execution
 * and its frontier, that execution's open attempts (owner lease live or not), every attempt's
 * horizon facts for the absence rule (with the receipt writer's newest lease row), the reconcile
 * probes, the newest destination ref a receipt recorded, and the database clock read first.
 * Recovery reads a page of effects at once; a reconcile step re-reads its one effect after
 * each status answer. The decisions stay in engine/reconciler and engine/reconcile-absence.
 * Imports: core, db, ledger.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Queryable } from "../db/db.js";
import {
  toAttemptHorizon,
  type AttemptHorizon,
  type AttemptHorizonSqlRow,
} from "./commit-horizons.js";
import { toOpenAttempt, type OpenAttempt, type OpenAttemptSqlRow } from "./open-work.js";
import { toFrontier, toStoredRecord, type FrontierRow, type RecordRow } from "./read-records.js";
import { toProbeRow, type ProbeRow, type ProbeSqlRow } from "./record-probe.js";
import type { ExecutionFrontier, StoredRecord } from "./types.js";

/** One effect's reconcile inputs, all read in the same statement. */
export interface ReconcileInputs {
  readonly effectId: string;
  /** Null: no such record. */
  readonly record: StoredRecord | null;
  /** The execution with the highest step, or null. */
  readonly latest: ExecutionFrontier | null;
  /** Open attempts of the latest execution, oldest first. */
  readonly openAttempts: readonly OpenAttempt[];
  /** Every attempt of the latest execution, by attempt number. */
  readonly horizons: readonly AttemptHorizon[];
  /** The latest execution's reconcile probes, oldest first. */
  readonly probes: readonly ProbeRow[];
  /** The newest non-null destination ref a receipt of the latest execution recorded. */
  readonly destinationRef: string | null;
  /** The database clock (epoch ms), read before every fact above. */
  readonly dbNowMs: number;
}

interface EffectJson {
  readonly effect_id: string;
  readonly record: RecordRow | null;
  readonly latest: FrontierRow | null;
  readonly open_attempts: OpenAttemptSqlRow[];
  readonly horizons: AttemptHorizonSqlRow[];
  readonly probes: ProbeSqlRow[];
  readonly destination_ref: string | null;
}

/** Reads the inputs of `effectIds` (any order, duplicates ignored) in one statement. */
export async function readReconcileInputs(
  q: Queryable,
  effectIds: readonly string[],
): Promise<Map<string, ReconcileInputs>> {
  const out = new Map<string, ReconcileInputs>();
  if (effectIds.length === 0) return out;
  const { rows } = await q.query<{ inputs: { now: string; effects: EffectJson[] } }>(
    "SELECT irrevon_reconcile_inputs($1::text[]) AS inputs",
    [[...effectIds]],
  );
  const raw = rows[0]?.inputs;
  const dbNowMs = Date.parse(raw?.now ?? "");
  if (raw === undefined || !Number.isFinite(dbNowMs))
    throw new IrrevonError(ErrorCode.internal, "the database returned no usable time", {
      details: { now: raw?.now ?? null },
    });
  for (const e of raw.effects) {
    out.set(e.effect_id, {
      effectId: e.effect_id,
      record: e.record === null ? null : toStoredRecord(e.record),
      latest: e.latest === null ? null : toFrontier(e.latest),
      openAttempts: e.open_attempts.map(toOpenAttempt),
      horizons: e.horizons.map(toAttemptHorizon),
      probes: e.probes.map(toProbeRow),
      destinationRef: e.destination_ref,
      dbNowMs,
    });
  }
  return out;
}

/** Reads one effect's inputs. */
export async function readOneReconcileInputs(
  q: Queryable,
  effectId: string,
): Promise<ReconcileInputs> {
  const inputs = (await readReconcileInputs(q, [effectId])).get(effectId);
  if (inputs === undefined)
    throw new IrrevonError(
      ErrorCode.internal,
      "irrevon_reconcile_inputs returned no row for the effect",
      {
        details: { effect_id: effectId },
      },
    );
  return inputs;
}
