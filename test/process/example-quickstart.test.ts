/** The README's runnable example runs and tells the story it claims. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT, TSX_IMPORT } from "../support/cli.js";

it("examples/quickstart.ts: one destination effect, the re-worded retry denied by dedup", () => {
  const run = spawnSync(process.execPath, ["--import", TSX_IMPORT, join(REPO_ROOT, "examples/quickstart.ts")], { encoding: "utf8", cwd: REPO_ROOT });
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toEqual([
    expect.stringMatching(/^registered 0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5 PERSISTED$/),
    "dispatch dispatched AMBIGUOUS",
    "reconcile committed CONFIRMED_UNIQUE",
    expect.stringMatching(/^re-registered replayed variant sha256:[0-9a-f]{64}$/),
    "dispatch again denied dedup/duplicate_intent",
    "destination effects 1",
  ]);
}, 60_000);
