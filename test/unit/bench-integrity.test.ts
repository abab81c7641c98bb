/**
 * IrrevonBench integrity (reference-bench §8; docs/bench.md, "Integrity"): freeze registrations
 * verify only when complete and bound to the preregistration's bytes, the analysis code and (Stage
 * B) the dev manifest; a draft never verifies; confirmatory mode is refused while anything is
 * missing; holdout material is generated only outside the repository, from a private seed, and
 * never committed (the repository scan, with a planted file it must catch).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { artifactText, rootHash } from "../../src/bench/fixtures/artifact-bytes.js";
import { DEV_MASTER_SEED } from "../../src/bench/fixtures/seeds.js";
import { validateFixtureDocument } from "../../src/bench/fixtures/validate.js";
import {
  BOUND_ANALYSIS_PATHS,
  DEV_MANIFEST_PATH,
  freezeDraft,
  PREREGISTRATION_PATH,
  preregistrationSha256,
  registrationPath,
  verifyFreeze,
  type FreezeStage,
} from "../../src/bench/integrity/freeze.js";
import { generateHoldout, holdoutRefusal } from "../../src/bench/integrity/holdout.js";
import { confirmatoryRefusals, scanRepository } from "../../src/bench/integrity/integrity.js";

const REPO = process.cwd();
const SEED_A = "a".repeat(64);
const SEED_B = "b".repeat(63) + "c";
const temps: string[] = [];

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "irrevon-integrity-"));
  temps.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A scratch "repository" holding exactly what a registration binds. */
function scratchRepo(): string {
  const root = temp();
  for (const path of [PREREGISTRATION_PATH, DEV_MANIFEST_PATH, ...BOUND_ANALYSIS_PATHS])
    cpSync(join(REPO, path), join(root, path), { recursive: true });
  return root;
}

/** The draft with every human field filled in, written where verification looks. */
function register(
  root: string,
  stage: FreezeStage,
  edit?: (doc: Record<string, unknown>) => void,
): void {
  const doc = freezeDraft(stage, root);
  doc["registered_by"] = "bench owner";
  doc["registered_at"] = "2026-12-03T10:00:00Z";
  doc["owner_attestation"] = "I registered this before any confirmatory data existed.";
  doc["external_stamp"] = { method: "signed-tag", reference: "bench-freeze-stage-a" };
  doc["parameters"] = {
    trials_per_cell: 4,
    confirmatory_seed_count: 5,
    equivalence_margin: 0.01,
    c1_equivalence_margin: 0.005,
    worst_cell_gate_pp: 10,
  };
  if (stage === "B") {
    const b = doc["stage_b"] as Record<string, unknown>;
    b["holdout_ciphertext_sha256"] = "c".repeat(64);
    b["holdout_plaintext_root_hash"] = "d".repeat(64);
    b["adapters"] = ["refdest-c2"];
  }
  edit?.(doc);
  const path = join(root, registrationPath(stage));
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, artifactText(doc));
}

describe("freeze registrations", () => {
  it("a missing registration does not verify and names the draft command", () => {
    const result = verifyFreeze("A", scratchRepo());
    expect(result.verified).toBe(false);
    expect(result.reasons.join("\n")).toContain(
      "--draft-out docs/registrations/stage-a-v1/registration.json",
    );
  });

  it("a draft never verifies: REQUIRED-HUMAN and the schema both refuse it", () => {
    const root = scratchRepo();
    const path = join(root, registrationPath("B"));
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, artifactText(freezeDraft("B", root)));
    const result = verifyFreeze("B", root);
    expect(result.verified).toBe(false);
    expect(result.reasons.some((r) => r.includes("REQUIRED-HUMAN"))).toBe(true);
    expect(result.reasons.some((r) => r.startsWith("schema: /parameters/trials_per_cell"))).toBe(
      true,
    );
  });

  it("a completed registration verifies, for both stages", () => {
    const root = scratchRepo();
    register(root, "A");
    register(root, "B");
    expect(verifyFreeze("A", root)).toMatchObject({ verified: true, reasons: [] });
    expect(verifyFreeze("B", root)).toMatchObject({ verified: true, reasons: [] });
  });

  it("an edited preregistration breaks it; an amendment with the new hash restores it", () => {
    const root = scratchRepo();
    register(root, "A");
    appendFileSync(join(root, PREREGISTRATION_PATH), "\nA late change.\n");
    const broken = verifyFreeze("A", root);
    expect(broken.verified).toBe(false);
    expect(broken.reasons[0]).toMatch(/^preregistration_sha256: /);
    register(root, "A", (doc) => {
      doc["preregistration_sha256"] = "e".repeat(64);
      doc["amendments"] = [
        {
          amended_at: "2026-12-03T11:00:00Z",
          new_preregistration_sha256: preregistrationSha256(root),
          observed_before_amendment: false,
          note: "clarified the C3 expectation",
        },
      ];
    });
    expect(verifyFreeze("A", root).verified).toBe(true);
  });

  it("drift in the bound analysis code breaks it", () => {
    const root = scratchRepo();
    register(root, "A");
    const stats = join(root, "src/bench/stats");
    const file = readdirSync(stats).find((f) => f.endsWith(".ts")) ?? "";
    appendFileSync(join(stats, file), "\n// tuned after looking\n");
    const result = verifyFreeze("A", root);
    expect(result.verified).toBe(false);
    expect(result.reasons).toHaveLength(1);
    expect(result.reasons[0]).toMatch(/^analysis_code_sha256: /);
  });

  it("Stage B binds the dev manifest's root hash and seed; the stage must match the file", () => {
    const root = scratchRepo();
    register(root, "B", (doc) => {
      (doc["stage_b"] as Record<string, unknown>)["fixture_manifest_root_hash"] = "f".repeat(64);
    });
    expect(verifyFreeze("B", root).reasons).toEqual([
      expect.stringMatching(/^stage_b\.fixture_manifest_root_hash: /),
    ]);
    register(root, "A", (doc) => {
      doc["stage"] = "B";
    });
    const wrong = verifyFreeze("A", root);
    expect(wrong.verified).toBe(false);
    expect(wrong.reasons.some((r) => r.startsWith("stage: "))).toBe(true);
  });

  it("parameters below their floors are refused by the schema, naming the field", () => {
    const root = scratchRepo();
    register(root, "A", (doc) => {
      (doc["parameters"] as Record<string, unknown>)["confirmatory_seed_count"] = 4;
      (doc["parameters"] as Record<string, unknown>)["equivalence_margin"] = 0;
    });
    const reasons = verifyFreeze("A", root).reasons;
    expect(reasons.some((r) => r.startsWith("schema: /parameters/confirmatory_seed_count"))).toBe(
      true,
    );
    expect(reasons.some((r) => r.startsWith("schema: /parameters/equivalence_margin"))).toBe(true);
  });

  it("confirmatory mode is refused in this repository, naming both stages and the split", () => {
    const reasons = confirmatoryRefusals(REPO, "unfrozen-dev");
    expect(reasons.some((r) => r.startsWith("stage A: "))).toBe(true);
    expect(reasons.some((r) => r.startsWith("stage B: "))).toBe(true);
    expect(reasons).toContain("fixture split is unfrozen-dev, not frozen");
    // Even with both stages verified and a frozen split, the Stage-B plan refuses.
    const root = scratchRepo();
    register(root, "A");
    register(root, "B");
    expect(confirmatoryRefusals(root, "frozen")).toEqual([
      expect.stringMatching(/Stage-B run plan/),
    ]);
  });
});

