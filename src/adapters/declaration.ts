/**
 * adapters/declaration — capability declarations (§5.4): the closed JSON Schema (draft
 * 2020-12) every declaration must satisfy, the cross-field rules a schema cannot say, the
 * declaration digest, and the only duration syntax we accept (`PT[nH][nM][n(.n)S]`).
 * An invalid declaration is refused at load with IrrevonError `declaration_invalid` naming the
 * JSON pointer and the reason; nothing downstream ever sees it. Every duration is bounded
 * ({@link MAX_DURATION_SECONDS}) and so is the raw input's nesting and size
 * ({@link DECLARATION_BOUNDS}), both before anything uses them. The optional
 * `queryable.batch_max` is absent from the loaded copy unless it is a number, so the digest of
 * a declaration without batch lookups is the one it had before the field existed. Imports: core.
 */
import { createHash } from "node:crypto";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import canonicalize from "canonicalize";
import { ContractInvalidError, IrrevonError } from "../core/errors.js";
import { preflight, type JsonBounds } from "../core/preflight.js";
import type { CapabilityDeclaration } from "./contract.js";
import { describeValue, fieldRule } from "./declaration-fields.js";
import { ATTRIBUTION_MODES, CAPABILITY_DECLARATION_SCHEMA } from "./declaration-schema.js";
import {
  SCHEMA_DIGEST as COMPILED_SCHEMA_DIGEST,
  validate as compiledValidator,
} from "./declaration-validator.generated.js";

export {
  ATTRIBUTION_MODES,
  CAPABILITY_DECLARATION_SCHEMA,
  MAX_BATCH_MAX,
  MIN_BATCH_MAX,
} from "./declaration-schema.js";

/**
 * The schema compiled at build time (scripts/compile-declaration-validator.mjs): refused on its
 * first use if it was compiled from another schema than this one (a source edited after the
 * build).
 */
function schemaValidator(): ValidateFunction {
  if (!compiledValidatorChecked) {
    const digest = createHash("sha256")
      .update(JSON.stringify(CAPABILITY_DECLARATION_SCHEMA))
      .digest("hex");
    if (digest !== COMPILED_SCHEMA_DIGEST)
      throw new IrrevonError(
        "internal",
        "the compiled declaration validator is of another schema than adapters/declaration-schema; run npm run build",
        { details: { compiled: COMPILED_SCHEMA_DIGEST, schema: digest } },
      );
    compiledValidatorChecked = true;
  }
  return compiledValidator as ValidateFunction;
}

let compiledValidatorChecked = false;

interface InvalidExtra {
  /** JSON pointer of the offending field when it differs from `path` (missing or unknown member). */
  readonly field?: string;
  readonly limit?: string;
  readonly limit_value?: string | number;
  readonly allowed?: string;
  readonly fix?: string;
}

/**
 * A `declaration_invalid` error naming the field, the allowed values (or limit) and the fix.
 * `path` is the JSON pointer of the value that was checked (the container for a missing or
 * unknown member); `details.field` is the member itself.
 */
