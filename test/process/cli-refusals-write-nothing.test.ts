/**
 * A refused command writes nothing, and says why in one line naming the flag (exit 2), or says
 * there is nothing to act on (exit 3) — as real CLI processes in throwaway folders:
 *   - `demo --dir` on a folder the demo did not make is refused, never emptied;
 *   - an option that takes a value never swallows the next option (`--artifact --json`);
 *   - output paths that cannot take the output (`--artifact`, `--health-file`, `init --dir`)
 *     are usage errors before anything runs;
 *   - `init` checks the ledger location before it writes irrevon.toml, and writes the
 *     `--data-dir` it was given into it;
 *   - operator commands never create a ledger to report bad input or "not found";
 *   - a command group without its subcommand names what is missing.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsonOf, runCli } from "../support/cli.js";

const root = mkdtempSync(join(tmpdir(), "irrevon-cli-refusals-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh empty folder under the test's root. */
function folder(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
}

const WORKER_CONFIG = `schema_version = "1"

[adapters.refdest-c2]
kind = "refdest"
tier = "C2"
url_env = "IRREVON_REFDEST_URL"
`;

/** No ledger, config or environment from the outside world leaks into a run. */
const ENV = { DATABASE_URL: "", IRREVON_DATA_DIR: "" };

describe("CLI: a refused command writes nothing", () => {
  it("demo --dir on a folder holding someone else's files is refused and the files stay", async () => {
    const dir = folder("victim");
    writeFileSync(join(dir, "important.txt"), "precious");
    const run = await runCli(["demo", "--dir", dir, "--leg", "b5", "--no-artifact", "--json"], {
      cwd: root,
      env: ENV,
    });
    expect(run.code).toBe(2);
    expect(jsonOf(run)).toMatchObject({
      error: { code: "usage", details: { flag: "--dir", foreign_entries: 1 } },
    });
    expect(readdirSync(dir)).toEqual(["important.txt"]);
    expect(readFileSync(join(dir, "important.txt"), "utf8")).toBe("precious");
  });

  it("an option's value is never the next option, and output paths are checked first", async () => {
    const cwd = folder("paths");
    writeFileSync(join(cwd, "afile"), "x");
    // The worker needs a configured adapter before it looks at its health file.
    const workerDir = folder("worker");
    writeFileSync(join(workerDir, "afile"), "x");
    writeFileSync(join(workerDir, "irrevon.toml"), WORKER_CONFIG);
    const [swallowed, artifact, health, initDir] = await Promise.all([
      runCli(["demo", "--leg", "b5", "--artifact", "--json"], { cwd, env: ENV }),
      runCli(["demo", "--leg", "b5", "--artifact", "afile/x.json", "--json"], { cwd, env: ENV }),
      runCli(["worker", "--health-file", "afile/h.json", "--max-cycles", "1", "--json"], {
        cwd: workerDir,
        env: { ...ENV, IRREVON_REFDEST_URL: "http://127.0.0.1:9" },
      }),
      runCli(["init", "--dir", "afile/sub", "--json"], { cwd, env: ENV }),
    ]);
    expect(swallowed.code).toBe(2);
    expect(jsonOf(swallowed)).toMatchObject({
      error: { code: "usage", details: { flag: "--artifact", value: "--json" } },
    });
    expect(artifact.code).toBe(2);
    expect(jsonOf(artifact)).toMatchObject({
      error: { code: "usage", details: { flag: "--artifact" } },
    });
    expect(health.code).toBe(2);
    expect(jsonOf(health)).toMatchObject({
      error: { code: "usage", details: { flag: "--health-file" } },
    });
    expect(initDir.code).toBe(2);
    expect(jsonOf(initDir)).toMatchObject({ error: { code: "usage", details: { flag: "--dir" } } });
    // Nothing was made: no file named --json, no demo folder, no ledger, no config.
    expect(readdirSync(cwd).sort()).toEqual(["afile"]);
    expect(readdirSync(workerDir).sort()).toEqual(["afile", "irrevon.toml"]);
  });

  it("init refuses a bad database URL before writing irrevon.toml, and writes the --data-dir it was given", async () => {
    const bad = folder("init-bad");
    const good = folder("init-good");
    const [refused, written] = await Promise.all([
      runCli(["init", "--database-url", "mysql://u@h/db", "--json"], { cwd: bad, env: ENV }),
      runCli(["init", "--data-dir", "mydata", "--no-migrate", "--json"], { cwd: good, env: ENV }),
    ]);
    expect(refused.code).toBe(2);
    expect(jsonOf(refused)).toMatchObject({
      error: { code: "usage", details: { flag: "--database-url" } },
    });
    expect(readdirSync(bad)).toEqual([]);
    expect(written.code).toBe(0);
    expect(readFileSync(join(good, "irrevon.toml"), "utf8")).toMatch(/^data_dir = "mydata"$/m);
  });

  it("operator commands do not create a ledger to refuse input or to find nothing", async () => {
    const cwd = folder("no-ledger");
    const [noColumn, badClass, emptyBranch, lift, resolve, emptyType, longScope, longReason] =
      await Promise.all([
        runCli(["deny", "add", "--reason", "x", "--json"], { cwd, env: ENV }),
        runCli(["deny", "add", "--effect-class", "BOGUS", "--reason", "x", "--json"], {
          cwd,
          env: ENV,
        }),
        runCli(["branch", "cancel", "", "--reason", "x", "--json"], { cwd, env: ENV }),
        runCli(["deny", "lift", "5", "--json"], { cwd, env: ENV }),
        runCli(["resolve", "accept", "99", "--note", "x", "--json"], { cwd, env: ENV }),
        // Entries no contract could match (the contract's limits) would block nothing.
        runCli(["deny", "add", "--effect-type", "", "--reason", "x", "--json"], { cwd, env: ENV }),
        runCli(["deny", "add", "--scope", "s".repeat(513), "--reason", "x", "--json"], {
          cwd,
          env: ENV,
        }),
        runCli(["branch", "cancel", "b", "--reason", "r".repeat(2_001), "--json"], {
          cwd,
          env: ENV,
        }),
      ]);
    for (const run of [noColumn, badClass, emptyBranch, emptyType, longScope, longReason]) {
      expect(run.code).toBe(2);
      expect(jsonOf(run)).toMatchObject({ error: { code: "usage" } });
    }
    expect(jsonOf(emptyType)).toMatchObject({
      error: { details: { field: "effect_type", min: 1, limit: 256, length: 0 } },
    });
    expect(jsonOf(longScope)).toMatchObject({
      error: { details: { field: "scope", limit: 512, length: 513 } },
    });
    expect(jsonOf(longReason)).toMatchObject({
      error: { details: { field: "reason", limit: 2_000, length: 2_001 } },
    });
    expect(jsonOf(badClass)).toMatchObject({
      error: { details: { field: "effect_class", value: "BOGUS" } },
    });
    expect((jsonOf(badClass)["error"] as { message: string }).message).toContain("IRREVERSIBLE");
    for (const run of [lift, resolve]) {
      expect(run.code).toBe(3);
      expect(jsonOf(run)).toMatchObject({ error: { code: "not_found" } });
    }
    expect(existsSync(join(cwd, ".irrevon"))).toBe(false);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("refdest --json reports a bad option as the error document on stdout", async () => {
    const cwd = folder("refdest");
    const run = await runCli(["refdest", "--tier", "C9", "--json"], { cwd, env: ENV });
    expect(run.code).toBe(2);
    expect(jsonOf(run)).toMatchObject({ schema_version: "1", error: { code: "usage" } });
    expect((jsonOf(run)["error"] as { message: string }).message).toContain("--tier");
  });

  it("a command group without its subcommand names what is missing (exit 2)", async () => {
    const cwd = folder("groups");
    const [plain, json, bare] = await Promise.all([
      runCli(["findings"], { cwd, env: ENV }),
      runCli(["deny", "--json"], { cwd, env: ENV }),
      runCli(["--json"], { cwd, env: ENV }),
    ]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain(
      "irrevon: usage: irrevon findings needs a subcommand (see irrevon findings --help)",
    );
    expect(plain.stderr).not.toContain("outputHelp");
    expect(json.code).toBe(2);
    expect(jsonOf(json)).toMatchObject({
      error: { code: "usage", message: "irrevon deny needs a subcommand" },
    });
    expect(bare.code).toBe(2);
    expect(jsonOf(bare)).toMatchObject({ error: { code: "usage", message: "missing command" } });
    // A usage error points at the help of the command that was invoked.
    const sub = await runCli(["deny", "add", "--scope", "s"], { cwd, env: ENV });
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("--reason");
    expect(sub.stderr).toContain("(see irrevon deny add --help)");
  });
});
