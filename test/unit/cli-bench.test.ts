/**
 * `irrevon bench`: `fixtures --verify` on the committed split, the mismatch exit code naming
 * the first differing file, `analyze` refusing a missing margin with exit 2 (once through a
 * real child process, the rest in-process through `runCli` to keep the suite fast on a
 * shared machine), and an analysis printed as JSON.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setOutputStreams } from "../../src/cli/output.js";
import { runCli } from "../../src/cli/run.js";
import { C2_CELLS, matrix, results } from "./helpers/bench-results.js";
import { CLI_ENTRY } from "../support/cli.js";

const root = join(import.meta.dirname, "..", "..");
const REFERENCE_ROOT = "c214af121c88bf6685d9c5fede168a9d00cb4b140419486920f77e0ab393ed06";
const work = mkdtempSync(join(tmpdir(), "irrevon-cli-bench-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the CLI in this process, capturing its output. */
async function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const previous = setOutputStreams({
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  try {
    const status = await runCli(args);
    return { status, stdout, stderr };
  } finally {
    setOutputStreams(previous);
  }
}

function childCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...CLI_ENTRY, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("irrevon bench fixtures", () => {
  it("--verify on the committed split: exit 0 and the reference root hash", async () => {
    const committed = join(root, "bench", "fixtures", "dev");
    const run = await cli(["bench", "fixtures", "--verify", "--out", committed, "--json"]);
    expect(run.status).toBe(0);
    const doc = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      verified: true,
      root_hash: REFERENCE_ROOT,
      artifact_count: 38,
      differences: [],
    });
  });

  it("writes a split to --out, and --verify names the first differing file with exit 3", async () => {
    const dir = join(work, "dev");
    expect((await cli(["bench", "fixtures", "--out", dir])).status).toBe(0);
    expect((await cli(["bench", "fixtures", "--verify", "--out", dir])).status).toBe(0);
    writeFileSync(join(dir, "variants", "vs_dev.c2.semanticresynthesis.irre.r1.json"), "{}\n");
    const run = await cli(["bench", "fixtures", "--verify", "--out", dir]);
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(
      "first differing file: variants/vs_dev.c2.semanticresynthesis.irre.r1.json",
    );
  });
});

