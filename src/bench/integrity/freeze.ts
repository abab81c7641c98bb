/**
 * bench/integrity/freeze — freeze registrations (reference-bench §8.1): a human commits, before
 * any confirmatory data exists, to the preregistration's exact bytes, the analysis code that
 * will judge the data, and the parameters (trials, seeds, margins, the worst-cell gate).
 *
 * File: `docs/registrations/stage-{a,b}-v1/registration.json`, format
 * `irrevonbench/freeze-registration/v1` (closed JSON Schema, ajv 2020-12). Verification
 * collects EVERY reason it fails, each naming the field and the fix:
 *   - the file is missing, is not JSON, or breaks the schema, or names another stage;
 *   - `REQUIRED-HUMAN` appears anywhere (a draft can never verify);
 *   - the preregistration's bytes no longer hash to the last amendment's hash (or the original);
 *   - any bound analysis file drifted (`analysis_code_sha256`, the root over the files' digests);
 *   - Stage B only: the committed dev manifest's root hash or master seed differs.
 * A freeze proves consistency, not authorship (reference §11 item 10); the external stamp is the
 * human's evidence of time. Imports: node:fs, node:path, ajv, core/canonical,
 * bench/fixtures/{artifact-bytes}.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { sha256Hex } from "../../core/canonical.js";
import { artifactText, rootHash } from "../fixtures/artifact-bytes.js";
import { describeSchemaError } from "../fixtures/validate.js";

export const FREEZE_FORMAT = "irrevonbench/freeze-registration/v1";
export const REQUIRED_HUMAN = "REQUIRED-HUMAN";
export type FreezeStage = "A" | "B";
export const FREEZE_STAGES: readonly FreezeStage[] = ["A", "B"];

/** The preregistration whose bytes a registration binds. */
export const PREREGISTRATION_PATH = "docs/bench-preregistration.md";
/** The committed dev split whose manifest a Stage-B registration binds. */
export const DEV_MANIFEST_PATH = "bench/fixtures/dev/manifest.json";
/**
 * The code that turns runs into claims: analysis, statistics, metrics, both oracles, the
 * verdict and the seed derivation. Every `.ts` file under these paths is bound.
 */
export const BOUND_ANALYSIS_PATHS: readonly string[] = [
  "src/bench/analysis",
  "src/bench/stats",
  "src/bench/metrics",
  "src/bench/oracles",
  "src/bench/verdict",
  "src/bench/fixtures/seeds.ts",
];

/** Where a stage's registration lives, relative to the repository root. */
export function registrationPath(stage: FreezeStage): string {
  return `docs/registrations/stage-${stage.toLowerCase()}-v1/registration.json`;
}

const HEX64 = { type: "string", pattern: "^[0-9a-f]{64}$" } as const;
const TIMESTAMP = {
  type: "string",
  pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$",
} as const;
const TEXT = { type: "string", minLength: 1 } as const;
const POSITIVE = { type: "number", exclusiveMinimum: 0 } as const;

export const FREEZE_REGISTRATION_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "urn:irrevon:schema:bench-freeze-registration:1",
  title: "IrrevonBench freeze registration",
  type: "object",
  additionalProperties: false,
  required: [
    "format",
    "stage",
    "registered_by",
    "registered_at",
    "owner_attestation",
    "external_stamp",
    "preregistration_sha256",
    "analysis_code_sha256",
    "parameters",
    "amendments",
  ],
  properties: {
    format: { const: FREEZE_FORMAT },
    stage: { enum: ["A", "B"] },
    registered_by: TEXT,
    registered_at: TIMESTAMP,
    owner_attestation: { type: "string", minLength: 20 },
    external_stamp: {
      type: "object",
      additionalProperties: false,
      required: ["method", "reference"],
      properties: { method: TEXT, reference: TEXT },
    },
    preregistration_sha256: HEX64,
    analysis_code_sha256: HEX64,
    parameters: {
      type: "object",
      additionalProperties: false,
      required: [
        "trials_per_cell",
        "confirmatory_seed_count",
        "equivalence_margin",
        "c1_equivalence_margin",
        "worst_cell_gate_pp",
      ],
      properties: {
        trials_per_cell: { type: "integer", minimum: 1 },
        confirmatory_seed_count: { type: "integer", minimum: 5 },
        equivalence_margin: POSITIVE,
        c1_equivalence_margin: POSITIVE,
        worst_cell_gate_pp: POSITIVE,
      },
    },
    amendments: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["amended_at", "new_preregistration_sha256", "observed_before_amendment", "note"],
        properties: {
          amended_at: TIMESTAMP,
          new_preregistration_sha256: HEX64,
          observed_before_amendment: { type: "boolean" },
          note: TEXT,
        },
      },
    },
    stage_b: {
      type: "object",
      additionalProperties: false,
      required: [
        "fixture_manifest_root_hash",
        "master_seed_dev",
        "holdout_ciphertext_sha256",
        "holdout_plaintext_root_hash",
        "adapters",
      ],
      properties: {
        fixture_manifest_root_hash: HEX64,
        master_seed_dev: HEX64,
        holdout_ciphertext_sha256: HEX64,
        holdout_plaintext_root_hash: HEX64,
        adapters: { type: "array", minItems: 1, items: TEXT },
      },
    },
  },
  allOf: [
    {
      if: { type: "object", properties: { stage: { const: "B" } }, required: ["stage"] },
      then: { required: ["stage_b"] },
      else: { not: { required: ["stage_b"] } },
    },
  ],
} as const;

