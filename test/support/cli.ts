/**
 * test/support/cli — runs the `irrevon` CLI from source in a real child process
 * (`node --import tsx src/cli/main.ts …`) and returns its exit code and both streams.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dirname, "..", "..");
/** tsx's loader as an absolute URL, so the CLI can run from any working directory. */
export const TSX_IMPORT = import.meta.resolve("tsx");

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI asynchronously (so several may run while the test awaits). */
export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX_IMPORT, join(REPO_ROOT, "src/cli/main.ts"), ...args], {
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
