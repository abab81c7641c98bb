/**
 * bench/runner/documents — the closed JSON Schemas (draft 2020-12, no additional properties)
 * of every document the runner writes, and `checkedText`, which validates a document and
 * returns its bytes; nothing is written without passing it (D10: the reference never
 * validated its outputs). Journal lines keep the arm's free-form `detail` (the arm contract
 * allows extra keys there and only there). Imports: ajv, core/errors, bench/fixtures,
 * bench/metrics, testing/history-checker.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { IrrevonError } from "../../core/errors.js";
import { HISTORY_INVARIANTS } from "../../testing/history-checker.js";
import { artifactText } from "../fixtures/artifact-bytes.js";
import { ANNOTATION_MARKS, METRIC_KEYS, VALUE_MARKS } from "../metrics/metric-cells.js";
import { ARM_OUTCOMES } from "../metrics/score-unit.js";

export const RUNNER_FORMATS = {
  runManifest: "irrevonbench/run-manifest/v2",
  environment: "irrevonbench/environment/v2",
  journalLine: "irrevonbench/journal-line/v1",
  history: "irrevonbench/history/v2",
  historyVerdict: "irrevonbench/history-verdict/v2",
  result: "irrevonbench/result/v2",
} as const;
export type RunnerFormat = (typeof RUNNER_FORMATS)[keyof typeof RUNNER_FORMATS];

/** The only reasons a run is INVALID (reference-bench §4, §5.3). */
export const INVALID_CLASSES = [
  "seed-mismatch",
  "reset-verification-failed",
  "harness-corruption",
] as const;
export type InvalidClass = (typeof INVALID_CLASSES)[number];

