/**
 * IrrevonBench metrics: each of the eight metrics against hand-counted answers, the fixed
 * denominators, the marks by tier, fault and arm flags, and pooling that never zero-fills a
 * cell without a value.
 */
import { describe, expect, it } from "vitest";
import { METRIC_KEYS, emptyCell, rateCell } from "../../src/bench/metrics/metric-cells.js";
import { poolCells, renderPooled } from "../../src/bench/metrics/pool.js";
import {
  scoreUnit,
  type ArmScoringFlags,
  type ScoredTrial,
  type UnitScoringInput,
} from "../../src/bench/metrics/score-unit.js";

const CONVENTIONAL: ArmScoringFlags = {
  ambiguityConcept: false,
  classifies: false,
  sendsStableKey: false,
};
const LEDGER: ArmScoringFlags = { ambiguityConcept: true, classifies: true, sendsStableKey: true };

function trial(i: number, over: Partial<ScoredTrial> = {}): ScoredTrial {
  return {
    trial_index: i,
    legitimate: true,
    eligible_for_dispatch: true,
    arm_outcome: "committed",
    oracle_claim: null,
    compensation: null,
    ...over,
  };
}

function unit(
  over: Partial<UnitScoringInput>,
  counts: readonly number[],
  orphans = 0,
): UnitScoringInput {
  const per: Record<string, number> = {};
  counts.forEach((c, i) => (per[String(i)] = c));
  return {
    tier: "C2",
    fault: "response-lost",
    arm: CONVENTIONAL,
    trials: counts.map((_, i) => trial(i)),
    readback: {
      total_effects: counts.reduce((s, c) => s + c, 0) + orphans,
      orphan_effect_count: orphans,
      per_intent_effect_counts: per,
    },
    ...over,
  };
}

