/**
 * bench/oracles/history — the causal-history oracle (reference-bench §5.2, D10). Builds the
 * run's history document (`irrevonbench/history/v2`: fixture truth, harness fault events, every
 * arm log entry and outcome, every read-back effect, in that order) and checks it with the
 * project's history checker (testing/trial-history-checker `checkTrialHistory`). The v2 document also
 * carries the tier, fault and arm flags so that ALL EIGHT metrics can be re-derived from the
 * history alone (the reference checked five); see cross-check.ts.
 * Imports: testing/history-checker, testing/trial-history-checker, bench/fixtures, bench/oracles/readback, bench/arms/arm (types).
 */
import { countByInvariant, type HistoryInvariant } from "../../testing/history-checker.js";
import {
  checkTrialHistory,
  type TrialHistoryVerdict,
  type TrialTruthFact,
} from "../../testing/trial-history-checker.js";
import type { TrialReport } from "../arms/arm.js";
import { artifactDigest } from "../fixtures/artifact-bytes.js";
import type { Injection, Workload } from "../fixtures/documents.js";
import type { FaultKind, Tier } from "../fault-model.js";
import type { ArmScoringFlags } from "../metrics/score-unit.js";
import type { ReadbackResult } from "./readback.js";

export const HISTORY_FORMAT = "irrevonbench/history/v2";

/** Arm log keys copied into history events; everything else stays in the journal. */
const LOG_WHITELIST = [
  "action",
  "outcome",
  "lifecycle",
  "deny_check",
  "result",
  "client_ref",
  "transport_outcome",
  "same_effect_id",
  "replayed",
  "at",
  "reason",
  "branch_ref",
] as const;

export type HistoryEvent =
  | {
      readonly id: number;
      readonly kind: string;
      readonly source: "harness";
      readonly trial_index: number;
      readonly anchor: string;
    }
  | {
      readonly id: number;
      readonly kind: string;
      readonly source: "arm-log";
      readonly trial_index: number;
      readonly op_seq: number;
      readonly detail: Readonly<Record<string, unknown>>;
    }
  | {
      readonly id: number;
      readonly kind: "arm:outcome";
      readonly source: "arm-outcome";
      readonly trial_index: number;
      readonly outcome: string;
      readonly dispatch_attempted: boolean;
      readonly oracle_claim: "unique" | "absent" | null;
      readonly compensation: { readonly attempted: boolean; readonly correct: boolean } | null;
    }
  | {
      readonly id: number;
      readonly kind: "destination:effect-created";
      readonly source: "destination";
      readonly destination_seq: number;
      readonly destination_ref: string;
      readonly intent_key: string | null;
      readonly attributed_by: string | null;
      readonly ambiguous: boolean;
      readonly via: string;
    };

export interface HistoryDocument {
  readonly format: typeof HISTORY_FORMAT;
  readonly workload_id: string;
  readonly cell_id: string;
  readonly replicate_index: number;
  readonly tier: Tier;
  readonly fault: FaultKind;
  readonly arm: {
    readonly id: string;
    readonly ambiguity_concept: boolean;
    readonly classifies: boolean;
    readonly sends_stable_key: boolean;
  };
  readonly trials_truth: Readonly<
    Record<
      string,
      {
        readonly legitimate: boolean;
        readonly eligible_for_dispatch: boolean;
        readonly fault: FaultKind | null;
      }
    >
  >;
  readonly events: readonly HistoryEvent[];
  readonly history_digest: string;
}

/** `detail.compensation` of a report when it has the expected shape, else null. */
export function reportCompensation(
  report: TrialReport,
): { attempted: boolean; correct: boolean } | null {
  const c = report.detail["compensation"] as { attempted?: unknown; correct?: unknown } | undefined;
  return c !== undefined && typeof c.attempted === "boolean" && typeof c.correct === "boolean"
    ? { attempted: c.attempted, correct: c.correct }
    : null;
}