const S = { type: "string" } as const;
const NE = { type: "string", minLength: 1 } as const;
const INT = { type: "integer", minimum: 0 } as const;
const NUM = { type: "number", minimum: 0 } as const;
const BOOL = { type: "boolean" } as const;
const HEX = { type: "string", pattern: "^[0-9a-f]{64}$" } as const;
const TS = { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$" } as const;
const nullable = (s: object): object => ({ anyOf: [{ type: "null" }, s] });

/** A closed object: every listed property required unless named in `optional`. */
function obj(properties: Record<string, object>, optional: readonly string[] = []): object {
  return {
    type: "object",
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}
const COUNTS = { type: "object", additionalProperties: INT } as const;
const METRIC_CELL = {
  anyOf: [
    obj({
      numerator: NUM,
      denominator: { type: "number", exclusiveMinimum: 0 },
      value: NUM,
      mark: nullable({ enum: [...ANNOTATION_MARKS] }),
    }),
    obj({
      numerator: { type: "null" },
      denominator: { type: "null" },
      value: { type: "null" },
      mark: { enum: [...VALUE_MARKS] },
    }),
  ],
};
const METRICS = obj(Object.fromEntries(METRIC_KEYS.map((k) => [k, METRIC_CELL])));
const OUTCOME = { enum: [...ARM_OUTCOMES] } as const;
const CLAIM = nullable({ enum: ["unique", "absent"] });
const COMPENSATION = nullable(obj({ attempted: BOOL, correct: BOOL }));

const RUN_MANIFEST = obj({
  format: { const: RUNNER_FORMATS.runManifest },
  run_id: NE,
  attempt: { type: "integer", minimum: 1, maximum: 3 },
  created_at: TS,
  harness_version: NE,
  confirmatory: { const: false },
  plan: obj({
    manifest_root_hash: HEX,
    workload_id: NE,
    schedule_id: NE,
    variant_set_id: nullable(NE),
    cell_id: NE,
    replicate_index: INT,
    seed: { type: "string", pattern: "^[0-9]+$" },
    trial_count: INT,
  }),
  arm: obj({
    id: NE,
    version: NE,
    config_digest: HEX,
    real_world: S,
    known_deviations: { type: "array", items: S },
  }),
  environment_digest: HEX,
  reset_verification: obj({ verified: BOOL, readback_digest: nullable(HEX) }),
  replaces_run_id: nullable(NE),
});

const ENVIRONMENT = obj({
  format: { const: RUNNER_FORMATS.environment },
  captured_at: TS,
  node: NE,
  platform: NE,
  arch: NE,
  cpus: INT,
  packages: { type: "object", additionalProperties: S },
  lockfile_sha256: nullable(HEX),
  git: obj({ commit: nullable(S), dirty: nullable(BOOL) }),
  test_hooks_armed: BOOL,
  environment_digest: HEX,
});

const JOURNAL_LINE = obj({
  format: { const: RUNNER_FORMATS.journalLine },
  run_id: NE,
  trial_index: INT,
  fault: nullable(NE),
  report: obj({
    trial_index: INT,
    arm_outcome: OUTCOME,
    dispatch_attempted: BOOL,
    detail: {
      type: "object",
      required: ["log"],
      properties: {
        log: {
          type: "array",
          items: {
            type: "object",
            required: ["at", "action"],
            properties: { at: { type: "number" }, action: NE },
          },
        },
      },
    },
  }),
});

const HISTORY = obj({
  format: { const: RUNNER_FORMATS.history },
  workload_id: NE,
  cell_id: NE,
  replicate_index: INT,
  tier: { enum: ["C1", "C2", "C3"] },
  fault: NE,
  arm: obj({ id: NE, ambiguity_concept: BOOL, classifies: BOOL, sends_stable_key: BOOL }),
  trials_truth: {
    type: "object",
    additionalProperties: obj({
      legitimate: BOOL,
      eligible_for_dispatch: BOOL,
      fault: nullable(NE),
    }),
  },
  events: {
    type: "array",
    items: {
      anyOf: [
        obj({ id: INT, kind: NE, source: { const: "harness" }, trial_index: INT, anchor: NE }),
        obj({
          id: INT,
          kind: NE,
          source: { const: "arm-log" },
          trial_index: INT,
          op_seq: INT,
          detail: { type: "object" },
        }),
        obj({
          id: INT,
          kind: { const: "arm:outcome" },
          source: { const: "arm-outcome" },
          trial_index: INT,
          outcome: OUTCOME,
          dispatch_attempted: BOOL,
          oracle_claim: CLAIM,
          compensation: COMPENSATION,
        }),
        obj({
          id: INT,
          kind: { const: "destination:effect-created" },
          source: { const: "destination" },
          destination_seq: INT,
          destination_ref: NE,
          intent_key: nullable(NE),
          attributed_by: nullable({ enum: ["digest", "projection", "client-ref"] }),
          ambiguous: BOOL,
          via: NE,
        }),
      ],
    },
  },
  history_digest: HEX,
});

const BY_INVARIANT = obj(Object.fromEntries(HISTORY_INVARIANTS.map((i) => [i, INT])));
const DISCREPANCY = obj({
  metric: { enum: [...METRIC_KEYS] },
  field: { enum: ["numerator", "denominator", "value", "mark"] },
  metric_value: nullable({ type: ["number", "string"] }),
  history_value: nullable({ type: ["number", "string"] }),
});
const HISTORY_VERDICT = obj({
  format: { const: RUNNER_FORMATS.historyVerdict },
  run_id: NE,
  history_digest: HEX,
  violations: {
    type: "array",
    items: obj({
      invariant: { enum: [...HISTORY_INVARIANTS] },
      count: INT,
      subject: { type: "object" },
      detail: S,
    }),
  },
  diagnostics: { type: "array", items: obj({ kind: NE, subject: { type: "object" } }) },
  cross_check_discrepancies: { type: "array", items: DISCREPANCY },
});

const RESULT = obj({
  format: { const: RUNNER_FORMATS.result },
  run_id: NE,
  attempt: { type: "integer", minimum: 1, maximum: 3 },
  replaces_run_id: nullable(NE),
  arm: NE,
  cell_id: NE,
  replicate_index: INT,
  workload_id: NE,
  confirmatory: { const: false },
  labels: { type: "array", items: NE, contains: { const: "non-confirmatory" } },
  completed_at: TS,
  validity: {
    anyOf: [
      obj({
        status: { const: "VALID" },
        invalid_class: { type: "null" },
        evidence: { type: "array", maxItems: 0 },
      }),
      obj({
        status: { const: "INVALID" },
        invalid_class: { enum: [...INVALID_CLASSES] },
        evidence: { type: "array", minItems: 1, items: NE },
      }),
    ],
  },
  trials: {
    type: "array",
    items: obj({
      trial_index: INT,
      arm_outcome: OUTCOME,
      dispatch_attempted: BOOL,
      oracle_claim: CLAIM,
    }),
  },
  oracle_readback: {
    anyOf: [
      obj({
        performed: { const: true },
        readback_digest: HEX,
        destination_effect_count: INT,
        per_intent_effect_counts: COUNTS,
        orphan_effect_count: INT,
        ambiguous_attributions: INT,
      }),
      obj({ performed: { const: false } }),
    ],
  },
  metrics: METRICS,
  evidence: obj({ artifact_digests: obj({ run_manifest: HEX, journal: nullable(HEX) }) }),
  residual_effects_after_cleanup: { const: 0 },
  wall_time_s: NUM,
  history: nullable(
    obj({
      history_digest: HEX,
      violations_total: INT,
      violations_by_invariant: BY_INVARIANT,
      diagnostics_total: INT,
      cross_check: { enum: ["CONSISTENT", "DIVERGENT"] },
    }),
  ),
});

export const RUNNER_SCHEMAS: Readonly<Record<RunnerFormat, object>> = {
  [RUNNER_FORMATS.runManifest]: RUN_MANIFEST,
  [RUNNER_FORMATS.environment]: ENVIRONMENT,
  [RUNNER_FORMATS.journalLine]: JOURNAL_LINE,
  [RUNNER_FORMATS.history]: HISTORY,
  [RUNNER_FORMATS.historyVerdict]: HISTORY_VERDICT,
  [RUNNER_FORMATS.result]: RESULT,
};

let validators: Map<string, ValidateFunction> | undefined;

/** Validation problems of a runner document (`pointer message` strings); empty when valid. */
export function runnerDocumentProblems(document: unknown): string[] {
  validators ??= (() => {
    const ajv = new Ajv2020({
      allErrors: true,
      strict: true,
      strictRequired: false,
      allowUnionTypes: true,
    });
    return new Map(Object.entries(RUNNER_SCHEMAS).map(([f, s]) => [f, ajv.compile(s)]));
  })();
  const format = (document as { format?: unknown } | null)?.format;
  const validate = typeof format === "string" ? validators.get(format) : undefined;
  if (validate === undefined) return [`/format unknown runner format ${JSON.stringify(format)}`];
  if (validate(document)) return [];
  return (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? "invalid"}`);
}

/** The bytes of a valid runner document (JCS + newline); throws `internal` naming the problems. */
export function checkedText(document: unknown): string {
  const problems = runnerDocumentProblems(document);
  if (problems.length > 0) {
    throw new IrrevonError(
      "internal",
      `refusing to write an invalid ${String((document as { format?: unknown }).format)} document: ${problems.join("; ")}`,
      {
        details: { problems },
      },
    );
  }
  return artifactText(document);
}
