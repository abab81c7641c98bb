/**
 * workbench/query-params — the filters of the effects and findings lists, parsed strictly:
 * an unknown parameter, a repeated single-valued one, a value outside its closed set, a bad
 * timestamp, limit or cursor is a `query_invalid` answer naming the parameter (never echoing
 * its value, which could be anything a user pasted). Enumerated filters take several values,
 * repeated (`lifecycle=A&lifecycle=B`) or comma-separated. An empty value means "not given",
 * which is what an HTML form sends for "any". Imports: core, workbench.
 */
import { isRfc3339 } from "../core/rfc3339.js";
import {
  CLASSIFICATIONS,
  EFFECT_CLASSES,
  LIFECYCLE_STATES,
  RESOLUTION_STATUSES,
} from "../core/state-tables.js";
import { decodeEffectsCursor, decodeFindingsCursor, type EffectsCursor } from "./cursor.js";
import { workbenchError, WorkbenchErrorCode, type WorkbenchError } from "./http-errors.js";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

/** A parse result: the value, or the answer to send. */
export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: WorkbenchError };

/** Classification filter values: the five classes plus UNRECONCILED (no finding yet). */
export const CLASSIFICATION_FILTER_VALUES: readonly string[] = [...CLASSIFICATIONS, "UNRECONCILED"];

export interface EffectsQuery {
  readonly scope?: string | undefined;
  readonly lifecycle?: readonly string[] | undefined;
  readonly classification?: readonly string[] | undefined;
  readonly effectType?: string | undefined;
  readonly effectClass?: readonly string[] | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly limit: number;
  readonly cursor?: EffectsCursor | undefined;
}

export interface FindingsQuery {
  readonly classification?: readonly string[] | undefined;
  readonly resolutionStatus?: readonly string[] | undefined;
  readonly subjectEffectId?: string | undefined;
  readonly adapter?: string | undefined;
  readonly destinationRef?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly limit: number;
  readonly cursor?: number | undefined;
}

/** Longest parameter name echoed back; a hostile name cannot bloat the answer. */
const MAX_NAME_ECHO = 64;

function invalid(name: string, message: string): { ok: false; error: WorkbenchError } {
  const parameter = name.length > MAX_NAME_ECHO ? `${name.slice(0, MAX_NAME_ECHO)}…` : name;
  return {
    ok: false,
    error: workbenchError(
      WorkbenchErrorCode.query_invalid,
      `query parameter '${parameter}' ${message}`,
      { parameter },
    ),
  };
}

type Spec =
  | { readonly kind: "text"; readonly maxChars: number }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "time" }
  | { readonly kind: "limit" }
  | { readonly kind: "effect_id" }
  | { readonly kind: "cursor" };

type Values = Record<string, string | readonly string[] | number>;

const EFFECT_ID = /^[0-9a-f]{64}$/;

function parseOne(
  name: string,
  spec: Spec,
  raw: readonly string[],
): Parsed<string | readonly string[] | number> {
  if (spec.kind === "enum") {
    const values = raw.flatMap((v) => v.split(",")).filter((v) => v !== "");
    if (values.some((v) => !spec.values.includes(v)))
      return invalid(name, `must be one of ${spec.values.join(", ")}`);
    return { ok: true, value: [...new Set(values)] };
  }
  if (raw.length > 1) return invalid(name, "may be given once");
  const value = raw[0] ?? "";
  switch (spec.kind) {
    case "text":
      return value.length > spec.maxChars
        ? invalid(name, `must be at most ${spec.maxChars} characters`)
        : { ok: true, value };
    case "time":
      return isRfc3339(value)
        ? { ok: true, value }
        : invalid(name, "must be an RFC 3339 date-time");
    case "limit": {
      if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1)
        return invalid(
          name,
          `must be an integer from 1 (larger values are clamped to ${MAX_LIMIT})`,
        );
      return { ok: true, value: Math.min(Number(value), MAX_LIMIT) };
    }
    case "effect_id":
      return EFFECT_ID.test(value)
        ? { ok: true, value }
        : invalid(name, "must be 64 lowercase hex characters");
    case "cursor":
      return { ok: true, value };
  }
}

