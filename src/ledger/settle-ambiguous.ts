/**
 * ledger/settle-ambiguous — the exit from AMBIGUOUS (I6): the transition (citing probe ids,
 * a receipt id or a human decision) and, optionally, the finding it implies and an
 * escalation of that finding, all in ONE transaction, so a crash can never leave a settled
 * execution without its classification. `settleWithProbe` also records the probe that
 * settles, all in one statement (ledger_reconcile_settle, sql/migrations/0052).
 * Imports: core, db, ledger.
 */
import { rejectAdvisory } from "../core/advisory-guard.js";
import type {
  Actor,
  Cause,
  Classification,
  FindingCreator,
  LifecycleState,
} from "../core/state-tables.js";
import type { IrrevonError } from "../core/errors.js";
import type { Db, Queryable } from "../db/db.js";
import { mapDbError } from "../db/sqlstate.js";
import { attachFindingIn } from "./attach-finding.js";
import type { ProbeInput } from "./record-probe.js";
import { resolveIn } from "./resolve-finding.js";
import { jsonParam, toId } from "./sql-util.js";

/** The finding a settle attaches: which effect, what the destination showed, who concluded it. */
export interface SettleFinding {
  readonly effectId: string;
  readonly adapterId: string;
  readonly destinationRef: string | null;
  readonly classification: Classification;
  readonly excessEffectCount?: number;
  readonly createdBy: FindingCreator;
}

/** A settle of one AMBIGUOUS execution, with the finding it implies. */
export interface SettleInput {
  readonly executionId: number;
  readonly to: Extract<LifecycleState, "SETTLED_COMMITTED" | "SETTLED_FAILED">;
  readonly cause: Cause;
  readonly actor: Actor;
  /** Must cite probe_ids, receipt_id, human or note (checked again in SQL). */
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly finding?: SettleFinding & {
    /** Defaults to the settle evidence. */
    readonly evidence?: Readonly<Record<string, unknown>>;
    /** Also moves the new finding OPEN → ESCALATED_HUMAN (actor system). */
    readonly escalate?: Readonly<Record<string, unknown>>;
  };
}

/** The settle's transition and finding ids. */
export interface SettleResult {
  readonly transitionSeq: number;
  readonly findingId: number | null;
}

/** Settles one AMBIGUOUS execution. DT002 (someone settled first) surfaces as stale_state. */
export async function settleAmbiguous(db: Db, input: SettleInput): Promise<SettleResult> {
  rejectAdvisory(input.evidence);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ seq: unknown }>(
      "SELECT ledger_transition($1, 'AMBIGUOUS', $2, $3, $4, $5::jsonb) AS seq",
      [input.executionId, input.to, input.cause, input.actor, jsonParam(input.evidence)],
    );
    const transitionSeq = toId(rows[0]?.seq);
    const f = input.finding;
    if (f === undefined) return { transitionSeq, findingId: null };
    const findingId = await attachFindingIn(tx, {
      effectId: f.effectId,
      adapterId: f.adapterId,
      destinationRef: f.destinationRef,
      classification: f.classification,
      ...(f.excessEffectCount === undefined ? {} : { excessEffectCount: f.excessEffectCount }),
      evidence: {
        execution_id: input.executionId,
        settle_transition_seq: transitionSeq,
        ...(f.evidence ?? input.evidence),
      },
      createdBy: f.createdBy,
    });
    if (f.escalate !== undefined) {
      await resolveIn(tx, findingId, {
        from: "OPEN",
        to: "ESCALATED_HUMAN",
        actor: "system",
        evidence: f.escalate,
      });
    }
    return { transitionSeq, findingId };
  });
}

/**
 * A probe time the settle statement reads itself (0060): the database clock when it runs plus
 * `offsetMs` (engine time: the clock's test offset), and never earlier than `notBeforeMs`.
 */
export interface SettleTime {
  readonly offsetMs: number;
  readonly notBeforeMs: number;
}

/** The probe a settle writes: its time given, or read by the settle statement. */
export type SettlingProbe = Omit<ProbeInput, "queriedAt"> & {
  readonly queriedAt: string | SettleTime;
};

