/**
 * IrrevonBench statistics: every known answer the reference design pins (R's `sleep` paired
 * t-test, TOSTER on `sleep`, Newcombe's Wilson example, `p.adjust`, the sign-flip example,
 * t quantiles), the zero-variance conventions, required margins, and the two rules the
 * reference never implemented (large effect, the C1 registered null).
 */
import { describe, expect, it } from "vitest";
import { largeEffect, registeredNullC1 } from "../../src/bench/stats/hypotheses.js";
import {
  intersectionUnionP,
  pairedT,
  pHigher,
  pLower,
  pNonInferior,
  tost,
} from "../../src/bench/stats/paired.js";
import { benjaminiHochberg, holm, holmRejects } from "../../src/bench/stats/p-adjust.js";
import { logRiskRatio, wilsonInterval } from "../../src/bench/stats/proportions.js";
import { signFlipTest } from "../../src/bench/stats/sign-flip.js";
import {
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
} from "../../src/bench/stats/student-t.js";

// R's `sleep` data set: extra hours of sleep under drug 1 and drug 2, same ten patients.
const SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
const SLEEP_DIFF = SLEEP_1.map((x, i) => x - (SLEEP_2[i] as number));

describe("known answers", () => {
  it("paired t on sleep: mean −1.58, t −4.062128, p 0.002833, CI (−2.4598858, −0.7001142)", () => {
    const r = pairedT(SLEEP_DIFF);
    expect(r.mean).toBeCloseTo(-1.58, 2);
    expect(r.t).toBeCloseTo(-4.062128, 6);
    expect(r.df).toBe(9);
    expect(r.pTwoSided).toBeCloseTo(0.002833, 6);
    expect(r.ci[0]).toBeCloseTo(-2.4598858, 7);
    expect(r.ci[1]).toBeCloseTo(-0.7001142, 7);
  });

  it("TOST on sleep at δ = 0.5: not equivalent, max p 0.9892, 90% CI (−2.2930053, −0.8669947)", () => {
    const r = tost(SLEEP_DIFF, 0.5, 0.05);
    expect(r.equivalent).toBe(false);
    expect(Math.max(r.pLower, r.pUpper)).toBeCloseTo(0.9892, 4);
    expect(r.ci[0]).toBeCloseTo(-2.2930053, 7);
    expect(r.ci[1]).toBeCloseTo(-0.8669947, 7);
  });

  it("Wilson 81/263 → (0.2553, 0.3662)", () => {
    const ci = wilsonInterval(81, 263);
    expect(ci?.[0]).toBeCloseTo(0.2553, 4);
    expect(ci?.[1]).toBeCloseTo(0.3662, 4);
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(wilsonInterval(0, 10)?.[0]).toBe(0);
  });

  it("p.adjust on {.001, .01, .04, .2, .5}: Holm and BH", () => {
    const p = [0.001, 0.01, 0.04, 0.2, 0.5];
    const h = holm(p);
    [0.005, 0.04, 0.12, 0.4, 0.5].forEach((x, i) => expect(h[i]).toBeCloseTo(x, 12));
    const b = benjaminiHochberg(p);
    [0.005, 0.025, 0.0667, 0.25, 0.5].forEach((x, i) => expect(b[i]).toBeCloseTo(x, 4));
    // Input order is preserved and the running max/min is applied.
    expect(holm([0.04, 0.001, 0.03])).toEqual([0.06, 0.003, 0.06]);
    expect(benjaminiHochberg([0.04, 0.001, 0.03])).toEqual([0.04, 0.003, 0.04]);
    expect(holm([0.6, 0.7])).toEqual([1, 1]);
    expect(holmRejects([0.001, 0.02, 0.03], 0.025)).toEqual([true, false, false]);
  });

  it("sign-flip on [1.2, 2.3, 0.7, 3.1] → 0.125", () => {
    const r = signFlipTest([1.2, 2.3, 0.7, 3.1]);
    expect(r.p).toBe(0.125);
    expect(r.floor).toBe(0.125);
    expect(signFlipTest([1, -1, 1, -1]).p).toBe(1);
    expect(() => signFlipTest(new Array<number>(21).fill(1))).toThrow(/1 to 20/);
  });

  it.each([
    [4, 2.776445105],
    [5, 2.570581836],
    [9, 2.262157163],
    [10, 2.228138852],
    [19, 2.093024054],
  ])("t quantile 0.975 at df %i = %f", (df, q) => {
    expect(studentTQuantile(0.975, df)).toBeCloseTo(q, 8);
    expect(studentTQuantile(0.025, df)).toBeCloseTo(-q, 8);
    expect(studentTCdf(q, df)).toBeCloseTo(0.975, 9);
  });

  it("keeps precision at the centre of the distribution", () => {
    expect(Math.abs(studentTQuantile(0.5, 1000))).toBeLessThan(1e-12);
    expect(studentTCdf(1e-9, 10)).toBeGreaterThan(0.5);
    expect(studentTCdf(-1e-9, 10)).toBeLessThan(0.5);
  });

  it("the incomplete beta and t CDF agree with closed forms", () => {
    // I_x(1, 1) = x; I_x(a, 1) = x^a; t with 1 df is Cauchy: F(t) = 1/2 + atan(t)/π.
    expect(regularizedIncompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 14);
    expect(regularizedIncompleteBeta(0.3, 2.5, 1)).toBeCloseTo(0.3 ** 2.5, 14);
    for (const t of [-30, -2, -0.5, 0, 0.5, 2, 30]) {
      expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 13);
    }
    // t with 2 df: F(t) = 1/2 + t / (2√(2 + t²)).
    for (const t of [-4, -1, 0.3, 7]) {
      expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 13);
    }
  });
});