function invalid(path: string, reason: string, extra: InvalidExtra = {}): IrrevonError {
  const at = path || "/";
  const field = extra.field ?? at;
  const rule = fieldRule(field);
  const allowed = extra.allowed ?? rule.allowed;
  const fix = extra.fix ?? rule.fix;
  return new IrrevonError(
    "declaration_invalid",
    `capability declaration invalid at ${field}: ${reason}; allowed: ${allowed}; fix: ${fix}`,
    {
      details: {
        path: at,
        field,
        reason,
        allowed,
        fix,
        ...(extra.limit === undefined ? {} : { limit: extra.limit }),
        ...(extra.limit_value === undefined ? {} : { limit_value: extra.limit_value }),
      },
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

const DURATION_RULE =
  'an ISO 8601 duration "PT[nH][nM][n(.n)S]" (at least one part) of at most 366 days, e.g. "PT30S"';
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
    throw invalid(path, `got a duration of ${text.length} characters`, {
      limit: "max_duration_seconds",
      limit_value: MAX_DURATION_SECONDS,
      allowed: DURATION_RULE,
      fix: "state a duration of at most 366 days (PT8784H)",
    });
  }
  if (m === null) {
    throw invalid(
      path,
      `got ${describeValue(text)}, not a duration of the form PT[nH][nM][n(.n)S]`,
      {
        allowed: DURATION_RULE,
        fix: "write days as hours (P1D → PT24H) and use only H, M and S parts",
      },
    );
  }
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  if (!(seconds <= MAX_DURATION_SECONDS)) {
    throw invalid(
      path,
      `got ${text} = ${seconds} s, longer than ${MAX_DURATION_SECONDS} s (366 days)`,
      {
        limit: "max_duration_seconds",
        limit_value: MAX_DURATION_SECONDS,
        allowed: DURATION_RULE,
        fix: "state a duration of at most 366 days (PT8784H), or null if the destination states no bound",
      },
    );
  }
  return seconds;
}

function crossFieldRules(d: CapabilityDeclaration): void {
  const idem = d.idempotency;
  if (idem.supported && idem.window === null) {
    throw invalid("/idempotency/window", "got null with idempotency.supported = true", {
      allowed: 'a duration such as "PT24H" when idempotency is supported',
      fix: "state how long the destination remembers a key, or set idempotency.supported to false",
    });
  }
  if (!idem.supported && (idem.window !== null || idem.replay_semantics !== null)) {
    throw invalid(
      "/idempotency",
      `got window ${describeValue(idem.window)} and replay_semantics ${describeValue(idem.replay_semantics)} with supported = false`,
      {
        allowed: "{supported: false, window: null, replay_semantics: null}",
        fix: "set window and replay_semantics to null, or set supported to true (tier C1)",
      },
    );
  }
  if ((d.tier === "C1") !== idem.supported) {
    throw invalid(
      "/tier",
      `got ${JSON.stringify(d.tier)} with idempotency.supported = ${String(idem.supported)}`,
      {
        allowed: '"C1" iff idempotency.supported is true; "C2" or "C3" iff it is false',
        fix: idem.supported
          ? 'set tier to "C1" (native idempotency), or idempotency.supported to false'
          : 'set tier to "C2" or "C3", or declare the idempotency key (supported, window, replay_semantics)',
      },
    );
  }
  if (d.queryable.supported !== d.queryable.by.length > 0) {
    throw invalid(
      "/queryable/by",
      `got ${d.queryable.by.length} keys with queryable.supported = ${String(d.queryable.supported)}`,
      {
        allowed: "at least one key iff queryable.supported is true; [] iff it is false",
        fix: d.queryable.supported
          ? 'list the status query keys (e.g. ["destination_ref"]) or set supported to false'
          : "empty the list or set supported to true",
      },
    );
  }
  const batchMax = d.queryable.batch_max;
  if (batchMax !== undefined && batchMax !== null && !d.queryable.supported) {
    throw invalid("/queryable/batch_max", `got ${batchMax} with queryable.supported = false`, {
      allowed: "absent (or null) when the destination cannot be queried",
      fix: "remove batch_max, or declare the status query keys (queryable.supported true, by [...])",
    });
  }
  if (d.queryable.by.includes("client_ref") && d.client_ref_field === null) {
    throw invalid("/client_ref_field", 'got null while queryable.by lists "client_ref"', {
      allowed: "the request field the adapter stamps the client ref into",
      fix: 'name that field (e.g. "metadata.irrevon_ref"), or remove "client_ref" from queryable.by',
    });
  }
  if (d.tier === "C3" && (d.queryable.supported || d.list_queryable)) {
    throw invalid("/tier", 'got "C3" with a queryable or listable destination', {
      allowed: '"C3" only with queryable.supported = false and list_queryable = false',
      fix: 'use tier "C2" for a destination that can be queried or listed, or set both to false',
    });
  }
  for (const [path, lag] of [
    ["/consistency/status_settlement_lag", d.consistency.status_settlement_lag],
    ["/consistency/listing_lag", d.consistency.listing_lag],
    ["/idempotency/window", idem.window],
  ] as const) {
    if (lag !== null) parseIsoDurationSeconds(lag, path);
  }
  const modes = d.attribution?.modes ?? [];
  const rank = (m: string): number =>
    ATTRIBUTION_MODES.indexOf(m as (typeof ATTRIBUTION_MODES)[number]);
  if (modes.some((m, i) => i > 0 && rank(m) < rank(modes[i - 1] ?? ""))) {
    const ordered = [...modes].sort((x, y) => rank(x) - rank(y));
    throw invalid("/attribution/modes", `got ${modes.join(", ")} (not strongest first)`, {
      allowed: `modes in this order: ${ATTRIBUTION_MODES.join(", ")}`,
      fix: `reorder to ${ordered.join(", ")}`,
    });
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
    const limitValue = error.details["limit_value"] as string | number;
    throw invalid(pointer, error.message, {
      limit: error.limit,
      limit_value: limitValue,
      allowed: `${error.limit} ≤ ${String(limitValue)}`,
      fix: "keep the declaration small and flat: it is a short JSON object of the documented fields",
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

/** The value at a JSON pointer, or undefined. */
function valueAt(root: unknown, pointer: string): unknown {
  let at: unknown = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The members the schema allows at a container pointer (object levels only). */
function membersAt(pointer: string): readonly string[] {
  let node: unknown = CAPABILITY_DECLARATION_SCHEMA;
  for (const raw of pointer.split("/").slice(1)) {
    const props = (node as { properties?: Record<string, unknown> }).properties;
    node = props?.[raw];
  }
  const props = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props === undefined ? [] : Object.keys(props);
}

/** The first schema error as a refusal naming the field, what it allows and the fix. */
function schemaRefusal(e: ErrorObject | undefined, copy: unknown): IrrevonError {
  const path = e?.instancePath ?? "";
  const join = (name: string): string =>
    `${path}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  if (e?.keyword === "required") {
    const name = String(e.params["missingProperty"]);
    return invalid(path, `missing required member "${name}"`, {
      field: join(name),
      fix: `add "${name}": ${fieldRule(join(name)).allowed}`,
    });
  }
  if (e?.keyword === "additionalProperties") {
    const name = String(e.params["additionalProperty"]);
    return invalid(path, `unknown member "${name}"`, {
      field: join(name),
      allowed: `only the members ${membersAt(path).join(", ")}`,
      fix: `remove "${name}" (declarations are closed) or correct its spelling`,
    });
  }
  const value = valueAt(copy, path);
  const detail =
    e?.keyword === "uniqueItems"
      ? " with a duplicate entry"
      : e?.keyword === "minItems"
        ? " (too few entries)"
        : "";
  return invalid(path, `got ${describeValue(value)}${detail}`);
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
    throw invalid("", "got a value that is not JSON-serialisable");
  }
  const validate = schemaValidator();
  if (!validate(copy)) throw schemaRefusal(validate.errors?.[0], copy);
  const decl = copy as CapabilityDeclaration;
  // `batch_max: null` says "no batch", as an absent member does: drop it, so the two spellings
  // have one digest and every declaration written before the field existed keeps its own.
  const queryable = decl.queryable as { batch_max?: number | null };
  if (queryable.batch_max === null) delete queryable.batch_max;
  crossFieldRules(decl);
  return deepFreeze(decl);
}

/** `sha256:` + hex SHA-256 of the declaration's RFC 8785 (JCS) bytes. */
export function declarationDigest(decl: CapabilityDeclaration): string {
  const text = canonicalize(decl);
  if (text === undefined) throw invalid("", "no canonical JSON form");
  return "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
}
