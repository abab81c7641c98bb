/**
 * Arm R starts its crash child ahead of need (a spare) when a crash unit begins. A unit whose
 * beginning then fails (here: R@postgres against a server that does not answer) must not leave
 * that child running: a live spare holds the run's process open after its report is written
 * (found by `npm run bench` hanging after "report: …" when a unit database could not be made).
 * Checked on the real process table: no reference-child of this process survives the failure.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createArm } from "../../src/bench/arms/registry.js";

const workDir = mkdtempSync(join(tmpdir(), "irrevon-r-begin-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function referenceChildren(): string[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], {
    encoding: "utf8",
  });
  return out.split("\n").filter((l) => l.includes("reference-child"));
}

it("a crash unit that cannot begin leaves no spare crash child running", async () => {
  const arm = createArm("R@postgres");
  await expect(
    arm.beginUnit({
      unitSeed: 7,
      cell: {
        fault: "crash-after-effect-before-response",
        effect_class: "IRREVERSIBLE",
        tier: "C2",
        destination_kind: "refdest",
        stratum: "S-REF",
      },
      destination: { tier: "C2", baseUrl: "http://127.0.0.1:9" },
      workDir,
      // Nothing listens on port 1: the unit database cannot be made.
      postgresUrl: "postgres://postgres@127.0.0.1:1/postgres",
    }),
  ).rejects.toThrow();
  // The child is SIGKILLed and reaped before beginUnit rejects; allow the table a moment.
  for (let i = 0; i < 20 && referenceChildren().length > 0; i += 1)
    await new Promise((r) => setTimeout(r, 100));
  expect(referenceChildren()).toEqual([]);
}, 60_000);