describe("zero-variance conventions and required margins", () => {
  it("equal differences: infinite t, p 0, degenerate CI", () => {
    const r = pairedT([-0.1, -0.1, -0.1]);
    expect(r.t).toBe(Number.NEGATIVE_INFINITY);
    expect(r.pTwoSided).toBe(0);
    expect(r.ci).toEqual([-0.1, -0.1]);
    const zero = pairedT([0, 0, 0]);
    expect([zero.t, zero.pTwoSided]).toEqual([0, 1]);
  });

  it("TOST at SE 0 is equivalent iff strictly inside the margin", () => {
    expect(tost([0.004, 0.004], 0.01).equivalent).toBe(true);
    expect(tost([0.01, 0.01], 0.01).equivalent).toBe(false);
    expect(tost([0.01, 0.01], 0.01).pLower).toBe(1);
    expect(tost([-0.004, -0.004], 0.01).pUpper).toBe(0);
  });

  it("one-sided p values at SE 0 and otherwise", () => {
    expect(pLower([-1, -1])).toBe(0);
    expect(pLower([0, 0])).toBe(1);
    expect(pHigher([1, 1])).toBe(0);
    expect(pLower(SLEEP_DIFF)).toBeCloseTo(0.002833 / 2, 6);
    expect(pHigher(SLEEP_DIFF)).toBeCloseTo(1 - 0.002833 / 2, 6);
    expect(pNonInferior([0.02, 0.02], 0.01)).toBe(1);
  });

  it("margins have no default and must be > 0; fewer than 2 seeds is refused", () => {
    expect(() => tost(SLEEP_DIFF, 0)).toThrow(/margin/);
    expect(() => tost(SLEEP_DIFF, Number.NaN)).toThrow(/margin/);
    expect(() => registeredNullC1(SLEEP_DIFF, -1)).toThrow(/c1_margin/);
    expect(() => pairedT([1])).toThrow(/at least 2/);
  });

  it("the intersection–union p is the largest component", () => {
    expect(intersectionUnionP([0.01, 0.03])).toBe(0.03);
    expect(() => intersectionUnionP([])).toThrow();
  });
});

describe("effect sizes and the rules the reference never implemented", () => {
  it("log RR with Haldane–Anscombe when a count is 0 or equals its n", () => {
    const plain = logRiskRatio(2, 10, 4, 10);
    expect(plain?.corrected).toBe(false);
    expect(plain?.logRr).toBeCloseTo(Math.log(0.5), 12);
    expect(plain?.se).toBeCloseTo(Math.sqrt(1 / 2 - 1 / 10 + 1 / 4 - 1 / 10), 12);
    const zero = logRiskRatio(0, 10, 4, 10);
    expect(zero?.corrected).toBe(true);
    expect(zero?.logRr).toBeCloseTo(Math.log(0.5 / 10.5 / (4.5 / 10.5)), 12);
    expect(logRiskRatio(10, 10, 4, 10)?.corrected).toBe(true);
    expect(logRiskRatio(1, 0, 1, 2)).toBeNull();
  });

  it("large effect needs ≥ 50% relative reduction AND CI lower bound of the reduction > δ", () => {
    const composite = [0.5, 0.4, 0.6, 0.5, 0.45];
    const reference = [0, 0.02, 0, 0.01, 0];
    const big = largeEffect(reference, composite, 0.01);
    expect(big.large).toBe(true);
    expect(big.relativeRiskReduction).toBeCloseTo(1 - 0.006 / 0.49, 12);
    // Same relative reduction, but the absolute reduction is tiny: not large at δ = 0.01.
    const small = largeEffect(
      reference.map((x) => x / 100),
      composite.map((x) => x / 100),
      0.01,
    );
    expect(small.relativeRiskReduction).toBeCloseTo(big.relativeRiskReduction ?? 0, 12);
    expect(small.large).toBe(false);
    // A large absolute gap with under 50% relative reduction is not large either.
    expect(largeEffect([0.3, 0.31, 0.29], [0.5, 0.52, 0.49], 0.01).large).toBe(false);
    expect(largeEffect([0, 0], [0, 0], 0.01).relativeRiskReduction).toBeNull();
  });

  it("the C1 registered null holds for equal arms and fails for a real advantage", () => {
    const same = registeredNullC1([0.001, -0.001, 0, 0.0005, -0.0005], 0.005);
    expect(same.tost.equivalent).toBe(true);
    expect(same.pNonInferior).toBeLessThan(0.025);
    expect(same.nullSupported).toBe(true);
    const advantage = registeredNullC1([-0.05, -0.06, -0.04, -0.055, -0.05], 0.005);
    expect(advantage.tost.equivalent).toBe(false);
    expect(advantage.nullSupported).toBe(false);
  });
});
