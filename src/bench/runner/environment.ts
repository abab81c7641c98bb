/**
 * bench/runner/environment — the environment record of a results directory
 * (`irrevonbench/environment/v2`). Its digest covers every field except the wall-clock
 * `captured_at` (the reference hashed the timestamp, so every run looked like drift), so two
 * runs on the same checkout and machine share one digest. Imports: node, bench/fixtures.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../core/canonical.js";
import { artifactDigest } from "../fixtures/artifact-bytes.js";
import { RUNNER_FORMATS } from "./documents.js";

export interface EnvironmentRecord {
  readonly format: typeof RUNNER_FORMATS.environment;
  readonly captured_at: string;
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpus: number;
  readonly packages: Readonly<Record<string, string>>;
  readonly lockfile_sha256: string | null;
  readonly git: { readonly commit: string | null; readonly dirty: boolean | null };
  readonly test_hooks_armed: boolean;
  readonly environment_digest: string;
}

const PACKAGES = ["ajv", "canonicalize", "@electric-sql/pglite", "pg"] as const;

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync("git", ["-C", root, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return null;
  }
}

function version(root: string, name: string): string | null {
  try {
    return (
      JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
  } catch {
    return null;
  }
}

/** Captures the environment of the repository at `root`. */
export function captureEnvironment(
  root: string,
  testHooksArmed: boolean,
  now = new Date(),
): EnvironmentRecord {
  const packages: Record<string, string> = {};
  const own =
    version(root, "..") ??
    (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  packages["irrevon"] = own;
  for (const name of PACKAGES) {
    const v = version(root, name);
    if (v !== null) packages[name] = v;
  }
  const lock = join(root, "package-lock.json");
  const status = git(root, ["status", "--porcelain", "--untracked-files=no"]);
  const body = {
    format: RUNNER_FORMATS.environment,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: cpus().length,
    packages,
    lockfile_sha256: existsSync(lock) ? sha256Hex(readFileSync(lock)) : null,
    git: {
      commit: git(root, ["rev-parse", "HEAD"]),
      dirty: status === null ? null : status.length > 0,
    },
    test_hooks_armed: testHooksArmed,
  };
  return { ...body, captured_at: now.toISOString(), environment_digest: artifactDigest(body) };
}