let validator: ReturnType<Ajv2020["compile"]> | undefined;
function validate(document: unknown): string[] {
  validator ??= new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(
    FREEZE_REGISTRATION_SCHEMA,
  );
  if (validator(document)) return [];
  return (validator.errors ?? []).map((e) => {
    const p = describeSchemaError(e);
    return `schema: ${p.pointer === "" ? "(root)" : p.pointer} ${p.message}`;
  });
}

function listTs(root: string, path: string): string[] {
  const abs = join(root, path);
  if (!existsSync(abs)) return [];
  if (path.endsWith(".ts")) return [path];
  return readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join("/"));
}

/** The bound analysis files and their byte digests, sorted by path. */
export function analysisCodeFiles(repoRoot: string): { path: string; sha256: string }[] {
  return BOUND_ANALYSIS_PATHS.flatMap((p) => listTs(repoRoot, p))
    .sort()
    .map((path) => ({ path, sha256: sha256Hex(readFileSync(join(repoRoot, path))) }));
}

/** Root hash over the bound analysis files (the manifest root rule, over file bytes). */
export function analysisCodeSha256(repoRoot: string): string {
  return rootHash(analysisCodeFiles(repoRoot));
}

/** Hex SHA-256 of the preregistration's bytes, or null when it is missing. */
export function preregistrationSha256(repoRoot: string): string | null {
  const path = join(repoRoot, PREREGISTRATION_PATH);
  return existsSync(path) ? sha256Hex(readFileSync(path)) : null;
}

function devManifest(repoRoot: string): { root_hash?: unknown; master_seed?: unknown } | null {
  try {
    return JSON.parse(readFileSync(join(repoRoot, DEV_MANIFEST_PATH), "utf8")) as {
      root_hash?: unknown;
      master_seed?: unknown;
    };
  } catch {
    return null;
  }
}

/**
 * A draft registration for `stage`: what the code can compute is filled in (the digests, the
 * dev manifest's root and seed), every human field is the `REQUIRED-HUMAN` sentinel — so a
 * draft never verifies until a human has replaced each one.
 */
export function freezeDraft(stage: FreezeStage, repoRoot: string): Record<string, unknown> {
  const manifest = devManifest(repoRoot);
  return {
    format: FREEZE_FORMAT,
    stage,
    registered_by: REQUIRED_HUMAN,
    registered_at: REQUIRED_HUMAN,
    owner_attestation: REQUIRED_HUMAN,
    external_stamp: { method: REQUIRED_HUMAN, reference: REQUIRED_HUMAN },
    preregistration_sha256: preregistrationSha256(repoRoot) ?? REQUIRED_HUMAN,
    analysis_code_sha256: analysisCodeSha256(repoRoot),
    parameters: {
      trials_per_cell: REQUIRED_HUMAN,
      confirmatory_seed_count: REQUIRED_HUMAN,
      equivalence_margin: REQUIRED_HUMAN,
      c1_equivalence_margin: REQUIRED_HUMAN,
      worst_cell_gate_pp: REQUIRED_HUMAN,
    },
    amendments: [],
    ...(stage === "B"
      ? {
          stage_b: {
            fixture_manifest_root_hash: manifest?.root_hash ?? REQUIRED_HUMAN,
            master_seed_dev: manifest?.master_seed ?? REQUIRED_HUMAN,
            holdout_ciphertext_sha256: REQUIRED_HUMAN,
            holdout_plaintext_root_hash: REQUIRED_HUMAN,
            adapters: [REQUIRED_HUMAN],
          },
        }
      : {}),
  };
}

