/**
 * bench/integrity/integrity — the two refusals that keep dev numbers from posing as results
 * (reference-bench §8):
 * - confirmatory mode needs BOTH freeze registrations (`docs/registrations/stage-{a,b}-v1/
 *   registration.json`) present, complete (no `REQUIRED-HUMAN` sentinel) and a `frozen`
 *   fixture split; anything less is refused, naming every missing piece. Even then this
 *   re-implementation refuses, because the Stage-B plan (arm order, trials per cell) is a human
 *   artifact that does not exist yet;
 * - holdout material is never generated inside the repository (or any directory containing it).
 * Imports: node.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve, isAbsolute } from "node:path";

export const REGISTRATION_STAGES = ["stage-a-v1", "stage-b-v1"] as const;

/** Why confirmatory mode is refused (never empty today; see the file header). */
export function confirmatoryRefusals(repoRoot: string, splitFreezeStatus: string): string[] {
  const reasons: string[] = [];
  for (const stage of REGISTRATION_STAGES) {
    const path = join(repoRoot, "docs", "registrations", stage, "registration.json");
    if (!existsSync(path)) reasons.push(`${stage}: no registration at ${relative(repoRoot, path)}`);
    else if (readFileSync(path, "utf8").includes("REQUIRED-HUMAN"))
      reasons.push(`${stage}: registration still holds REQUIRED-HUMAN fields`);
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
