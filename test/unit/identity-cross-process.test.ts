/**
 * Cross-process determinism: the same tuples give the same ids in a separate Node process
 * with a different locale and time zone (nothing in the procedure may depend on either).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deriveIdentity } from "../../src/core/identity.js";
import { NUM_RUNS, identityTuple } from "./helpers/contracts.js";

const root = join(import.meta.dirname, "..", "..");
const child = join(import.meta.dirname, "helpers", "identity-child.ts");

function idsInChild(tuples: unknown[], env: Record<string, string>): string[] {
  const result = spawnSync(process.execPath, ["--import", "tsx", child], {
    cwd: root,
    input: JSON.stringify(tuples),
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as string[];
}

describe("identity across processes", () => {
  it("a child process derives the same ids for a batch of generated tuples", () => {
    const tuples = fc.sample(identityTuple, { numRuns: NUM_RUNS, seed: 20_260_115 });
    const here = tuples.map((t) => deriveIdentity(t).intentId);
    expect(new Set(here).size).toBeGreaterThan(1);
    expect(
      idsInChild(tuples, { LC_ALL: "tr_TR.UTF-8", LANG: "tr_TR.UTF-8", TZ: "Pacific/Kiritimati" }),
    ).toEqual(here);
  });
});
