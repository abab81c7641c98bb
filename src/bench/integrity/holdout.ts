/**
 * bench/integrity/holdout — generating holdout material (reference-bench §8.2). The design:
 * seal the complete, blind-labelled artifacts; commit the ciphertext digest and the plaintext
 * root hash at Stage B; unseal = decrypt + verify; run once, last; offline — never in the
 * repository, an agent's context or CI. This module does the part code may do:
 *   - refuses a target inside the repository (symlinks resolved), a non-empty target, and the
 *     public dev seed (a holdout from a published seed is no holdout);
 *   - generates the dev generator's cells from the private master seed, every document marked
 *     `split: holdout`, each schema-validated BEFORE anything is written;
 *   - writes them and an in-archive manifest {artifacts, root_hash, master_seed};
 *   - returns the commitment a Stage-B registration records: the plaintext root hash now; the
 *     ciphertext digest and sealing time once a human has encrypted the archive (a human step,
 *     so they are null here and say so).
 * Tested only with synthetic seeds. Imports: node:fs, node:path, bench/fixtures, bench/integrity.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { artifactDigest, artifactText, CANARY, rootHash } from "../fixtures/artifact-bytes.js";
import { buildHoldoutArtifacts } from "../fixtures/dev-split.js";
import { DEV_MASTER_SEED } from "../fixtures/seeds.js";
import { validateFixtureDocument } from "../fixtures/validate.js";
import { holdoutTargetRefusal } from "./integrity.js";

export const HOLDOUT_ARCHIVE_FORMAT = "irrevonbench/holdout-archive/v1";
export const HOLDOUT_ARCHIVE_MANIFEST = "archive-manifest.json";
export const UNSEAL_CONDITION =
  "unseal once, after both freeze registrations verify and every dev-split decision is final; decrypt, verify the plaintext root hash, run once";

/**
 * Why holdout generation is refused, naming the flag and the fix: `integrity` for a target
 * inside the repository (exit 4), `usage` for a bad or public seed or a non-empty target.
 */
export interface HoldoutRefusal {
  readonly field: "--out" | "--master-seed";
  readonly kind: "integrity" | "usage";
  readonly message: string;
}

/** The refusal for these inputs, or null when generation may go ahead. */
export function holdoutRefusal(
  target: string,
  repoRoot: string,
  masterSeed: string,
): HoldoutRefusal | null {
  const inside = holdoutTargetRefusal(target, repoRoot);
  if (inside !== null) return { field: "--out", kind: "integrity", message: inside };
  if (!/^[0-9a-f]{64}$/.test(masterSeed))
    return {
      field: "--master-seed",
      kind: "usage",
      message:
        "--master-seed must be 64 lowercase hex digits (a private seed, e.g. from `openssl rand -hex 32`)",
    };
  if (masterSeed === DEV_MASTER_SEED)
    return {
      field: "--master-seed",
      kind: "usage",
      message:
        "--master-seed is the public dev seed: a holdout must come from a private seed nobody has seen",
    };
  let existing: string[] = [];
  try {
    existing = readdirSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (existing.length > 0)
    return {
      field: "--out",
      kind: "usage",
      message: `${resolve(target)} is not empty: choose a new directory`,
    };
  return null;
}

/** What a Stage-B registration commits to. */
export interface HoldoutCommitment {
  readonly plaintext_root_hash: string;
  /** Set by the human who encrypts the archive; null until then. */
  readonly ciphertext_sha256: null;
  readonly sealed_at: null;
  readonly unseal_condition: string;
  readonly artifact_count: number;
  readonly dir: string;
}

/**
 * Generates a holdout under `target` from a private master seed; throws when
 * {@link holdoutRefusal} refuses (callers check it first to report the refusal).
 */
export function generateHoldout(
  target: string,
  repoRoot: string,
  masterSeed: string,
): HoldoutCommitment {
  const refusal = holdoutRefusal(target, repoRoot, masterSeed);
  if (refusal !== null) throw new Error(`holdout refused (${refusal.field}): ${refusal.message}`);

  const artifacts = buildHoldoutArtifacts(masterSeed);
  const problems = artifacts.flatMap((a) =>
    validateFixtureDocument(a.document).map((p) => `${a.path}${p.pointer}: ${p.message}`),
  );
  if (problems.length > 0)
    throw new Error(`holdout generator produced schema-invalid documents: ${problems.join("; ")}`);
  const entries = artifacts.map((a) => ({
    path: a.path,
    artifact_format: a.format,
    sha256: artifactDigest(a.document),
  }));
  const root = rootHash(entries);
  const archiveManifest = {
    format: HOLDOUT_ARCHIVE_FORMAT,
    canary: CANARY,
    artifacts: entries,
    root_hash: root,
    master_seed: masterSeed,
  };
  for (const file of [
    ...artifacts.map((a) => ({ path: a.path, text: artifactText(a.document) })),
    { path: HOLDOUT_ARCHIVE_MANIFEST, text: artifactText(archiveManifest) },
  ]) {
    const abs = join(target, ...file.path.split("/"));
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, file.text, "utf8");
  }
  return {
    plaintext_root_hash: root,
    ciphertext_sha256: null,
    sealed_at: null,
    unseal_condition: UNSEAL_CONDITION,
    artifact_count: artifacts.length,
    dir: resolve(target),
  };
}
