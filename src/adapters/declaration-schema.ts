/**
 * adapters/declaration-schema — the closed capability-declaration schema (JSON Schema draft
 * 2020-12) and the constants it names. No imports: `scripts/compile-declaration-validator.mjs`
 * compiles this schema into a standalone validator at build time
 * (`declaration-validator.generated.ts`), so an engine does not load a schema compiler when
 * it starts. adapters/declaration checks, on its first validation, that the compiled validator is of this schema.
 */

/** Attribution modes, strongest first; a declaration lists its modes in this order. */
export const ATTRIBUTION_MODES = [
  "exact",
  "stable-id-projection",
  "metadata",
  "temporal-window",
  "ambiguous",
  "impossible",
] as const;

/** Bounds of `queryable.batch_max`: a batch of one is no batch; 1000 keys is one large request. */
export const MIN_BATCH_MAX = 2;
export const MAX_BATCH_MAX = 1000;

const DURATION_PATTERN = "^PT(?=\\d)(\\d+H)?(\\d+M)?(\\d+(\\.\\d+)?S)?$";
const durationOrNull = { anyOf: [{ type: "null" }, { $ref: "#/$defs/duration" }] };

/** The closed capability-declaration schema (JSON Schema draft 2020-12). */
export const CAPABILITY_DECLARATION_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "urn:irrevon:schema:capability-declaration:1",
  title: "Irrevon capability declaration",
  type: "object",
  additionalProperties: false,
  required: [
    "adapter",
    "destination",
    "api_version",
    "tier",
    "idempotency",
    "queryable",
    "client_ref_field",
    "list_queryable",
    "consistency",
    "citations",
    "evidence_quality",
  ],
  properties: {
    adapter: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]{0,99}$" },
    destination: { type: "string", minLength: 1, maxLength: 100 },
    api_version: { type: "string", minLength: 1, maxLength: 100 },
    tier: { enum: ["C1", "C2", "C3"] },
    idempotency: {
      type: "object",
      additionalProperties: false,
      required: ["supported", "window", "replay_semantics"],
      properties: {
        supported: { type: "boolean" },
        window: durationOrNull,
        replay_semantics: {
          anyOf: [{ type: "null" }, { type: "string", minLength: 1, maxLength: 2000 }],
        },
      },
    },
    queryable: {
      type: "object",
      additionalProperties: false,
      required: ["supported", "by"],
      properties: {
        supported: { type: "boolean" },
        by: {
          type: "array",
          uniqueItems: true,
          items: {
            anyOf: [
              { enum: ["destination_ref", "client_ref"] },
              { type: "string", pattern: "^stable_id:[A-Za-z_][A-Za-z0-9_.-]{0,63}$" },
            ],
          },
        },
        // Optional, so every declaration written before it keeps its digest (see loadDeclaration).
        batch_max: {
          anyOf: [
            { type: "null" },
            { type: "integer", minimum: MIN_BATCH_MAX, maximum: MAX_BATCH_MAX },
          ],
        },
      },
    },
    client_ref_field: {
      anyOf: [{ type: "null" }, { type: "string", minLength: 1, maxLength: 200 }],
    },
    list_queryable: { type: "boolean" },
    consistency: {
      type: "object",
      additionalProperties: false,
      required: ["status_settlement_lag", "listing_lag"],
      properties: { status_settlement_lag: durationOrNull, listing_lag: durationOrNull },
    },
    citations: {
      type: "array",
      minItems: 1,
      items: { type: "string", maxLength: 2000, pattern: "^[A-Za-z][A-Za-z0-9+.-]*:\\S+$" },
    },
    evidence_quality: { enum: ["VF", "EI"] },
    compensation_hook: {
      anyOf: [{ type: "null" }, { type: "string", minLength: 1, maxLength: 200 }],
    },
    attribution: {
      type: "object",
      additionalProperties: false,
      required: ["modes"],
      properties: {
        modes: {
          type: "array",
          minItems: 1,
          uniqueItems: true,
          items: { enum: [...ATTRIBUTION_MODES] },
        },
        fields: { type: "array", items: { type: "string", minLength: 1, maxLength: 200 } },
        notes: { type: "string", maxLength: 2000 },
      },
    },
  },
  $defs: { duration: { type: "string", pattern: DURATION_PATTERN } },
} as const;