describe("holdout", () => {
  it("is refused inside the repository (integrity), from the public seed, into a non-empty directory", () => {
    expect(holdoutRefusal(join(REPO, "bench", "holdout"), REPO, SEED_A)).toMatchObject({
      field: "--out",
      kind: "integrity",
    });
    expect(holdoutRefusal(join(temp(), "h"), REPO, DEV_MASTER_SEED)).toMatchObject({
      field: "--master-seed",
      kind: "usage",
    });
    expect(holdoutRefusal(join(temp(), "h"), REPO, "not-hex")).toMatchObject({
      field: "--master-seed",
      kind: "usage",
    });
    const full = temp();
    writeFileSync(join(full, "x"), "x");
    expect(holdoutRefusal(full, REPO, SEED_A)).toMatchObject({ field: "--out", kind: "usage" });
    expect(() => generateHoldout(join(REPO, "bench", "holdout"), REPO, SEED_A)).toThrow(
      /inside the repository/,
    );
    expect(existsSync(join(REPO, "bench", "holdout"))).toBe(false);
  });

  it("generates schema-valid holdout documents and an archive manifest whose root checks out", () => {
    const dir = join(temp(), "holdout");
    const commitment = generateHoldout(dir, REPO, SEED_A);
    const archive = JSON.parse(readFileSync(join(dir, "archive-manifest.json"), "utf8")) as {
      artifacts: { path: string; sha256: string }[];
      root_hash: string;
      master_seed: string;
    };
    expect(archive.master_seed).toBe(SEED_A);
    expect(archive.root_hash).toBe(commitment.plaintext_root_hash);
    expect(rootHash(archive.artifacts)).toBe(archive.root_hash);
    expect(commitment).toMatchObject({ ciphertext_sha256: null, sealed_at: null });
    expect(archive.artifacts.length).toBe(commitment.artifact_count);
    for (const entry of archive.artifacts) {
      const doc = JSON.parse(readFileSync(join(dir, entry.path), "utf8")) as Record<
        string,
        unknown
      >;
      expect(validateFixtureDocument(doc)).toEqual([]);
      expect(doc["split"]).toBe("holdout");
    }
    // Deterministic in the seed, and a different seed gives different material.
    expect(generateHoldout(join(temp(), "again"), REPO, SEED_A).plaintext_root_hash).toBe(
      commitment.plaintext_root_hash,
    );
    expect(generateHoldout(join(temp(), "other"), REPO, SEED_B).plaintext_root_hash).not.toBe(
      commitment.plaintext_root_hash,
    );
  });
});

describe("repository scan", () => {
  it("this repository holds no holdout material and no frozen manifest", () => {
    expect(scanRepository(REPO, () => verifyFreeze("B", REPO).verified)).toEqual([]);
  });

  it("catches a planted holdout file and a frozen manifest without a Stage-B registration", () => {
    const root = temp();
    generateHoldout(join(root, "bench", "planted"), REPO, SEED_A);
    const manifest = JSON.parse(readFileSync(join(REPO, DEV_MANIFEST_PATH), "utf8")) as Record<
      string,
      unknown
    >;
    mkdirSync(join(root, "bench", "frozen"), { recursive: true });
    writeFileSync(
      join(root, "bench", "frozen", "manifest.json"),
      JSON.stringify({ ...manifest, split: "frozen", freeze_status: "frozen" }),
    );
    const findings = scanRepository(root, () => verifyFreeze("B", root).verified);
    expect(findings.filter((f) => f.problem === "holdout-artifact-in-repo").length).toBeGreaterThan(
      30,
    );
    expect(findings).toContainEqual({
      path: "bench/planted/archive-manifest.json",
      problem: "holdout-artifact-in-repo",
    });
    expect(findings).toContainEqual({
      path: "bench/frozen/manifest.json",
      problem: "frozen-without-stage-b",
    });
  });
});