function parseAll(params: URLSearchParams, specs: Readonly<Record<string, Spec>>): Parsed<Values> {
  const out: Values = {};
  for (const name of new Set(params.keys())) {
    const spec = specs[name];
    if (spec === undefined) return invalid(name, "is not a known filter");
    const raw = params.getAll(name).filter((v) => v !== "");
    if (raw.length === 0) continue;
    const parsed = parseOne(name, spec, raw);
    if (!parsed.ok) return parsed;
    if (!Array.isArray(parsed.value) || parsed.value.length > 0) out[name] = parsed.value;
  }
  return { ok: true, value: out };
}

const TEXT_512: Spec = { kind: "text", maxChars: 512 };
const TEXT_256: Spec = { kind: "text", maxChars: 256 };

const EFFECT_SPECS: Readonly<Record<string, Spec>> = {
  scope: TEXT_512,
  lifecycle: { kind: "enum", values: LIFECYCLE_STATES },
  classification: { kind: "enum", values: CLASSIFICATION_FILTER_VALUES },
  effect_type: TEXT_256,
  effect_class: { kind: "enum", values: EFFECT_CLASSES },
  from: { kind: "time" },
  to: { kind: "time" },
  limit: { kind: "limit" },
  cursor: { kind: "cursor" },
};

const FINDING_SPECS: Readonly<Record<string, Spec>> = {
  classification: { kind: "enum", values: CLASSIFICATIONS },
  resolution_status: { kind: "enum", values: RESOLUTION_STATUSES },
  subject_effect_id: { kind: "effect_id" },
  adapter: TEXT_256,
  destination_ref: TEXT_512,
  from: { kind: "time" },
  to: { kind: "time" },
  limit: { kind: "limit" },
  cursor: { kind: "cursor" },
};

const str = (v: Values[string] | undefined): string | undefined =>
  typeof v === "string" ? v : undefined;
const list = (v: Values[string] | undefined): readonly string[] | undefined =>
  Array.isArray(v) ? (v as readonly string[]) : undefined;

/** Parses the effects-list filters. */
export function parseEffectsQuery(params: URLSearchParams): Parsed<EffectsQuery> {
  const parsed = parseAll(params, EFFECT_SPECS);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  const cursorText = str(v["cursor"]);
  const cursor = cursorText === undefined ? undefined : decodeEffectsCursor(cursorText);
  if (cursor === null) return invalid("cursor", "is not a cursor this server issued");
  return {
    ok: true,
    value: {
      scope: str(v["scope"]),
      lifecycle: list(v["lifecycle"]),
      classification: list(v["classification"]),
      effectType: str(v["effect_type"]),
      effectClass: list(v["effect_class"]),
      from: str(v["from"]),
      to: str(v["to"]),
      limit: typeof v["limit"] === "number" ? v["limit"] : DEFAULT_LIMIT,
      cursor,
    },
  };
}

/** Parses the findings-list filters. */
export function parseFindingsQuery(params: URLSearchParams): Parsed<FindingsQuery> {
  const parsed = parseAll(params, FINDING_SPECS);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  const cursorText = str(v["cursor"]);
  const cursor = cursorText === undefined ? undefined : decodeFindingsCursor(cursorText);
  if (cursor === null) return invalid("cursor", "is not a cursor this server issued");
  return {
    ok: true,
    value: {
      classification: list(v["classification"]),
      resolutionStatus: list(v["resolution_status"]),
      subjectEffectId: str(v["subject_effect_id"]),
      adapter: str(v["adapter"]),
      destinationRef: str(v["destination_ref"]),
      from: str(v["from"]),
      to: str(v["to"]),
      limit: typeof v["limit"] === "number" ? v["limit"] : DEFAULT_LIMIT,
      cursor,
    },
  };
}

/** No parameters at all (detail pages, adapters, health): anything given is unknown. */
export function parseNoQuery(params: URLSearchParams): Parsed<null> {
  for (const name of params.keys()) return invalid(name, "is not a known parameter");
  return { ok: true, value: null };
}
