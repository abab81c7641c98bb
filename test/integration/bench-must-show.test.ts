/**
 * Issue 12's must-show rows, read from the RUNNER's scored output (each slot's result.json:
 * metric numerators, denominators and marks), not from the arm strength locks: the runner
 * (`irrevon bench run`, REAL_BACKEND) over replicate 0 of every extension cell and of the dev
 * split's C2 and C1 response-lost cells, with the arms the rows name and R on Postgres.
 *
 * - every C2 cell: R has 0 duplicates, 0 lost legitimate effects, 0 false suppressions;
 * - dev C2 response-lost: B5 duplicates;
 * - read-lag and agent re-plan: B6 and the composite duplicate, R does not;
 * - new-intent: B1 (arg-hash dedup) suppresses the genuinely new order: a MISSING effect per
 *   faulted trial, no duplicate; its effects are attributed by client reference;
 * - dev C1 response-lost: R has no advantage over the native-idempotency arms (B4, B5);
 * - C3 real effect: nobody can prove absence (lost/orphan rates are fixture-truth-only for
 *   every arm); B6 and the composite re-send, R escalates every faulted trial instead.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REAL_BACKEND } from "../../src/bench/runner/real-backend.js";
import {
  collectResults,
  runMatrix,
  type MatrixSummary,
} from "../../src/bench/runner/run-matrix.js";
import type { ResultDocument } from "../../src/bench/runner/run-slot.js";
import { TEST_PG_URL } from "../support/bench-units.js";

const R = "R@postgres";
const COMPOSITE = "B5+B3+B6";
const EXT_ARMS = ["B1", "B5", "B6", COMPOSITE, R];
const C2 = (fault: string): string => `C2/refdest/${fault}/IRREVERSIBLE`;
const C2_EXT = [C2("read-lag"), C2("agent-replan"), C2("new-intent")];
const C3_EXT = "C3/refdest/c3-real-effect/IRREVERSIBLE";
const DEV_LOST = C2("response-lost");
const DEV_C1 = "C1/refdest/response-lost/IRREVERSIBLE";
/** Trials 1 and 3 of each 4-trial workload are faulted. */
const FAULTED = 2;

const results = new Map<string, ResultDocument>();
const runDirs = new Map<string, string>();
const summaries: MatrixSummary[] = [];

function result(cell: string, arm: string): ResultDocument {
  const r = results.get(`${cell}|${arm}`);
  if (r === undefined) throw new Error(`no result for ${arm} on ${cell}`);
  return r;
}
const count = (cell: string, arm: string, metric: string): number | null =>
  (result(cell, arm).metrics as unknown as Record<string, { numerator: number | null }>)[metric]
    ?.numerator ?? null;
const mark = (cell: string, arm: string, metric: string): string | null =>
  (result(cell, arm).metrics as unknown as Record<string, { mark: string | null }>)[metric]?.mark ??
  null;

async function run(fixturesDir: string, cells: string[], arms: string[]): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), "irrevon-bench-must-show-"));
  summaries.push(
    await runMatrix({
      fixturesDir,
      outDir,
      arms,
      cells,
      replicates: [0],
      backend: REAL_BACKEND,
      postgresUrl: TEST_PG_URL,
      root: process.cwd(),
      env: {},
    }),
  );
  for (const r of collectResults(outDir)) {
    results.set(`${r.cell_id}|${r.arm}`, r);
    runDirs.set(`${r.cell_id}|${r.arm}`, join(outDir, "runs", r.run_id));
  }
}

