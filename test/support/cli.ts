/**
 * test/support/cli — runs the `irrevon` CLI in a real child process and returns its exit code
 * and both streams: the built CLI (`node dist/src/cli/main.js …`, what a user runs) when it was
 * built after every source file changed last (`npm test` builds first), else the source under
 * tsx (`node --import tsx src/cli/main.ts …`), which costs each process about half a second
 * more to transpile.
 */
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dirname, "..", "..");
/** tsx's loader as an absolute URL, so the CLI can run from any working directory. */
export const TSX_IMPORT = import.meta.resolve("tsx");

/** Newest modification time of the files under `dir` (recursively). */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtCliIsCurrent(): boolean {
  let built: number;
  try {
    built = statSync(join(REPO_ROOT, "dist", "src", "cli", "main.js")).mtimeMs;
  } catch {
    return false;
  }
  return built >= Math.max(newestUnder(join(REPO_ROOT, "src")), newestUnder(join(REPO_ROOT, "sql")));
}

/** The node arguments that start the CLI (decided once per test file). */
export const CLI_ENTRY: readonly string[] = builtCliIsCurrent()
  ? [join(REPO_ROOT, "dist", "src", "cli", "main.js")]
  : ["--import", TSX_IMPORT, join(REPO_ROOT, "src", "cli", "main.ts")];

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI asynchronously (so several may run while the test awaits). */
export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ENTRY, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** Parses the single JSON document a `--json` command printed on stdout. */
export function jsonOf(run: CliRun): Record<string, unknown> {
  return JSON.parse(run.stdout) as Record<string, unknown>;
}
