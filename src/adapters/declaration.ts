/**
 * adapters/declaration — capability declarations (§5.4): the closed JSON Schema (draft
 * 2020-12) every declaration must satisfy, the cross-field rules a schema cannot say, the
 * declaration digest, and the only duration syntax we accept (`PT[nH][nM][n(.n)S]`).
 * An invalid declaration is refused at load with IrrevonError `declaration_invalid` naming the
 * JSON pointer and the reason; nothing downstream ever sees it. Every duration is bounded
 * ({@link MAX_DURATION_SECONDS}) and so is the raw input's nesting and size
 * ({@link DECLARATION_BOUNDS}), both before anything uses them. Imports: core.
 */
import { createHash } from "node:crypto";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import canonicalize from "canonicalize";
import { ContractInvalidError, IrrevonError } from "../core/errors.js";
import { preflight, type JsonBounds } from "../core/preflight.js";
import type { CapabilityDeclaration } from "./contract.js";

/** Attribution modes, strongest first; a declaration lists its modes in this order. */
export const ATTRIBUTION_MODES = [
  "exact",
  "stable-id-projection",
  "metadata",
  "temporal-window",
  "ambiguous",
  "impossible",
] as const;

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

let validator: ValidateFunction | null = null;
function schemaValidator(): ValidateFunction {
  validator ??= new Ajv2020({ allErrors: false, strict: true }).compile(
    CAPABILITY_DECLARATION_SCHEMA,
  );
  return validator;
}

function invalid(
  path: string,
  reason: string,
  limit?: { readonly limit: string; readonly limit_value: string | number },
): IrrevonError {
  return new IrrevonError(
    "declaration_invalid",
    `capability declaration invalid at ${path || "/"}: ${reason}`,
    {
      details: { path: path || "/", reason, ...limit },
    },
  );
}

/**
 * Longest duration a declaration may state (lag, listing lag, idempotency window): 366 days.
 * Far above any real destination's, far below where `now + duration` stops being a
 * representable instant (a lag of `PT9999999999H` made every reconcile throw a RangeError).
 */
export const MAX_DURATION_SECONDS = 366 * 86_400;

/** The nesting and size a declaration may have before the schema reads it. */
export const DECLARATION_BOUNDS: JsonBounds = {
  maxDepth: 8,
  maxNodes: 2_000,
  maxStringBytes: 8_192,
  maxKeyBytes: 256,
  maxIntegerMagnitude: Number.MAX_SAFE_INTEGER,
  maxScalarBudgetBytes: 262_144,
  omitUndefinedMembers: true,
};

