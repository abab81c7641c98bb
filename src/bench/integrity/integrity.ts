/**
 * bench/integrity/integrity — the two refusals that keep dev numbers from posing as results
 * (reference-bench §8):
 * - confirmatory mode needs BOTH freeze registrations (`docs/registrations/stage-{a,b}-v1/
 *   registration.json`) verified (bench/integrity/freeze: complete, schema-valid, bound to the
 *   preregistration's bytes, the analysis code and, for Stage B, the dev manifest) and a
 *   `frozen` fixture split; anything less is refused, naming every missing piece. Even then this
 *   re-implementation refuses, because the Stage-B plan (arm order, trials per cell) is a human
 *   artifact that does not exist yet;
 * - holdout material is never generated inside the repository (or any directory containing it).
 * Imports: node.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve, isAbsolute, sep } from "node:path";
import { FREEZE_STAGES, verifyFreeze } from "./freeze.js";

/**
 * The repository the benchmark commands guard and read: the nearest folder at or above `start`
 * holding `.git` (a folder, or a file in a worktree); in a tree without git metadata, the
 * nearest holding this project's package.json (name "irrevon"); else `start` itself. A command
 * run from a subfolder must not take that subfolder for the repository: holdout material
 * written beside it would otherwise count as "outside".
 */
export function repositoryRoot(start: string): string {
  return (
    nearestAbove(start, (dir) => existsSync(join(dir, ".git"))) ??
    nearestAbove(start, isIrrevonPackage) ??
    resolve(start)
  );
}

function nearestAbove(start: string, holds: (dir: string) => boolean): string | null {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (holds(dir)) return dir;
    if (dirname(dir) === dir) return null;
  }
}

function isIrrevonPackage(dir: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown }).name ===
      "irrevon"
    );
  } catch {
    return false;
  }
}

/** Why confirmatory mode is refused (never empty today; see the file header). */
export function confirmatoryRefusals(repoRoot: string, splitFreezeStatus: string): string[] {
  const reasons: string[] = [];
  for (const stage of FREEZE_STAGES) {
    for (const reason of verifyFreeze(stage, repoRoot).reasons)
      reasons.push(`stage ${stage}: ${reason}`);
  }
  if (splitFreezeStatus !== "frozen")
    reasons.push(`fixture split is ${splitFreezeStatus}, not frozen`);
  reasons.push(
    "the Stage-B run plan (arm order, trials per cell) is not registered: confirmatory runs are not built",
  );
  return reasons;
}

function real(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  const rest = relative(p, resolve(path));
  return join(realpathSync(p), rest);
}

/** True when `target` is the repository or inside it (symlinks resolved). */
export function insideRepository(target: string, repoRoot: string): boolean {
  const rel = relative(real(repoRoot), real(target));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Refusal text for generating holdout material at `target`, or null when allowed. */
export function holdoutTargetRefusal(target: string, repoRoot: string): string | null {
  return insideRepository(target, repoRoot)
    ? `holdout material may never be generated inside the repository (${resolve(target)} is inside ${resolve(repoRoot)}); choose a directory outside it`
    : null;
}

const SCAN_SKIP = new Set(["node_modules", "dist", ".git", "test-artifacts", "coverage"]);

function jsonFiles(dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.isDirectory()) {
      if (!SCAN_SKIP.has(e.name) && !e.name.startsWith(".bench")) jsonFiles(join(dir, e.name), out);
    } else if (e.isFile() && e.name.endsWith(".json")) out.push(join(dir, e.name));
  }
}

/** What a repository scan found that must not be there (reference §8.3, `bench-integrity`). */
export interface IntegrityFinding {
  readonly path: string;
  readonly problem: "holdout-artifact-in-repo" | "frozen-without-stage-b";
}

/**
 * Scans `root` for benchmark documents that must never be committed: any `split: holdout`
 * document ("HOLDOUT ARTIFACT IN REPO"), and a `frozen` fixture manifest while the Stage-B
 * registration does not verify. `stageBVerified` is asked only when a frozen manifest is found.
 */
export function scanRepository(root: string, stageBVerified: () => boolean): IntegrityFinding[] {
  const files: string[] = [];
  jsonFiles(root, files);
  const findings: IntegrityFinding[] = [];
  for (const file of files.sort()) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) continue;
    const { split, freeze_status: freeze, format } = doc as Record<string, unknown>;
    const path = relative(root, file).split(sep).join("/");
    if (split === "holdout" || format === "irrevonbench/holdout-archive/v1")
      findings.push({ path, problem: "holdout-artifact-in-repo" });
    else if (format === "irrevonbench/manifest/v1" && freeze === "frozen" && !stageBVerified())
      findings.push({ path, problem: "frozen-without-stage-b" });
  }
  return findings;
}