export interface HistoryInput {
  readonly workload: Workload;
  readonly injections: readonly Injection[];
  readonly armId: string;
  readonly flags: ArmScoringFlags;
  readonly reports: readonly TrialReport[];
  readonly readback: ReadbackResult;
}

/** Builds the history document; the digest covers everything but the digest field. */
export function buildHistory(input: HistoryInput): HistoryDocument {
  const faultOf = new Map(input.injections.map((i) => [i.trial_index, i]));
  const events: HistoryEvent[] = [];
  let id = 0;
  for (const report of input.reports) {
    const injection = faultOf.get(report.trial_index);
    if (injection !== undefined)
      events.push({
        id: ++id,
        kind: `fault:${injection.fault}`,
        source: "harness",
        trial_index: report.trial_index,
        anchor: injection.anchor,
      });
    report.detail.log.forEach((entry, opSeq) => {
      const detail = Object.fromEntries(
        LOG_WHITELIST.filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]),
      );
      events.push({
        id: ++id,
        kind: `arm:${entry.action}`,
        source: "arm-log",
        trial_index: report.trial_index,
        op_seq: opSeq,
        detail,
      });
    });
    events.push({
      id: ++id,
      kind: "arm:outcome",
      source: "arm-outcome",
      trial_index: report.trial_index,
      outcome: report.arm_outcome,
      dispatch_attempted: report.dispatch_attempted,
      oracle_claim: report.detail.oracle_claim ?? null,
      compensation: reportCompensation(report),
    });
  }
  for (const row of input.readback.rows) {
    events.push({
      id: ++id,
      kind: "destination:effect-created",
      source: "destination",
      destination_seq: row.request_seq,
      destination_ref: row.destination_ref,
      intent_key: row.attributed_intent,
      attributed_by: row.attributed_by,
      ambiguous: row.ambiguous,
      via: row.via,
    });
  }
  const w = input.workload;
  const body = {
    format: HISTORY_FORMAT,
    workload_id: w.workload_id,
    cell_id: w.cell_id,
    replicate_index: w.replicate_index,
    tier: w.cell.tier,
    fault: w.cell.fault,
    arm: {
      id: input.armId,
      ambiguity_concept: input.flags.ambiguityConcept,
      classifies: input.flags.classifies,
      sends_stable_key: input.flags.sendsStableKey,
    },
    trials_truth: Object.fromEntries(
      w.trials.map((t) => [
        String(t.trial_index),
        {
          legitimate: t.legitimate,
          eligible_for_dispatch: t.eligible_for_dispatch,
          fault: faultOf.get(t.trial_index)?.fault ?? null,
        },
      ]),
    ),
    events,
  } as const;
  return { ...body, history_digest: artifactDigest(body) };
}

/** The checker's verdict on a history document. */
export function checkHistoryDocument(
  doc: HistoryDocument,
): TrialHistoryVerdict & { readonly byInvariant: Record<HistoryInvariant, number> } {
  const trials = new Map<number, TrialTruthFact>(
    Object.entries(doc.trials_truth).map(([k, t]) => [
      Number(k),
      { legitimate: t.legitimate, eligibleForDispatch: t.eligible_for_dispatch, fault: t.fault },
    ]),
  );
  const outcomes = doc.events.flatMap((e) =>
    e.source === "arm-outcome"
      ? [
          {
            trialIndex: e.trial_index,
            outcome: e.outcome,
            dispatchAttempted: e.dispatch_attempted,
            claim: e.oracle_claim,
          },
        ]
      : [],
  );
  const effects = doc.events.flatMap((e) =>
    e.source === "destination"
      ? [{ destinationRef: e.destination_ref, intentKey: e.intent_key, ambiguous: e.ambiguous }]
      : [],
  );
  const verdict = checkTrialHistory({ trials, outcomes, effects });
  return { ...verdict, byInvariant: countByInvariant(verdict.violations) };
}