const DURATION_PARTS = /^PT(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/;

/**
 * Seconds in an ISO 8601 duration of the form `PT[nH][nM][n(.n)S]` (at least one part), at
 * most {@link MAX_DURATION_SECONDS}. Anything else (days, years, negative, empty `PT`, longer
 * than the bound) throws `declaration_invalid`; a duration beyond the bound carries
 * `details.limit = "max_duration_seconds"` and the bound.
 */
export function parseIsoDurationSeconds(text: string, path = ""): number {
  // The text is bounded first, so the pattern below never scans a megabyte of digits.
  const m = typeof text === "string" && text.length <= 64 ? DURATION_PARTS.exec(text) : null;
  if (m === null && typeof text === "string" && /^PT\d/.test(text) && text.length > 64) {
    throw invalid(path, "duration too long", {
      limit: "max_duration_seconds",
      limit_value: MAX_DURATION_SECONDS,
    });
  }
  if (m === null) throw invalid(path, "not a duration of the form PT[nH][nM][n(.n)S]");
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  if (!(seconds <= MAX_DURATION_SECONDS)) {
    throw invalid(path, `duration longer than ${MAX_DURATION_SECONDS} s (366 days)`, {
      limit: "max_duration_seconds",
      limit_value: MAX_DURATION_SECONDS,
    });
  }
  return seconds;
}

function crossFieldRules(d: CapabilityDeclaration): void {
  const idem = d.idempotency;
  if (idem.supported && idem.window === null)
    throw invalid("/idempotency/window", "a supported idempotency key needs a window");
  if (!idem.supported && (idem.window !== null || idem.replay_semantics !== null)) {
    throw invalid(
      "/idempotency",
      "window and replay_semantics must be null when idempotency is not supported",
    );
  }
  if ((d.tier === "C1") !== idem.supported)
    throw invalid("/tier", "tier C1 means native idempotency; other tiers have none");
  if (d.queryable.supported !== d.queryable.by.length > 0) {
    throw invalid(
      "/queryable/by",
      "a queryable destination lists its query keys; a non-queryable one lists none",
    );
  }
  if (d.queryable.by.includes("client_ref") && d.client_ref_field === null) {
    throw invalid("/client_ref_field", "querying by client_ref needs a field to stamp it in");
  }
  if (d.tier === "C3" && (d.queryable.supported || d.list_queryable)) {
    throw invalid("/tier", "a C3 destination is neither queryable nor listable");
  }
  for (const [path, lag] of [
    ["/consistency/status_settlement_lag", d.consistency.status_settlement_lag],
    ["/consistency/listing_lag", d.consistency.listing_lag],
    ["/idempotency/window", idem.window],
  ] as const) {
    if (lag !== null) parseIsoDurationSeconds(lag, path);
  }
  const modes = d.attribution?.modes ?? [];
  const ranks = modes.map((m) =>
    ATTRIBUTION_MODES.indexOf(m as (typeof ATTRIBUTION_MODES)[number]),
  );
  if (ranks.some((r, i) => i > 0 && r < (ranks[i - 1] ?? -1))) {
    throw invalid("/attribution/modes", "modes must be listed strongest first");
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Bounds the raw input (depth, nodes, string sizes) before anything walks it: the copy below
 * and the schema validator both recurse, so a 100,000-deep value must be refused first.
 */
function boundDeclaration(input: unknown): void {
  try {
    preflight(input, DECLARATION_BOUNDS);
  } catch (error) {
    if (!(error instanceof ContractInvalidError)) throw error;
    const pointer = jsonPathToPointer(error.path);
    throw invalid(pointer, error.message, {
      limit: error.limit,
      limit_value: error.details["limit_value"] as string | number,
    });
  }
}

/** `$.a[0]["b c"]` → `/a/0/b c` (paths preflight reports; keys are never shortened here). */
function jsonPathToPointer(path: string): string {
  const segments: string[] = [];
  const re = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) {
    const raw = m[1] ?? m[2] ?? (JSON.parse(m[3] as string) as string);
    segments.push(raw.replaceAll("~", "~0").replaceAll("/", "~1"));
  }
  return segments.length === 0 ? "/" : `/${segments.join("/")}`;
}

/**
 * Validate a declaration (bounds, schema, then cross-field rules) and return a frozen copy.
 * Throws IrrevonError `declaration_invalid` with `details.path` (JSON pointer) and `details.reason`.
 */
export function loadDeclaration(input: unknown): CapabilityDeclaration {
  boundDeclaration(input);
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(input)) as unknown;
  } catch {
    throw invalid("", "not JSON-serialisable");
  }
  const validate = schemaValidator();
  if (!validate(copy)) {
    const e = validate.errors?.[0];
    const extra =
      e?.keyword === "additionalProperties" ? ` '${String(e.params["additionalProperty"])}'` : "";
    throw invalid(e?.instancePath ?? "", `${e?.message ?? "invalid"}${extra}`);
  }
  const decl = copy as CapabilityDeclaration;
  crossFieldRules(decl);
  return deepFreeze(decl);
}

/** `sha256:` + hex SHA-256 of the declaration's RFC 8785 (JCS) bytes. */
export function declarationDigest(decl: CapabilityDeclaration): string {
  const text = canonicalize(decl);
  if (text === undefined) throw invalid("", "no canonical JSON form");
  return "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
}
