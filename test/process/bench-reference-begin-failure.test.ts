/**
 * Arm R starts its crash child ahead of need (a spare) when a crash unit begins. A unit whose
 * beginning then fails (here: R@postgres against a server that does not answer) must not leave
 * that child running: a live spare holds the run's process open after its report is written
 * (found by `npm run bench` hanging after "report: …" when a unit database could not be made).
 * The unit is driven the way the runner drives it (`driveUnit` → `driveTrials`), which ends a
 * unit whose begin failed (ArmDriver.endUnit). Checked on the real process table: no
 * reference-child of this process survives, and every trial is reported as the arm's failure.
 */
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { buildDevSplit } from "../../src/bench/fixtures/dev-split.js";
import { drive, unitOf } from "../support/bench-units.js";

function referenceChildren(): string[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], {
    encoding: "utf8",
  });
  return out.split("\n").filter((l) => l.includes("reference-child"));
}

it("a crash unit that cannot begin leaves no spare crash child running", async () => {
  const unit = unitOf(
    buildDevSplit(),
    "C2/refdest/crash-after-effect-before-response/IRREVERSIBLE",
  );
  // Nothing listens on port 1: the unit database cannot be made.
  const driven = await drive("R@postgres", unit, "postgres://postgres@127.0.0.1:1/postgres");
  expect(driven.outcomes.length).toBe(unit.workload.trials.length);
  expect(new Set(driven.outcomes)).toEqual(new Set(["arm-crashed"]));
  // The child is SIGKILLed and reaped before endUnit resolves; allow the table a moment.
  for (let i = 0; i < 20 && referenceChildren().length > 0; i += 1)
    await new Promise((r) => setTimeout(r, 100));
  expect(referenceChildren()).toEqual([]);
}, 60_000);
