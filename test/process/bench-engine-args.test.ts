/**
 * `npm run bench:engine`'s arguments (scripts/bench-engine.ts) as a real process: --help lists
 * the options and exits 0; a bad option or value is a usage error (exit 2) before anything runs
 * — one line on stderr, or the CLI's error document on stdout with --json — and an --out that
 * cannot take the report is refused up front instead of after the measuring. Nothing here runs
 * the benchmark itself.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, TSX_IMPORT, type CliRun } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "irrevon-bench-args-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bench(args: readonly string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", TSX_IMPORT, join(REPO_ROOT, "scripts/bench-engine.ts"), ...args],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    // A run that got past its arguments would start measuring: never wait for that.
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("npm run bench:engine arguments", () => {
  it("--help lists every option and exits 0", async () => {
    const run = await bench(["--help"]);
    expect(run.code).toBe(0);
    for (const flag of [
      "--quick",
      "--out",
      "--pg",
      "--no-postgres",
      "--recovery",
      "--startup-only",
      "--json",
    ])
      expect(run.stdout).toContain(flag);
  });

  it("an unknown option, a bad value or a contradiction is a usage error naming it (exit 2)", async () => {
    const [unknown, badCount, both] = await Promise.all([
      bench(["--bogus"]),
      bench(["--recovery", "abc"]),
      bench(["--pg", "postgres://postgres@127.0.0.1:5432/postgres", "--no-postgres"]),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^bench:engine: usage: unknown option '--bogus'/);
    expect(badCount.code).toBe(2);
    expect(badCount.stderr).toContain("--recovery");
    expect(badCount.stderr).toContain("0 to 99999");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("cannot be used with option '--no-postgres'");
    for (const run of [unknown, badCount, both]) expect(run.stdout).toBe("");
  });

  it("with --json a usage error is the CLI's error document on stdout", async () => {
    const run = await bench(["--json", "--recovery", "123456"]);
    expect(run.code).toBe(2);
    const doc = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(doc.error.code).toBe("usage");
    expect(doc.error.message).toContain("--recovery");
  });

  it("an --out that cannot take the report is refused before anything runs", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const run = await bench(["--out", join(file, "report"), "--no-postgres"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--out");
    expect(run.stderr).not.toContain("bench:engine: backend");
    expect(existsSync(join(file, "report"))).toBe(false);
  });
});