/** A probe that settles its AMBIGUOUS execution (ledger_reconcile_settle, 0052, 0060). */
export interface ProbeSettleInput {
  /** The probe row; the settle cites it after `priorProbeIds`. */
  readonly probe: SettlingProbe;
  /** Earlier probes the exit cites too (the first ABSENT read of a confirmation). */
  readonly priorProbeIds: readonly number[];
  readonly to: Extract<LifecycleState, "SETTLED_COMMITTED" | "SETTLED_FAILED">;
  readonly cause: Cause;
  readonly actor: Actor;
  readonly finding: SettleFinding & {
    /** Added to {execution_id, settle_transition_seq, probe_ids}. */
    readonly evidence: Readonly<Record<string, unknown>>;
    /** Also moves the new finding OPEN → ESCALATED_HUMAN (actor system); probe_ids are added. */
    readonly escalate?: Readonly<Record<string, unknown>>;
  };
}

/** What the one-call settle did; a refused exit keeps the probe and carries the error. */
export type ProbeSettleResult =
  | {
      readonly status: "settled";
      readonly probeId: number;
      readonly transitionSeq: number;
      readonly findingId: number;
    }
  | { readonly status: "refused"; readonly probeId: number; readonly error: IrrevonError };

/**
 * Records the probe, the exit from AMBIGUOUS citing it and the finding (with its escalation)
 * in ONE statement. The same rows, evidence and digests as `recordProbe` + `settleAmbiguous`;
 * a refused exit (stale_state when another writer settled first, evidence_invalid, …) writes
 * neither transition nor finding, keeps the probe, and is returned, as when the probe was
 * written on its own first.
 */
export async function settleWithProbe(
  q: Queryable,
  input: ProbeSettleInput,
): Promise<ProbeSettleResult> {
  const p = input.probe;
  const f = input.finding;
  rejectAdvisory(p.evidence);
  rejectAdvisory(f.evidence);
  if (f.escalate !== undefined) rejectAdvisory(f.escalate);
  const probe = {
    execution_id: p.executionId,
    adapter_id: p.adapterId,
    declaration_digest: p.declarationDigest,
    probe_kind: p.probeKind,
    query_keys: p.queryKeys,
    result: p.result,
    n_found: p.result === "INDETERMINATE" ? null : p.nFound,
    destination_refs: p.destinationRefs,
    response_digest: p.responseDigest ?? null,
    ...(typeof p.queriedAt === "string"
      ? { queried_at: p.queriedAt }
      : {
          clock_offset_ms: Math.round(p.queriedAt.offsetMs),
          not_before: new Date(p.queriedAt.notBeforeMs).toISOString(),
        }),
    evidence: p.evidence,
  };
  const finding = {
    effect_id: f.effectId,
    adapter_id: f.adapterId,
    destination_ref: f.destinationRef,
    classification: f.classification,
    excess: f.excessEffectCount ?? null,
    created_by: f.createdBy,
    evidence: f.evidence,
    escalate: f.escalate ?? null,
  };
  const { rows } = await q.query<{ result: Record<string, unknown> }>(
    "SELECT ledger_reconcile_settle($1::jsonb, $2::bigint[], $3, $4, $5, $6::jsonb) AS result",
    [
      jsonParam(probe),
      [...input.priorProbeIds],
      input.to,
      input.cause,
      input.actor,
      jsonParam(finding),
    ],
  );
  const r = rows[0]?.result ?? {};
  const probeId = toId(r["probe_id"]);
  if (r["status"] === "settled")
    return {
      status: "settled",
      probeId,
      transitionSeq: toId(r["transition_seq"]),
      findingId: toId(r["finding_id"]),
    };
  // The refusal as the driver would have raised it, mapped the same way (SQLSTATE → code).
  const raised = Object.assign(new Error(String(r["message"] ?? "settle refused")), {
    code: r["sqlstate"],
    ...(typeof r["constraint"] === "string" ? { constraint: r["constraint"] } : {}),
  });
  return { status: "refused", probeId, error: mapDbError(raised) };
}
