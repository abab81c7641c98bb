/**
 * Crash suite on postgres (a fresh Postgres database per test, read by the test at any time): for every crash seam the engine hits, engine child processes
 * talk to the reference destination over HTTP, one is SIGKILLed at the seam, a new one (another
 * worker id; the dead one's short lease expires) recovers. Afterwards: no duplicate, no lost
 * legitimate effect, every destination effect maps to a record, ≤1 write request per operation
 * id, nothing open, auditor and history checker clean; a kill before persistence leaves no
 * record and no effect. Control: a naive retry-on-restart client after the same crash is caught.
 * Scenarios: test/support/history/crash-scenarios.ts.
 */
import { describe, expect, it } from "vitest";
import { CRASH_SEAMS } from "../../src/engine/crash-points.js";
import {
  defineCrashSuite,
  SCENARIOS,
  seamsHitByEngine,
} from "../support/history/crash-scenarios.js";

describe("crash seams", () => {
  it("every named seam is hit by the engine and has a crash scenario", () => {
    const hit = seamsHitByEngine();
    const covered = new Set(SCENARIOS.map((s) => s.seam));
    expect(hit.filter((s) => !covered.has(s))).toEqual([]);
    // Every named seam is hit somewhere: none is dead.
    expect(CRASH_SEAMS.filter((s) => !hit.includes(s))).toEqual([]);
  });
});

defineCrashSuite("postgres");
