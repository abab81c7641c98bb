/**
 * Strength locks (reference design §3.4): each baseline's documented failure mode, on the
 * dev split and on the extension split. If a baseline stops failing the way it is documented
 * to (or R's contrast disappears — test/process/bench-reference-locks.test.ts), the build
 * fails: a weakened or strengthened baseline changes what the benchmark means.
 */
import { describe, expect, it } from "vitest";
import { buildDevSplit } from "../../src/bench/fixtures/dev-split.js";
import { buildExtSplit } from "../../src/bench/fixtures/ext-split.js";
import { createArm } from "../../src/bench/arms/registry.js";
import { drive, unitOf } from "../support/bench-units.js";

const dev = buildDevSplit();
const ext = buildExtSplit();
const C2_LOST = "C2/refdest/response-lost/IRREVERSIBLE";
const C2_RESYNTH = "C2/refdest/semantic-resynthesis/IRREVERSIBLE";
const C2_STORM = "C2/refdest/retry-storm/IRREVERSIBLE";
const C3_LOST = "C3/refdest/response-lost/IRREVERSIBLE";

describe("bench strength locks: conventional ladder (dev split)", { timeout: 60_000 }, () => {
  it("B5 duplicates on C2 response-lost", async () => {
    const r = await drive("B5", unitOf(dev, C2_LOST));
    expect(r.counts).toEqual([1, 2, 1, 2]);
  });

  it("B0 and B3 duplicate under re-synthesis", async () => {
    for (const arm of ["B0", "B3"] as const) {
      const r = await drive(arm, unitOf(dev, C2_RESYNTH));
      expect(r.duplicates, arm).toBeGreaterThanOrEqual(1);
    }
  });

  it("B5 re-sends the ORIGINAL payload on re-synthesis: the journal's first payload wins", async () => {
    const r = await drive("B5", unitOf(dev, C2_RESYNTH));
    expect(r.counts).toEqual([1, 2, 1, 2]);
    const payloads = r.truth.effects.map((e) => Object.keys(e.payload as object).sort().join(","));
    expect(payloads.every((keys) => keys.includes("order_id") && !keys.includes("purchase_order"))).toBe(true);
  });

  it("B1 has no duplicate under response-lost (the arg-hash cache drops the retry) but duplicates under re-synthesis", async () => {
    const lost = await drive("B1", unitOf(dev, C2_LOST));
    expect(lost.duplicates).toBe(0);
    expect(lost.outcomes).toEqual(["committed", "unresolved-unknown", "committed", "unresolved-unknown"]);
    const resynth = await drive("B1", unitOf(dev, C2_RESYNTH));
    expect(resynth.duplicates).toBeGreaterThanOrEqual(1);
  });

  it("the composite B5+B3+B6 has no duplicate on C2 response-lost, re-synthesis and retry storm", async () => {
    for (const cell of [C2_LOST, C2_RESYNTH, C2_STORM]) {
      const r = await drive("B5+B3+B6", unitOf(dev, cell));
      expect(r.counts, cell).toEqual([1, 1, 1, 1]);
    }
  });

  it("B6 and the composite duplicate on C3 (nothing to query)", async () => {
    for (const arm of ["B6", "B5+B3+B6"] as const) {
      const r = await drive(arm, unitOf(dev, C3_LOST));
      expect(r.counts, arm).toEqual([1, 2, 1, 2]);
    }
  });

  it("B5 duplicates on crash-after-effect (journal recovery re-sends)", async () => {
    const r = await drive("B5", unitOf(dev, "C2/refdest/crash-after-effect-before-response/IRREVERSIBLE"));
    expect(r.counts).toEqual([1, 2, 1, 2]);
  });

  it("B7 refuses with its reason and sends nothing", async () => {
    expect(createArm("B7").spec.refused).toMatch(/budget parity/);
    const r = await drive("B7", unitOf(dev, C2_LOST));
    expect(r.outcomes).toEqual(["refused", "refused", "refused", "refused"]);
    expect(r.counts).toEqual([0, 0, 0, 0]);
  });
});

describe("bench strength locks: extension faults separate arms only where truth does", { timeout: 60_000 }, () => {
  it("read-lag: an immediate status check reads ABSENT, so B6 and the composite duplicate", async () => {
    for (const arm of ["B6", "B5+B3+B6"] as const) {
      const r = await drive(arm, unitOf(ext, "C2/refdest/read-lag/IRREVERSIBLE"));
      expect(r.counts, arm).toEqual([1, 2, 1, 2]);
    }
  });

  it("agent-replan: arms keyed on the workflow id duplicate", async () => {
    for (const arm of ["B3", "B5", "B6", "B5+B3+B6"] as const) {
      const r = await drive(arm, unitOf(ext, "C2/refdest/agent-replan/IRREVERSIBLE"));
      expect(r.counts, arm).toEqual([1, 2, 1, 2]);
    }
  });

  it("new-intent: B1's arg-hash cache suppresses a genuinely new order (a missing effect); B3 sends it", async () => {
    const unit = unitOf(ext, "C2/refdest/new-intent/IRREVERSIBLE");
    const b1 = await drive("B1", unit);
    expect(b1.counts).toEqual([1, 0, 1, 0]);
    expect(b1.outcomes).toEqual(["committed", "unresolved-unknown", "committed", "unresolved-unknown"]);
    const b3 = await drive("B3", unit);
    expect(b3.counts).toEqual([1, 1, 1, 1]);
  });

  it("c3-real-effect: a committed notify answered 500 is re-sent by B6 and the composite", async () => {
    for (const arm of ["B6", "B5+B3+B6"] as const) {
      const r = await drive(arm, unitOf(ext, "C3/refdest/c3-real-effect/IRREVERSIBLE"));
      expect(r.counts, arm).toEqual([1, 2, 1, 2]);
    }
  });
});
