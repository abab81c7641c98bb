/**
 * core/contract-schema — the closed intent contract of reference §1.1 as data plus checks:
 * every member, its limits, `additionalProperties: false`, and the `boundedJson` rules for
 * `parameters`. Written by hand rather than with a schema library so each limit has a
 * stable name (`details.limit`), strings are measured in code points as JSON Schema does,
 * and a `"__proto__"` member is checked like any other key.
 *
 * Runs after preflight (so every value here is plain, bounded JSON) and reports every issue,
 * not just the first. Imports: core/errors, core/preflight, core/rfc3339, core/state-tables.
 */
import type { ValueKind } from "./errors.js";
import {
  codePointLength,
  formatJsonPath,
  isPlainObject,
  valueKindOf,
  type PathSegment,
} from "./preflight.js";
import { DATE_TIME_RANGE, rfc3339Problem } from "./rfc3339.js";
import { EFFECT_CLASSES } from "./state-tables.js";

/** One schema failure. `path` is a formatted JSON path (`$.stable_ids.order_id`). */
export interface ContractIssue {
  readonly path: string;
  readonly message: string;
  readonly limit: string;
  readonly limitValue: string | number;
  readonly valueKind: ValueKind;
}

/** The limits of reference §1.1, by name (also rendered in docs). */
export const CONTRACT_LIMITS = {
  schemaVersion: "1",
  stableIdsMinProperties: 1,
  stableIdsMaxProperties: 32,
  stableIdKeyMaxChars: 128,
  stableIdValueMaxChars: 512,
  effectTypeMaxChars: 256,
  scopeMaxChars: 512,
  adapterIdMaxChars: 256,
  authorityRefMaxChars: 512,
  branchRefMaxChars: 512,
  parametersMaxProperties: 256,
  boundedJsonMaxProperties: 256,
  boundedJsonMaxItems: 10_000,
  boundedJsonMaxStringChars: 65_536,
  boundedJsonMaxNumberMagnitude: Number.MAX_SAFE_INTEGER,
} as const;

type Check = (value: unknown, at: readonly PathSegment[], issues: ContractIssue[]) => void;

function issue(
  issues: ContractIssue[],
  at: readonly PathSegment[],
  value: unknown,
  limit: string,
  limitValue: string | number,
  message: string,
): void {
  issues.push({
    path: formatJsonPath(at),
    message,
    limit,
    limitValue,
    valueKind: valueKindOf(value),
  });
}

function expectType(
  value: unknown,
  at: readonly PathSegment[],
  issues: ContractIssue[],
  type: ValueKind,
): boolean {
  const kind = valueKindOf(value);
  const ok = kind === type || (type === "number" && kind === "integer");
  if (!ok) issue(issues, at, value, "type", type, `expected ${type}, got ${kind}`);
  return ok;
}

function stringWithin(min: number, max: number): Check {
  return (value, at, issues) => {
    if (!expectType(value, at, issues, "string")) return;
    const chars = codePointLength(value as string);
    if (chars < min)
      issue(issues, at, value, "min_length", min, `must be at least ${min} character(s)`);
    if (chars > max)
      issue(issues, at, value, "max_length", max, `must be at most ${max} characters`);
  };
}

function constant(expected: string): Check {
  return (value, at, issues) => {
    if (value !== expected)
      issue(issues, at, value, "const", expected, `must be ${JSON.stringify(expected)}`);
  };
}

function oneOf(allowed: readonly string[]): Check {
  return (value, at, issues) => {
    if (typeof value !== "string" || !allowed.includes(value)) {
      issue(issues, at, value, "enum", allowed.join("|"), `must be one of ${allowed.join(", ")}`);
    }
  };
}

const dateTime: Check = (value, at, issues) => {
  if (!expectType(value, at, issues, "string")) return;
  const problem = rfc3339Problem(value);
  if (problem === "format")
    issue(issues, at, value, "format", "date-time", "must be an RFC 3339 date-time");
  if (problem === "range")
    issue(issues, at, value, "date_time_range", DATE_TIME_RANGE, "must lie in years 0001-9999 UTC");
};

function propertyCount(
  value: Record<string, unknown>,
  at: readonly PathSegment[],
  issues: ContractIssue[],
  min: number,
  max: number,
): void {
  const count = Object.keys(value).length;
  if (count < min)
    issue(issues, at, value, "min_properties", min, `must have at least ${min} member(s)`);
  if (count > max)
    issue(issues, at, value, "max_properties", max, `must have at most ${max} members`);
}

const stableIdKey = stringWithin(1, CONTRACT_LIMITS.stableIdKeyMaxChars);
const stableIdValue = stringWithin(1, CONTRACT_LIMITS.stableIdValueMaxChars);

const stableIds: Check = (value, at, issues) => {
  if (!expectType(value, at, issues, "object")) return;
  const members = value as Record<string, unknown>;
  propertyCount(
    members,
    at,
    issues,
    CONTRACT_LIMITS.stableIdsMinProperties,
    CONTRACT_LIMITS.stableIdsMaxProperties,
  );
  for (const key of Object.keys(members)) {
    const keyIssues: ContractIssue[] = [];
    stableIdKey(key, [...at, key], keyIssues);
    // A key failure is about the name, so say so (the value kind reported is the key's).
    for (const k of keyIssues) issues.push({ ...k, limit: `property_name.${k.limit}` });
    stableIdValue(members[key], [...at, key], issues);
  }
};

