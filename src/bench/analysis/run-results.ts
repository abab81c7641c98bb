/**
 * bench/analysis/run-results — the input of `irrevon bench analyze`: one document listing
 * runs, each with its arm, cell, replicate, validity and eight metric cells. Validated with
 * a closed JSON Schema (draft 2020-12) before anything reads it. The runner (not built yet)
 * will write this format; until then it is written by hand or by tests.
 * Imports: ajv, core/errors, bench/metrics/metric-cells.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { IrrevonError } from "../../core/errors.js";
import {
  ANNOTATION_MARKS,
  METRIC_KEYS,
  VALUE_MARKS,
  type MetricTable,
} from "../metrics/metric-cells.js";

export const RUN_RESULTS_FORMAT = "irrevonbench/run-results/v1";

export interface RunResult {
  readonly run_id: string;
  readonly arm: string;
  readonly cell_id: string;
  readonly replicate_index: number;
  readonly validity: "VALID" | "INVALID";
  readonly metrics: MetricTable;
}

export interface RunResults {
  readonly format: typeof RUN_RESULTS_FORMAT;
  readonly runs: readonly RunResult[];
}

const COUNT = { type: "number", minimum: 0 } as const;
const METRIC_CELL = {
  anyOf: [
    {
      type: "object",
      additionalProperties: false,
      required: ["numerator", "denominator", "value", "mark"],
      properties: {
        numerator: COUNT,
        denominator: { type: "number", exclusiveMinimum: 0 },
        value: COUNT,
        mark: { anyOf: [{ type: "null" }, { enum: [...ANNOTATION_MARKS] }] },
      },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["numerator", "denominator", "value", "mark"],
      properties: {
        numerator: { type: "null" },
        denominator: { type: "null" },
        value: { type: "null" },
        mark: { enum: [...VALUE_MARKS] },
      },
    },
  ],
} as const;

export const RUN_RESULTS_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "urn:irrevon:schema:bench-run-results:1",
  type: "object",
  additionalProperties: false,
  required: ["format", "runs"],
  properties: {
    format: { const: RUN_RESULTS_FORMAT },
    runs: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["run_id", "arm", "cell_id", "replicate_index", "validity", "metrics"],
        properties: {
          run_id: { type: "string", minLength: 1 },
          arm: { type: "string", minLength: 1 },
          cell_id: { type: "string", minLength: 1 },
          replicate_index: { type: "integer", minimum: 0 },
          validity: { enum: ["VALID", "INVALID"] },
          metrics: {
            type: "object",
            additionalProperties: false,
            required: [...METRIC_KEYS],
            properties: Object.fromEntries(METRIC_KEYS.map((k) => [k, METRIC_CELL])),
          },
        },
      },
    },
  },
} as const;

let validator: ReturnType<Ajv2020["compile"]> | undefined;

/** Validates a parsed results document; throws `usage` naming the first problems. */
export function parseRunResults(document: unknown): RunResults {
  validator ??= new Ajv2020({ allErrors: true, strict: true }).compile(RUN_RESULTS_SCHEMA);
  if (validator(document)) return document as RunResults;
  const problems = (validator.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? "invalid"}`);
  throw new IrrevonError("usage", `results document invalid: ${problems.join("; ")}`, {
    details: { problems },
  });
}
