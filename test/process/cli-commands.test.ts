/**
 * CLI commands in real child processes: exit codes (0 ok, 2 usage/bad input, 3 declared
 * outcome, 4 integrity), --json shapes, one-line errors that name the problem.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { jsonOf, REPO_ROOT, runCli } from "../support/cli.js";

const V2 = "0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5";

function oneLineError(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
}

describe("irrevon init / migrate / doctor / inspect", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-cli-"));
  });

  it("init writes irrevon.toml and migrates; a second init without --force exits 2", async () => {
    const first = await runCli(["init", "--json"], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const doc = jsonOf(first);
    expect(doc).toMatchObject({ schema_version: "1", migrated: true });
    expect((doc["applied"] as string[]).length).toBeGreaterThan(5);
    expect(readFileSync(join(dir, "irrevon.toml"), "utf8")).toContain('schema_version = "1"');
    const again = await runCli(["init"], { cwd: dir });
    expect(again.code).toBe(2);
    expect(oneLineError(again.stderr)).toContain("--force");
  }, 60_000);

  it("migrate --json reports nothing to apply on a migrated ledger", async () => {
    const run = await runCli(["migrate", "--json"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonOf(run)).toMatchObject({ applied: [] });
  }, 60_000);

  it("doctor passes on a migrated ledger (exit 0) and fails on a missing one (exit 3)", async () => {
    const ok = await runCli(["doctor", "--json"], { cwd: dir, env: { IRREVON_REFDEST_URL: "http://127.0.0.1:9" } });
    expect(ok.code, ok.stdout).toBe(0);
    const checks = (jsonOf(ok)["checks"] as Array<{ check: string; status: string }>).map((c) => [c.check, c.status]);
    expect(checks).toEqual(
      expect.arrayContaining([
        ["adapters", "ok"],
        ["identity_selftest", "ok"],
        ["ledger_migrated", "ok"],
        ["role_privileges", "ok"],
        ["clock_skew", "ok"],
        ["capability_declarations", "ok"],
      ]),
    );
    // The config's adapter needs its destination URL: without one (or with a non-URL) the worker
    // could not run, and doctor says so, naming the variable, never its value.
    for (const url of ["", "not-a-url"]) {
      const noUrl = await runCli(["doctor", "--json"], { cwd: dir, env: { IRREVON_REFDEST_URL: url } });
      expect(noUrl.code).toBe(3);
      const found = jsonOf(noUrl)["checks"] as Array<{ check: string; status: string; detail: Record<string, unknown> }>;
      expect(found.find((c) => c.check === "adapters")).toMatchObject({
        status: "fail",
        detail: { code: "config_invalid", variable: "IRREVON_REFDEST_URL" },
      });
      if (url !== "") expect(noUrl.stdout).not.toContain(url);
    }
    const missing = await runCli(["doctor", "--json", "--data-dir", join(dir, "nowhere")], { cwd: dir });
    expect(missing.code).toBe(3);
    expect(jsonOf(missing)["ok"]).toBe(false);
  }, 60_000);

  it("inspect: malformed id exits 2, unknown id exits 3", async () => {
    const bad = await runCli(["inspect", "not-an-id"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(oneLineError(bad.stderr)).toContain("effect_id");
    const unknown = await runCli(["inspect", V2, "--json"], { cwd: dir });
    expect(unknown.code).toBe(3);
    expect((jsonOf(unknown) as { error: { code: string } }).error.code).toBe("not_found");
  }, 60_000);

  it("an unknown config key exits 2 naming the key", async () => {
    const cfgDir = mkdtempSync(join(tmpdir(), "irrevon-cfg-"));
    writeFileSync(join(cfgDir, "irrevon.toml"), 'schema_version = "1"\n[ledger]\ndatabse_url_env = "X"\n');
    const run = await runCli(["doctor"], { cwd: cfgDir });
    expect(run.code).toBe(2);
    expect(oneLineError(run.stderr)).toContain("ledger.databse_url_env");
  });

  it("unknown commands and options exit 2 with one line", async () => {
    const cmd = await runCli(["frobnicate"]);
    expect(cmd.code).toBe(2);
    oneLineError(cmd.stderr);
    const opt = await runCli(["migrate", "--frob"]);
    expect(opt.code).toBe(2);
    expect(oneLineError(opt.stderr)).toContain("--frob");
  });

  it("every command answers --help with exit 0", async () => {
    for (const command of ["init", "migrate", "demo", "inspect", "doctor", "identity", "refdest"]) {
      const run = await runCli([command, "--help"]);
      expect(run.code, command).toBe(0);
      expect(run.stdout + run.stderr).toContain("--json");
    }
  }, 60_000);

  it("editing an applied migration makes the next migrate fail (exit 4) naming the file", async () => {
    const work = mkdtempSync(join(tmpdir(), "irrevon-tamper-"));
    cpSync(join(REPO_ROOT, "sql", "migrations"), join(work, "migrations"), { recursive: true });
    const ledger = join(work, "ledger");
    const first = await runCli(["migrate", "--data-dir", ledger, "--migrations-dir", join(work, "migrations")]);
    expect(first.code, first.stderr).toBe(0);
    appendFileSync(join(work, "migrations", "0005_findings.sql"), "\n-- an innocent-looking edit\n");
    const second = await runCli(["migrate", "--json", "--data-dir", ledger, "--migrations-dir", join(work, "migrations")]);
    expect(second.code).toBe(4);
    const error = (jsonOf(second) as { error: { code: string; details: { filename: string } } }).error;
    expect(error.code).toBe("migration_tampered");
    expect(error.details.filename).toBe("0005_findings.sql");
  }, 60_000);
});