describe("bench must-show rows, from the runner's scored output", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    await run("bench/fixtures/ext", [...C2_EXT, C3_EXT], EXT_ARMS);
    await run("bench/fixtures/dev", [DEV_LOST], ["B5", R]);
    await run("bench/fixtures/dev", [DEV_C1], ["B4", "B5", R]);
  }, 180_000);
  afterAll(() => REAL_BACKEND.finish?.());

  it("every slot ran once and is VALID, its history consistent with its metrics", () => {
    expect(
      summaries.map((s) => [s.slots, s.runs_valid, s.runs_invalid, s.unresolved_slots.length]),
    ).toEqual([
      [20, 20, 0, 0],
      [2, 2, 0, 0],
      [3, 3, 0, 0],
    ]);
    for (const r of results.values())
      expect(r.history?.["cross_check"], r.run_id).toBe("CONSISTENT");
  });

  it("on every C2 cell R has 0 duplicates, 0 lost legitimate effects and 0 false suppressions", () => {
    for (const cell of [...C2_EXT, DEV_LOST]) {
      expect(count(cell, R, "duplicate_effect_rate"), cell).toBe(0);
      expect(count(cell, R, "lost_legitimate_effect_rate"), cell).toBe(0);
      expect(count(cell, R, "false_suppression_rate"), cell).toBe(0);
      expect(result(cell, R).oracle_readback["per_intent_effect_counts"], cell).toEqual({
        "0": 1,
        "1": 1,
        "2": 1,
        "3": 1,
      });
    }
  });

  it("B5 duplicates on C2 response-lost", () => {
    expect(count(DEV_LOST, "B5", "duplicate_effect_rate")).toBe(FAULTED);
  });

  it("on the read-lag and re-plan cells B6 and the composite duplicate while R does not", () => {
    for (const cell of [C2("read-lag"), C2("agent-replan")]) {
      for (const arm of ["B6", COMPOSITE])
        expect(count(cell, arm, "duplicate_effect_rate"), `${arm} ${cell}`).toBe(FAULTED);
      expect(count(cell, R, "duplicate_effect_rate"), cell).toBe(0);
    }
  });

  it("on the new-intent cell the over-deduplicating arm (B1) shows missing effects; arms that send every order do not", () => {
    const cell = C2("new-intent");
    expect(count(cell, "B1", "lost_legitimate_effect_rate")).toBe(FAULTED);
    expect(count(cell, "B1", "duplicate_effect_rate")).toBe(0);
    expect(result(cell, "B1").oracle_readback["per_intent_effect_counts"]).toEqual({
      "0": 1,
      "1": 0,
      "2": 1,
      "3": 0,
    });
    for (const arm of ["B5", "B6", COMPOSITE, R]) {
      expect(count(cell, arm, "lost_legitimate_effect_rate"), arm).toBe(0);
      expect(count(cell, arm, "duplicate_effect_rate"), arm).toBe(0);
      expect(count(cell, arm, "orphaned_effect_rate"), arm).toBe(0);
    }
  });

  it("on C1 R shows no advantage over the native-idempotency arms", () => {
    for (const arm of ["B4", "B5", R]) {
      expect(count(DEV_C1, arm, "duplicate_effect_rate"), arm).toBe(0);
      expect(count(DEV_C1, arm, "lost_legitimate_effect_rate"), arm).toBe(0);
    }
  });

  it("on C3 no arm can prove absence: the conventional arms re-send, R escalates instead of guessing", () => {
    for (const arm of EXT_ARMS) {
      expect(mark(C3_EXT, arm, "lost_legitimate_effect_rate"), arm).toBe("fixture-truth-only");
      expect(mark(C3_EXT, arm, "orphaned_effect_rate"), arm).toBe("fixture-truth-only");
    }
    for (const arm of ["B5", "B6", COMPOSITE]) {
      expect(count(C3_EXT, arm, "duplicate_effect_rate"), arm).toBe(FAULTED);
      expect(count(C3_EXT, arm, "human_review_rate"), arm).toBe(0);
    }
    expect(count(C3_EXT, R, "duplicate_effect_rate")).toBe(0);
    expect(count(C3_EXT, R, "human_review_rate")).toBe(FAULTED);
    expect(result(C3_EXT, R).trials.map((t) => t.arm_outcome)).toEqual([
      "committed",
      "escalated",
      "committed",
      "escalated",
    ]);
  });

  it("the runner's read-back attributed the new-intent orders by client reference, none ambiguous", () => {
    const cell = C2("new-intent");
    for (const [arm, effects] of [
      ["B1", 2],
      ["B5", 4],
      [R, 4],
    ] as const) {
      expect(result(cell, arm).oracle_readback["ambiguous_attributions"], arm).toBe(0);
      const history = JSON.parse(
        readFileSync(join(runDirs.get(`${cell}|${arm}`) as string, "history.json"), "utf8"),
      ) as {
        events: { kind: string; attributed_by?: string }[];
      };
      const created = history.events.filter((e) => e.kind === "destination:effect-created");
      expect(
        created.map((e) => e.attributed_by),
        arm,
      ).toEqual(Array<string>(effects).fill("client-ref"));
    }
  });
});
