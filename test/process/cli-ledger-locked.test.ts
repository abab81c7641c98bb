/**
 * The CLI's `ledger_locked` answer says what docs/errors.md says (issue 14, item 7): while
 * another process owns the embedded data directory, `irrevon findings list --json` and
 * `irrevon deny list --json` print the error envelope whose `retryable` flag matches the
 * table's "retryable" column (the directory is free again once its owner stops).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockDataDir, type DataDirLock } from "../../src/db/data-dir-lock.js";
import { jsonOf, REPO_ROOT, runCli } from "../support/cli.js";

/** The "retryable" cell of `code`'s row in docs/errors.md's table. */
function documentedRetryable(code: string): string | undefined {
  const text = readFileSync(join(REPO_ROOT, "docs", "errors.md"), "utf8");
  const row = text.split("\n").find((l) => l.startsWith(`| \`${code}\``));
  return row?.split("|")[2]?.trim();
}

describe("CLI: ledger_locked [pglite data dir]", () => {
  let dir: string;
  let held: DataDirLock;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-cli-locked-"));
    held = lockDataDir(join(dir, "ledger"));
  });
  afterEach(() => {
    held.release();
    rmSync(dir, { recursive: true, force: true });
  });

  it("--json prints ledger_locked with the retryable flag docs/errors.md documents", async () => {
    expect(documentedRetryable("ledger_locked")).toBe("yes");
    const run = await runCli(["findings", "list", "--json", "--data-dir", join(dir, "ledger")], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({
      error: { code: "ledger_locked", retryable: true, details: { pid: process.pid } },
    });
  });
});
