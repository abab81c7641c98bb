/**
 * The capability-declaration validator an engine runs is compiled at build time
 * (scripts/compile-declaration-validator.mjs → adapters/declaration-validator.generated.ts), so
 * no process compiles the schema when it starts. It must be the schema's validator: compiled
 * from this schema (its digest), and giving the verdict and the first error that ajv's compiler
 * gives for the same schema, on valid declarations and on every kind of damage to one.
 */
import { createHash } from "node:crypto";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CAPABILITY_DECLARATION_SCHEMA } from "../../src/adapters/declaration-schema.js";
import {
  SCHEMA_DIGEST,
  validate as generated,
} from "../../src/adapters/declaration-validator.generated.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
} from "../../src/adapters/declarations/refdest.js";

type Json = Record<string, unknown>;
interface Verdict {
  readonly valid: boolean;
  readonly first: { keyword: string; instancePath: string; params: unknown } | null;
}
type Validator = ((value: unknown) => boolean) & {
  errors?: Array<{ keyword: string; instancePath: string; params: unknown }> | null;
};

const compiled = new Ajv2020({ allErrors: false, strict: true }).compile(
  CAPABILITY_DECLARATION_SCHEMA,
) as Validator;

function verdict(validate: Validator, value: unknown): Verdict {
  const valid = validate(value);
  const e = validate.errors?.[0];
  return {
    valid,
    first:
      e === undefined
        ? null
        : { keyword: e.keyword, instancePath: e.instancePath, params: e.params },
  };
}

const PATHS = [
  "/adapter",
  "/destination",
  "/api_version",
  "/tier",
  "/idempotency",
  "/idempotency/supported",
  "/idempotency/window",
  "/idempotency/replay_semantics",
  "/queryable/by",
  "/queryable/by/0",
  "/queryable/batch_max",
  "/client_ref_field",
  "/list_queryable",
  "/consistency/status_settlement_lag",
  "/consistency/listing_lag",
  "/citations",
  "/citations/0",
  "/evidence_quality",
  "/compensation_hook",
  "/attribution",
  "/attribution/modes",
  "/unknown_member",
] as const;

function damaged(base: Json, path: string, value: unknown): Json {
  const copy = JSON.parse(JSON.stringify(base)) as Json;
  const keys = path.split("/").slice(1);
  let at: Json = copy;
  for (const k of keys.slice(0, -1)) {
    if (typeof at[k] !== "object" || at[k] === null) at[k] = {};
    at = at[k] as Json;
  }
  const last = keys[keys.length - 1] as string;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

// Values chosen to cross the schema's lines: lengths, patterns (durations, ids), enums, types.
const interesting = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    undefined,
    null,
    "",
    "PT5S",
    "PT1.5S",
    "P1D",
    "PT",
    "C4",
    "VF",
    "EI",
    "x".repeat(100),
    "x".repeat(101),
    "😀".repeat(100),
    "😀".repeat(101),
    "stable_id:order_id",
    "stable_id:",
    "destination_ref",
    ["destination_ref", "destination_ref"],
    [],
    1,
    2,
    1000,
    1001,
    2.5,
    "https://example.com/x",
    "not a uri",
    ["exact", "metadata"],
    ["metadata", "exact"],
  ),
);

describe("the build-time declaration validator", () => {
  it("was compiled from this schema", () => {
    const digest = createHash("sha256")
      .update(JSON.stringify(CAPABILITY_DECLARATION_SCHEMA))
      .digest("hex");
    expect(SCHEMA_DIGEST).toBe(digest);
  });

  it("accepts the shipped declarations, as the schema compiler does", () => {
    for (const d of [REFDEST_C1_DECLARATION, REFDEST_C2_DECLARATION]) {
      expect(verdict(generated as Validator, d)).toEqual({ valid: true, first: null });
      expect(verdict(compiled, d)).toEqual({ valid: true, first: null });
    }
  });

  it("gives the schema compiler's verdict and first error on every damaged declaration", () => {
    let refused = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(REFDEST_C1_DECLARATION, REFDEST_C2_DECLARATION),
        fc.array(fc.tuple(fc.constantFrom(...PATHS), interesting), { minLength: 1, maxLength: 3 }),
        (base, edits) => {
          let d = base as unknown as Json;
          for (const [path, value] of edits) d = damaged(d, path, value);
          const mine = verdict(generated as Validator, d);
          expect(mine).toEqual(verdict(compiled, d));
          if (!mine.valid) refused += 1;
        },
      ),
      { numRuns: 2000 },
    );
    // The property means something only if most inputs were refused for one reason or another.
    expect(refused).toBeGreaterThan(1000);
  });
});
