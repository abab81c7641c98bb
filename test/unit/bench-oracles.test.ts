/**
 * IrrevonBench oracles: the ground-truth read-back attributes by digest, then by stable-id
 * projection (exactly one match; ambiguous ⇒ declined and orphan; oob never attributed), and
 * a payload naming several intents (equal parameters of two trials: the new-intent fault) by
 * the trial during which its client reference first reached the destination; the
 * causal history re-derives all eight metrics; and for EACH metric a mutation that corrupts
 * its input (and only its input) makes the cross-check fire on exactly that metric.
 */
import { describe, expect, it } from "vitest";
import { buildDevSplit } from "../../src/bench/fixtures/dev-split.js";
import type { FaultSchedule, Workload } from "../../src/bench/fixtures/documents.js";
import { METRIC_KEYS, type MetricKey } from "../../src/bench/metrics/metric-cells.js";
import type { ArmScoringFlags, ScoredTrial } from "../../src/bench/metrics/score-unit.js";
import { crossCheckMetrics } from "../../src/bench/oracles/cross-check.js";
import { buildHistory, checkHistoryDocument } from "../../src/bench/oracles/history.js";
import { readBack, type ReadbackResult } from "../../src/bench/oracles/readback.js";
import type { TrialReport } from "../../src/bench/arms/arm.js";
import { scoredTrials, scoreRun } from "../../src/bench/runner/score-run.js";
import { canonicalDigest, type TruthEffect } from "../../src/refdest/index.js";

const split = buildDevSplit();
const doc = <T>(prefix: string): T =>
  split.artifacts.find((a) => a.path.includes(prefix))?.document as T;
const workload = doc<Workload>("wl_dev.c2.responselost.irre.r0");
const schedule = doc<FaultSchedule>("fs_dev.c2.responselost.irre.r0");
const LEDGER: ArmScoringFlags = { ambiguityConcept: true, classifies: true, sendsStableKey: true };

let seq = 0;
function effect(
  payload: unknown,
  via: "api" | "oob" = "api",
  clientRef: string | null = null,
): TruthEffect {
  seq += 1;
  return {
    destination_ref: `dest_${seq}`,
    effect_type: "order.create",
    client_ref: clientRef,
    created_at: `2026-07-21T00:00:${String(seq).padStart(2, "0")}Z`,
    status: "created",
    n: seq,
    payload,
    payload_digest: canonicalDigest(payload),
    idempotency_key: null,
    request_seq: seq,
    visible_by_default: true,
    visible_from: "2026-07-21T00:00:00Z",
    via,
  };
}
const params = (i: number): Record<string, unknown> =>
  workload.trials[i]?.parameters as Record<string, unknown>;
const enriched = (i: number): unknown => ({ normalized: true, data: params(i) });

// trial 0: one effect by digest · trial 1: two (one by projection) · trial 2: none · trial 3:
// one · plus an out-of-band effect (orphan).
const effects = [
  effect(params(0)),
  effect(params(1)),
  effect(enriched(1)),
  effect(params(3)),
  effect({ x: 1 }, "oob"),
];
const reports: TrialReport[] = [
  {
    trial_index: 0,
    arm_outcome: "committed",
    dispatch_attempted: true,
    detail: { log: [{ at: 1, action: "send" }], oracle_claim: "unique" },
  },
  {
    trial_index: 1,
    arm_outcome: "committed",
    dispatch_attempted: true,
    detail: {
      log: [
        { at: 2, action: "send" },
        { at: 3, action: "retry" },
      ],
      oracle_claim: "unique",
    },
  },
  { trial_index: 2, arm_outcome: "suppressed", dispatch_attempted: false, detail: { log: [] } },
  {
    trial_index: 3,
    arm_outcome: "escalated",
    dispatch_attempted: true,
    detail: { log: [], compensation: { attempted: true, correct: false } },
  },
];

function run(readback: ReadbackResult, trials: ScoredTrial[], flags = LEDGER) {
  const metrics = scoreRun(workload, flags, trials, readback);
  const history = buildHistory({
    workload,
    injections: schedule.injections,
    armId: "R",
    flags,
    reports,
    readback,
  });
  return { metrics, history, discrepancies: crossCheckMetrics(metrics, history) };
}