/** The draft's on-disk text (JCS and a newline, like every benchmark document). */
export function freezeDraftText(stage: FreezeStage, repoRoot: string): string {
  return artifactText(freezeDraft(stage, repoRoot));
}

/** The outcome of verifying one stage's registration. */
export interface FreezeVerification {
  readonly stage: FreezeStage;
  readonly path: string;
  readonly verified: boolean;
  /** Every reason it does not verify (empty when verified). */
  readonly reasons: readonly string[];
}

/** Verifies the registration of `stage` against the repository as it is now. */
export function verifyFreeze(stage: FreezeStage, repoRoot: string): FreezeVerification {
  const path = registrationPath(stage);
  const done = (reasons: string[]): FreezeVerification => ({
    stage,
    path,
    verified: reasons.length === 0,
    reasons,
  });
  const abs = join(repoRoot, path);
  if (!existsSync(abs))
    return done([
      `no registration at ${path}: write a draft with \`irrevon bench freeze --stage ${stage} --draft-out ${path}\` and have a human complete it`,
    ]);
  const text = readFileSync(abs, "utf8");
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return done([`${path} is not JSON: ${(error as Error).message}`]);
  }
  const reasons: string[] = [];
  if (text.includes(REQUIRED_HUMAN))
    reasons.push(`${path} still holds ${REQUIRED_HUMAN} fields: a human must replace every one`);
  reasons.push(...validate(document));
  const reg = document as {
    stage?: unknown;
    preregistration_sha256?: unknown;
    analysis_code_sha256?: unknown;
    amendments?: ReadonlyArray<{ new_preregistration_sha256?: unknown }>;
    stage_b?: { fixture_manifest_root_hash?: unknown; master_seed_dev?: unknown };
  };
  if (typeof document !== "object" || document === null) return done(reasons);
  if (reg.stage !== stage)
    reasons.push(
      `stage: the file at ${path} registers stage ${JSON.stringify(reg.stage)}, not ${stage}`,
    );
  const amendments = Array.isArray(reg.amendments) ? reg.amendments : [];
  const bound = amendments.at(-1)?.new_preregistration_sha256 ?? reg.preregistration_sha256;
  const actual = preregistrationSha256(repoRoot);
  if (actual === null) reasons.push(`preregistration: ${PREREGISTRATION_PATH} is missing`);
  else if (bound !== actual)
    reasons.push(
      `preregistration_sha256: ${PREREGISTRATION_PATH} hashes to ${actual}, the registration binds ${String(bound)}; record an amendment (amended_at, new_preregistration_sha256, observed_before_amendment, note) or restore the registered bytes`,
    );
  const code = analysisCodeSha256(repoRoot);
  if (reg.analysis_code_sha256 !== code)
    reasons.push(
      `analysis_code_sha256: the bound analysis code (${BOUND_ANALYSIS_PATHS.join(", ")}) hashes to ${code}, the registration binds ${String(reg.analysis_code_sha256)}; the code that judges the data drifted after the freeze`,
    );
  if (stage === "B") {
    const manifest = devManifest(repoRoot);
    if (manifest === null) reasons.push(`stage_b: ${DEV_MANIFEST_PATH} is missing or not JSON`);
    else {
      if (reg.stage_b?.fixture_manifest_root_hash !== manifest.root_hash)
        reasons.push(
          `stage_b.fixture_manifest_root_hash: the dev manifest's root is ${String(manifest.root_hash)}, the registration binds ${String(reg.stage_b?.fixture_manifest_root_hash)}`,
        );
      if (reg.stage_b?.master_seed_dev !== manifest.master_seed)
        reasons.push(
          `stage_b.master_seed_dev: the dev manifest's seed is ${String(manifest.master_seed)}, the registration binds ${String(reg.stage_b?.master_seed_dev)}`,
        );
    }
  }
  return done(reasons);
}
