/**
 * The README's runnable example runs from source the way the README says
 * (`npm run example -- quickstart`, "irrevon" resolved to this checkout) and tells the story it
 * claims. The same example against the packed tarball: test/process/package-tarball.test.ts.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";
import { QUICKSTART_LINES } from "../support/examples.js";

it("examples/quickstart: one destination effect; the re-worded retry collapses onto it, changed fields named", () => {
  const run = spawnSync(
    process.execPath,
    [join(REPO_ROOT, "scripts/run-example.mjs"), "quickstart"],
    {
      encoding: "utf8",
      cwd: REPO_ROOT,
    },
  );
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout.trim().split("\n")).toEqual(QUICKSTART_LINES);
}, 60_000);

it("run-example names the examples on --help and refuses an unknown one", () => {
  const help = spawnSync(process.execPath, [join(REPO_ROOT, "scripts/run-example.mjs"), "--help"], {
    encoding: "utf8",
  });
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/examples: .*quickstart/);
  const bad = spawnSync(process.execPath, [join(REPO_ROOT, "scripts/run-example.mjs"), "nope"], {
    encoding: "utf8",
  });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/unknown example "nope"; expected one of: .*quickstart/);
});