describe("ground-truth read-back", () => {
  it("attributes by digest, then by projection; oob and unmatched are orphans", () => {
    const rb = readBack(effects, workload.trials, null);
    expect(rb.per_intent_effect_counts).toEqual({ "0": 1, "1": 2, "2": 0, "3": 1 });
    expect(rb.rows.map((r) => r.attributed_by)).toEqual([
      "digest",
      "digest",
      "projection",
      "digest",
      null,
    ]);
    expect(rb.orphan_effect_count).toBe(1);
    expect(rb.total_effects).toBe(5);
    expect(rb.readback_digest).toMatch(/^[0-9a-f]{64}$/);
  });
  it("declines an effect whose strings cover two trials' stable ids (ambiguous and orphan)", () => {
    const both = effect({ a: params(0), b: params(2), note: "merged" });
    const rb = readBack([both], workload.trials, null);
    expect(rb.ambiguous_attributions).toBe(1);
    expect(rb.orphan_effect_count).toBe(1);
    expect(rb.rows[0]?.attributed_intent).toBeNull();
  });
  it("equal payloads of two trials: the client reference's trial decides; without it, or outside the candidates, ambiguous", () => {
    // Trial 1 is a different order with trial 0's parameters (the extension's new-intent cell).
    const trials = workload.trials.map((t, i) => (i === 1 ? { ...t, parameters: params(0) } : t));
    const sent = [
      effect(params(0), "api", "ref-a"),
      effect(params(0), "api", "ref-b"),
      effect(params(0), "api", "ref-c"),
    ];
    const refs = new Map([
      ["ref-a", 0],
      ["ref-b", 1],
      ["ref-c", 2],
    ]);
    const rb = readBack(sent, trials, null, refs);
    expect(rb.rows.map((r) => [r.attributed_intent, r.attributed_by, r.ambiguous])).toEqual([
      ["0", "client-ref", false],
      ["1", "client-ref", false],
      [null, null, true],
    ]);
    expect(rb.per_intent_effect_counts).toEqual({ "0": 1, "1": 1, "2": 0, "3": 0 });
    expect(rb.ambiguous_attributions).toBe(1);
    const blind = readBack(sent.slice(0, 2), trials, null);
    expect(blind.rows.map((r) => r.attributed_intent)).toEqual([null, null]);
    expect(blind.orphan_effect_count).toBe(2);
    // A payload naming one intent never consults the reference (the dev split's read-back).
    const single = readBack([effect(params(3), "api", "ref-a")], workload.trials, null, refs);
    expect(single.rows[0]).toMatchObject({ attributed_intent: "3", attributed_by: "digest" });
  });
  it("never attributes an out-of-band effect even with a trial's exact payload", () => {
    const rb = readBack([effect(params(0), "oob")], workload.trials, null);
    expect(rb.per_intent_effect_counts["0"]).toBe(0);
    expect(rb.orphan_effect_count).toBe(1);
  });
});

describe("causal history and the cross-check of all eight metrics", () => {
  const readback = readBack(effects, workload.trials, null);
  const trials = scoredTrials(workload, reports);

  it("counts the invariants of the scenario", () => {
    const { history } = run(readback, trials);
    const v = checkHistoryDocument(history).byInvariant;
    expect(v.duplicate_effect).toBe(1);
    expect(v.orphan_effect).toBe(1);
    expect(v.lost_legitimate_effect).toBe(1);
    expect(v.false_suppression).toBe(1);
    expect(v.claim_contradiction).toBe(1);
    expect(history.history_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("finds no discrepancy when metrics and history come from the same run", () => {
    const { metrics, discrepancies } = run(readback, trials);
    expect(discrepancies).toEqual([]);
    // every metric has a value here, so none of the eight is passed vacuously
    for (const k of METRIC_KEYS) expect(metrics[k].value, k).not.toBeNull();
  });

  const counts = (over: Record<string, number>): ReadbackResult => ({
    ...readback,
    per_intent_effect_counts: { ...readback.per_intent_effect_counts, ...over },
  });
  const withTrial = (i: number, over: Partial<ScoredTrial>): ScoredTrial[] =>
    trials.map((t) => (t.trial_index === i ? { ...t, ...over } : t));
  const mutations: Record<MetricKey, () => [ReadbackResult, ScoredTrial[]]> = {
    duplicate_effect_rate: () => [counts({ "1": 3 }), trials],
    orphaned_effect_rate: () => [{ ...readback, orphan_effect_count: 2 }, trials],
    lost_legitimate_effect_rate: () => [counts({ "3": 0 }), trials],
    false_suppression_rate: () => [readback, withTrial(2, { arm_outcome: "failed" })],
    unresolved_ambiguous_rate: () => [
      readback,
      withTrial(0, { arm_outcome: "ambiguous-unresolved" }),
    ],
    false_reconciliation_rate: () => [readback, withTrial(0, { oracle_claim: "absent" })],
    human_review_rate: () => [readback, withTrial(3, { arm_outcome: "committed" })],
    compensation_correctness: () => [
      readback,
      withTrial(3, { compensation: { attempted: true, correct: true } }),
    ],
  };
  for (const metric of METRIC_KEYS) {
    it(`fires on a corrupted ${metric} input, and only there`, () => {
      const [rb, ts] = mutations[metric]();
      const metrics = scoreRun(workload, LEDGER, ts, rb);
      const history = buildHistory({
        workload,
        injections: schedule.injections,
        armId: "R",
        flags: LEDGER,
        reports,
        readback,
      });
      const fired = new Set(crossCheckMetrics(metrics, history).map((d) => d.metric));
      expect([...fired]).toEqual([metric]);
    });
  }

  it("fires when a metric the arm cannot have gets a value (N/A-by-arm is never zero-filled)", () => {
    const { metrics } = run(readback, trials, LEDGER);
    const history = buildHistory({
      workload,
      injections: schedule.injections,
      armId: "B0",
      flags: { ...LEDGER, ambiguityConcept: false },
      reports,
      readback,
    });
    const d = crossCheckMetrics(metrics, history).filter((x) => x.field === "mark");
    expect(d.map((x) => x.metric)).toEqual(["unresolved_ambiguous_rate"]);
  });
});