interface PathNode {
  readonly parent: PathNode | null;
  readonly segment: PathSegment;
}

function segmentsOf(node: PathNode): PathSegment[] {
  const segments: PathSegment[] = [];
  for (let n: PathNode | null = node; n !== null; n = n.parent) segments.push(n.segment);
  return segments.reverse();
}

/**
 * `boundedJson` below `parameters`, walked iteratively: objects ≤256 members, arrays
 * ≤10,000 items, strings ≤65,536 characters, numbers within ±(2^53−1). Preflight already
 * bounded depth and node count; paths are parent links, materialised only for an issue, so
 * the walk is linear in the nodes it reads.
 */
const parameters: Check = (value, at, issues) => {
  if (!expectType(value, at, issues, "object")) return;
  const root: PathNode = { parent: null, segment: at[0] ?? "parameters" };
  const queue: Array<{ value: unknown; at: PathNode }> = [{ value, at: root }];
  while (queue.length > 0) {
    const { value: v, at: node } = queue.pop() as { value: unknown; at: PathNode };
    if (Array.isArray(v)) {
      if (v.length > CONTRACT_LIMITS.boundedJsonMaxItems) {
        issue(
          issues,
          segmentsOf(node),
          v,
          "max_items",
          CONTRACT_LIMITS.boundedJsonMaxItems,
          "array too long",
        );
      }
      for (let i = 0; i < v.length; i += 1)
        queue.push({ value: v[i] as unknown, at: { parent: node, segment: i } });
    } else if (isPlainObject(v)) {
      const keys = Object.keys(v);
      if (keys.length > CONTRACT_LIMITS.boundedJsonMaxProperties) {
        propertyCount(v, segmentsOf(node), issues, 0, CONTRACT_LIMITS.boundedJsonMaxProperties);
      }
      for (const key of keys) {
        const child: PathNode = { parent: node, segment: key };
        if (codePointLength(key) > CONTRACT_LIMITS.boundedJsonMaxStringChars) {
          issue(
            issues,
            segmentsOf(child),
            key,
            "property_name.max_length",
            CONTRACT_LIMITS.boundedJsonMaxStringChars,
            "key too long",
          );
        }
        queue.push({ value: v[key], at: child });
      }
    } else if (typeof v === "string") {
      if (codePointLength(v) > CONTRACT_LIMITS.boundedJsonMaxStringChars) {
        issue(
          issues,
          segmentsOf(node),
          v,
          "max_length",
          CONTRACT_LIMITS.boundedJsonMaxStringChars,
          "string too long",
        );
      }
    } else if (typeof v === "number") {
      if (Math.abs(v) > CONTRACT_LIMITS.boundedJsonMaxNumberMagnitude) {
        issue(
          issues,
          segmentsOf(node),
          v,
          "maximum",
          CONTRACT_LIMITS.boundedJsonMaxNumberMagnitude,
          "number out of range",
        );
      }
    }
  }
};

interface FieldRule {
  readonly required: boolean;
  readonly check: Check;
}

/** The closed member list of §1.1, in the order the table gives them. */
export const CONTRACT_FIELDS: Readonly<Record<string, FieldRule>> = {
  schema_version: { required: true, check: constant(CONTRACT_LIMITS.schemaVersion) },
  stable_ids: { required: true, check: stableIds },
  effect_type: { required: true, check: stringWithin(1, CONTRACT_LIMITS.effectTypeMaxChars) },
  scope: { required: true, check: stringWithin(1, CONTRACT_LIMITS.scopeMaxChars) },
  effect_class: { required: true, check: oneOf(EFFECT_CLASSES) },
  adapter_id: { required: true, check: stringWithin(1, CONTRACT_LIMITS.adapterIdMaxChars) },
  parameters: { required: true, check: parameters },
  authority_ref: { required: true, check: stringWithin(1, CONTRACT_LIMITS.authorityRefMaxChars) },
  stamped_at: { required: true, check: dateTime },
  branch_ref: { required: false, check: stringWithin(1, CONTRACT_LIMITS.branchRefMaxChars) },
  event_time: { required: false, check: dateTime },
};

/**
 * Checks a preflighted plain object against the closed contract. Returns every issue,
 * sorted by path (stable for equal paths); `[]` means valid.
 */
export function checkContractSchema(contract: Record<string, unknown>): ContractIssue[] {
  const issues: ContractIssue[] = [];
  for (const [name, rule] of Object.entries(CONTRACT_FIELDS)) {
    const present = Object.prototype.hasOwnProperty.call(contract, name);
    if (!present) {
      if (rule.required)
        issue(issues, [name], undefined, "required", name, "required member is missing");
      continue;
    }
    rule.check(contract[name], [name], issues);
  }
  for (const key of Object.keys(contract)) {
    if (!Object.prototype.hasOwnProperty.call(CONTRACT_FIELDS, key)) {
      issue(
        issues,
        [key],
        contract[key],
        "additional_properties",
        "false",
        "undeclared member (model output may only ride in parameters)",
      );
    }
  }
  return issues
    .map((x, order) => ({ x, order }))
    .sort((a, b) => (a.x.path < b.x.path ? -1 : a.x.path > b.x.path ? 1 : a.order - b.order))
    .map(({ x }) => x);
}