describe("irrevon bench analyze", () => {
  const file = join(work, "results.json");
  writeFileSync(
    file,
    JSON.stringify(
      results(
        matrix(["R", "B5+B3+B6", "B5"], C2_CELLS, 5, (arm, _c, r) => (arm === "R" ? 0 : 10 + r)),
      ),
    ),
  );

  it.each([
    [["--c1-margin", "0.005"], "--margin"],
    [["--margin", "0.01"], "--c1-margin"],
  ])("refuses a missing margin with exit 2 naming it (%j)", async (flags, missing) => {
    const run = await cli(["bench", "analyze", "--results", file, ...flags, "--json"]);
    expect(run.status).toBe(2);
    const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("usage");
    expect(error.message).toContain(`'${missing} <rate>'`);
  });

  it("refuses a margin outside (0, 1) with exit 2", async () => {
    const run = await cli([
      "bench",
      "analyze",
      "--results",
      file,
      "--margin",
      "1",
      "--c1-margin",
      "0.005",
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--margin must be a rate in (0, 1)");
  });

  it("prints the analysis as JSON", async () => {
    const run = await cli([
      "bench",
      "analyze",
      "--results",
      file,
      "--margin",
      "0.01",
      "--c1-margin",
      "0.005",
      "--json",
    ]);
    expect(run.status).toBe(0);
    const { analysis } = JSON.parse(run.stdout) as {
      analysis: { confirmatory: boolean; metrics: { metric: string; holm_rejected: boolean }[] };
    };
    expect(analysis.confirmatory).toBe(false);
    expect(analysis.metrics.map((m) => [m.metric, m.holm_rejected])).toEqual([
      ["duplicate_effect_rate", true],
      ["orphaned_effect_rate", true],
      ["lost_legitimate_effect_rate", true],
    ]);
  });

  it("an empty results document is a declared outcome (exit 3)", async () => {
    const empty = join(work, "empty.json");
    writeFileSync(empty, JSON.stringify(results([])));
    expect(
      (
        await cli([
          "bench",
          "analyze",
          "--results",
          empty,
          "--margin",
          "0.01",
          "--c1-margin",
          "0.005",
        ])
      ).status,
    ).toBe(3);
  });

  it("--help works without the required margins", async () => {
    expect((await cli(["bench", "analyze", "--help"])).status).toBe(0);
  });

  it("the real executable exits 2 on a missing margin", () => {
    const missing = childCli(["bench", "analyze", "--results", file, "--c1-margin", "0.005"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("'--margin <rate>'");
  });
});

describe("irrevon bench freeze / holdout", () => {
  it("freeze --verify: exit 3 and every reason as JSON while nothing is registered", async () => {
    const out = await cli(["bench", "freeze", "--stage", "A", "--verify", "--json"]);
    expect(out.status).toBe(3);
    const doc = JSON.parse(out.stdout) as { verified: boolean; reasons: string[]; stage: string };
    expect(doc).toMatchObject({ stage: "A", verified: false });
    expect(doc.reasons[0]).toContain("no registration at docs/registrations/stage-a-v1/registration.json");
  });

  it("freeze --draft-out writes a draft that does not verify, and never overwrites", async () => {
    const draft = join(work, "draft", "registration.json");
    expect((await cli(["bench", "freeze", "--stage", "B", "--draft-out", draft])).status).toBe(0);
    expect(readFileSync(draft, "utf8")).toContain('"REQUIRED-HUMAN"');
    const again = await cli(["bench", "freeze", "--stage", "B", "--draft-out", draft, "--json"]);
    expect(again.status).toBe(2);
    expect(again.stdout).toContain("--draft-out");
  });

  it("freeze refuses a bad stage and a missing mode with exit 2, naming the flag", async () => {
    expect((await cli(["bench", "freeze", "--stage", "C", "--verify"])).status).toBe(2);
    const neither = await cli(["bench", "freeze", "--stage", "A", "--json"]);
    expect(neither.status).toBe(2);
    expect(neither.stdout).toContain("--draft-out");
  });

  it("holdout inside the repository: exit 4, nothing written; outside: the commitment", async () => {
    const inside = join(root, "bench", "holdout-cli-test");
    const refused = await cli(["bench", "holdout", "--out", inside, "--master-seed", "a".repeat(64), "--json"]);
    expect(refused.status).toBe(4);
    expect(existsSync(inside)).toBe(false);
    const outside = join(work, "holdout");
    const made = await cli(["bench", "holdout", "--out", outside, "--master-seed", "a".repeat(64), "--json"]);
    expect(made.status).toBe(0);
    const doc = JSON.parse(made.stdout) as { commitment: { plaintext_root_hash: string } };
    expect(doc.commitment.plaintext_root_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(existsSync(join(outside, "archive-manifest.json"))).toBe(true);
    expect((await cli(["bench", "holdout", "--out", join(work, "h2"), "--master-seed", "xyz"])).status).toBe(2);
    // From a subfolder of the repository, a folder beside it is still inside the repository.
    const beside = join(root, "docs", "holdout-cli-test");
    const fromSubfolder = spawnSync(process.execPath, [...CLI_ENTRY, "bench", "holdout", "--out", beside, "--master-seed", "a".repeat(64), "--json"], {
      cwd: join(root, "bench"),
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(fromSubfolder.status, fromSubfolder.stderr).toBe(4);
    expect(JSON.parse(fromSubfolder.stdout)).toMatchObject({ field: "--out" });
    expect(existsSync(beside)).toBe(false);
  });
});