describe("scoreUnit", () => {
  it("counts excess effects per eligible trial as duplicates", () => {
    const m = scoreUnit(unit({}, [1, 2, 1, 3]));
    expect(m.duplicate_effect_rate).toEqual({
      numerator: 3,
      denominator: 4,
      value: 0.75,
      mark: null,
    });
    expect(m.lost_legitimate_effect_rate).toEqual({
      numerator: 0,
      denominator: 4,
      value: 0,
      mark: null,
    });
    expect(Object.keys(m)).toEqual([...METRIC_KEYS]);
  });

  it("ineligible trials are outside the duplicate and lost denominators", () => {
    const trials = [
      trial(0),
      trial(1, { eligible_for_dispatch: false }),
      trial(2),
      trial(3, { eligible_for_dispatch: false }),
    ];
    const m = scoreUnit(unit({ trials, fault: "crash-before-persist" }, [1, 2, 0, 0]));
    expect(m.duplicate_effect_rate).toMatchObject({ numerator: 0, denominator: 2 });
    expect(m.lost_legitimate_effect_rate).toMatchObject({
      numerator: 1,
      denominator: 2,
      value: 0.5,
    });
  });

  it("false suppression needs a suppressed outcome and no effect on a legitimate eligible trial", () => {
    const trials = [
      trial(0, { arm_outcome: "suppressed" }),
      trial(1, { arm_outcome: "suppressed" }),
      trial(2, { arm_outcome: "suppressed", legitimate: false, eligible_for_dispatch: false }),
      trial(3),
    ];
    const m = scoreUnit(unit({ trials }, [0, 1, 0, 1]));
    expect(m.false_suppression_rate).toMatchObject({ numerator: 1, denominator: 3 });
    expect(m.lost_legitimate_effect_rate).toMatchObject({ numerator: 1, denominator: 3 });
  });

  it("orphans are over all effects, and a run with no effect has no orphan rate (not 0)", () => {
    expect(scoreUnit(unit({}, [1, 1, 1, 1], 2)).orphaned_effect_rate).toMatchObject({
      numerator: 2,
      denominator: 6,
    });
    expect(scoreUnit(unit({}, [0, 0, 0, 0])).orphaned_effect_rate).toEqual(emptyCell("N/A"));
  });

  it("conventional arms get N/A-by-arm for ambiguity and reconciliation, never zero", () => {
    const m = scoreUnit(unit({}, [1, 1, 1, 1]));
    expect(m.unresolved_ambiguous_rate).toEqual(emptyCell("N/A-by-arm"));
    expect(m.false_reconciliation_rate).toEqual(emptyCell("N/A-by-arm"));
    expect(m.compensation_correctness).toEqual(emptyCell("N/A"));
  });

  it("unresolved and review rates are over the workload's trials, not the arm's own dispatch count", () => {
    const trials = [
      trial(0, { arm_outcome: "ambiguous-unresolved" }),
      trial(1, { arm_outcome: "escalated" }),
      trial(2, { arm_outcome: "escalated" }),
      trial(3),
    ];
    const m = scoreUnit(unit({ trials, arm: LEDGER }, [1, 1, 1, 1]));
    expect(m.unresolved_ambiguous_rate).toMatchObject({ numerator: 1, denominator: 4 });
    expect(m.human_review_rate).toMatchObject({ numerator: 2, denominator: 4, value: 0.5 });
  });

  it("a claim is wrong when `unique` is not exactly one effect or `absent` is not zero", () => {
    const trials = [
      trial(0, { oracle_claim: "unique" }),
      trial(1, { oracle_claim: "unique" }),
      trial(2, { oracle_claim: "absent" }),
      trial(3, { oracle_claim: "absent" }),
    ];
    const m = scoreUnit(unit({ trials, arm: LEDGER }, [1, 2, 0, 1]));
    expect(m.false_reconciliation_rate).toMatchObject({ numerator: 2, denominator: 4 });
    expect(scoreUnit(unit({ arm: LEDGER }, [1, 1, 1, 1])).false_reconciliation_rate).toEqual(
      emptyCell("N/A"),
    );
  });

  it("expected-null marks C1 duplicates only for stable-key arms under the listed faults", () => {
    expect(
      scoreUnit(unit({ tier: "C1", arm: LEDGER }, [1, 1, 1, 1])).duplicate_effect_rate.mark,
    ).toBe("expected-null");
    // A fresh key on every attempt defeats native idempotency: its duplicates are real.
    const fresh = scoreUnit(unit({ tier: "C1" }, [1, 2, 1, 2])).duplicate_effect_rate;
    expect(fresh).toEqual({ numerator: 2, denominator: 4, value: 0.5, mark: null });
    expect(
      scoreUnit(unit({ tier: "C1", arm: LEDGER, fault: "semantic-resynthesis" }, [1, 1, 1, 1]))
        .duplicate_effect_rate.mark,
    ).toBeNull();
    expect(
      scoreUnit(unit({ tier: "C2", arm: LEDGER }, [1, 1, 1, 1])).duplicate_effect_rate.mark,
    ).toBeNull();
  });

  it("C3 orphan and lost rates are fixture-truth-only (no arm can observe them)", () => {
    const m = scoreUnit(unit({ tier: "C3" }, [1, 0, 1, 1], 1));
    expect(m.orphaned_effect_rate).toMatchObject({ value: 0.25, mark: "fixture-truth-only" });
    expect(m.lost_legitimate_effect_rate).toMatchObject({
      value: 0.25,
      mark: "fixture-truth-only",
    });
    expect(m.duplicate_effect_rate.mark).toBeNull();
  });

  it("compensation correctness is correct over attempted", () => {
    const trials = [
      trial(0, { compensation: { attempted: true, correct: true } }),
      trial(1, { compensation: { attempted: true, correct: false } }),
      trial(2, { compensation: { attempted: false, correct: false } }),
      trial(3),
    ];
    expect(scoreUnit(unit({ trials }, [1, 1, 1, 1])).compensation_correctness).toMatchObject({
      numerator: 1,
      denominator: 2,
    });
  });
});

describe("pooling", () => {
  it("sums counts over valid runs and leaves out invalid ones", () => {
    const pooled = poolCells([
      { valid: true, cell: rateCell(1, 4) },
      { valid: true, cell: rateCell(0, 4) },
      { valid: false, cell: rateCell(4, 4) },
    ]);
    expect(pooled).toMatchObject({
      pooled_rate: 0.125,
      numerator: 1,
      denominator: 8,
      runs_with_value: 2,
    });
    expect(pooled.wilson_95?.[0]).toBeGreaterThan(0);
  });

  it("never zero-fills: cells without a value add nothing, all-empty stays empty with its marks", () => {
    const mixed = poolCells([
      { valid: true, cell: rateCell(1, 2) },
      { valid: true, cell: emptyCell("N/A") },
    ]);
    expect(mixed.pooled_rate).toBe(0.5);
    expect(mixed.runs_without_value).toBe(1);
    const none = poolCells([
      { valid: true, cell: emptyCell("N/A-by-arm") },
      { valid: true, cell: emptyCell("N/A-by-arm") },
    ]);
    expect(none).toMatchObject({
      pooled_rate: null,
      numerator: null,
      wilson_95: null,
      marks: ["N/A-by-arm"],
    });
    expect(renderPooled(none)).toBe("N/A (N/A-by-arm)");
    expect(
      renderPooled(poolCells([{ valid: true, cell: rateCell(0, 4, "expected-null") }])),
    ).toMatch(/^0\.000 \(95% Wilson 0\.000–0\.\d{3}\) \[expected-null\]$/);
  });
});
