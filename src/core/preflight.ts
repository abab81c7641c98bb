/**
 * core/preflight — the bounds check every intent contract passes before schema validation
 * (reference §1.2 step 2, ADR-0037 limits), plus the JSON-value helpers (paths, kinds,
 * UTF-8 lengths) that canonical.ts reuses with relaxed bounds.
 *
 * The walk is iterative on purpose: a hostile 100,000-deep array must be stopped by a
 * counter, not by a stack overflow that surfaces as an untyped RangeError. It is also linear
 * and bounded before it reads: a node deeper than the bound is refused before its members are
 * listed, children are counted against the node bound as they are queued, a string or key
 * longer than its byte bound is refused from its length before it is scanned, and paths are
 * parent links formatted only when an error is reported.
 *
 * Imports: core/errors only. identity.ts reaches this file through canonical.ts, so it must
 * never import taint.ts or contract.ts (layering rule "identity-never-sees-raw-model-arguments").
 */
import { ContractInvalidError, ErrorCode, IrrevonError, type ValueKind } from "./errors.js";

/** The bounds one walk enforces. `Infinity` switches a bound off. */
export interface JsonBounds {
  /** Deepest allowed node; the root is depth 0. */
  readonly maxDepth: number;
  /** Most nodes (containers and scalars) in the whole value. */
  readonly maxNodes: number;
  /** Longest string value, in UTF-8 bytes. */
  readonly maxStringBytes: number;
  /** Longest object key, in UTF-8 bytes. */
  readonly maxKeyBytes: number;
  /** Largest |integer| allowed. */
  readonly maxIntegerMagnitude: number;
  /** Running scalar budget (key/string bytes; bool/null 5; integer digits; float 24). */
  readonly maxScalarBudgetBytes: number;
  /**
   * Skip object members whose value is `undefined` (JSON.stringify semantics) instead of
   * refusing them. Off for contracts; on for digests of values built in code.
   */
  readonly omitUndefinedMembers: boolean;
  /** Refuse U+0000 in strings and keys (contracts: Postgres text/jsonb cannot store it). */
  readonly rejectNul?: boolean;
}

/** The intent-contract bounds of reference §1.2 step 2. */
export const CONTRACT_BOUNDS: JsonBounds = {
  maxDepth: 32,
  maxNodes: 10_000,
  maxStringBytes: 65_536,
  maxKeyBytes: 65_536,
  maxIntegerMagnitude: Number.MAX_SAFE_INTEGER,
  maxScalarBudgetBytes: 1_048_576,
  omitUndefinedMembers: false,
  rejectNul: true,
};

/** Stable names of the limits, reported as `details.limit`. */
export const PreflightLimit = {
  max_depth: "max_depth",
  max_nodes: "max_nodes",
  max_string_bytes: "max_string_bytes",
  max_key_bytes: "max_key_bytes",
  unicode_scalar: "unicode_scalar",
  safe_integer: "safe_integer",
  finite_number: "finite_number",
  scalar_budget_bytes: "scalar_budget_bytes",
  json_value: "json_value",
  string_key: "string_key",
  no_nul: "no_nul",
} as const;
export type PreflightLimit = (typeof PreflightLimit)[keyof typeof PreflightLimit];

/** What a successful walk measured. */
export interface PreflightStats {
  readonly nodes: number;
  readonly maxDepth: number;
  readonly scalarBudgetBytes: number;
}

/**
 * The runtime brand of a ModelTainted container. A registered symbol, so modules that must
 * not import taint.ts (identity, canonical) can still recognise and refuse tainted values.
 */
export const TAINT_MARK: unique symbol = Symbol.for("irrevon.model_tainted") as never;

/** True for a ModelTainted container (or anything that refuses to be inspected). */
export function isTaintMarked(value: unknown): boolean {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  try {
    return Reflect.get(value, TAINT_MARK) === true;
  } catch {
    // Something whose property reads throw cannot be read as plain JSON either; treat it as
    // tainted so no caller ever hashes or copies it.
    return true;
  }
}

/** Throws taint_violation: a tainted value reached code that reads JSON. */
export function refuseTainted(path: string): never {
  throw new IrrevonError(
    ErrorCode.taint_violation,
    `model-tainted value used as plain JSON at ${path}`,
    {
      details: { path, operation: "read_as_json" },
    },
  );
}

/** UTF-8 byte length of a JS string, or -1 if it holds a lone surrogate. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next < 0xdc00 || next > 0xdfff) return -1;
      bytes += 4;
      i += 1;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return -1;
    else bytes += 3;
  }
  return bytes;
}

/** Number of Unicode code points (JSON Schema's notion of string length). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

/** A segment of a JSON path: an object key or an array index. */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Keys longer than this are shortened in paths (a 64 KiB key would make a 64 KiB path). */
const PATH_KEY_MAX_UNITS = 256;
const PATH_KEY_SHOWN_UNITS = 64;

/** `$`, `$.parameters.items[3].sku`, `$["odd key"]`; very long keys are shortened. */
export function formatJsonPath(segments: readonly PathSegment[]): string {
  let out = "$";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (IDENTIFIER.test(segment) && segment.length <= PATH_KEY_SHOWN_UNITS)
      out += `.${segment}`;
    else {
      const shown =
        segment.length <= PATH_KEY_MAX_UNITS
          ? segment
          : `${segment.slice(0, PATH_KEY_SHOWN_UNITS)}…(${segment.length} units)`;
      out += `[${JSON.stringify(shown)}]`;
    }
  }
  return out;
}

/** True for `{}`-style objects: prototype Object.prototype or null, never a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The JSON kind of a value, as reported in contract errors; never triggers taint traps. */
export function valueKindOf(value: unknown): ValueKind {
  if (value === null) return "null";
  if (isTaintMarked(value)) return "other";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return Number.isInteger(value) ? "integer" : "number";
    case "boolean":
      return "boolean";
    case "object":
      return isPlainObject(value) ? "object" : "other";
    case "undefined":
      return "undefined";
    case "bigint":
    case "symbol":
    case "function":
      break;
  }
  return "other";
}

interface PathNode {
  readonly parent: PathNode | null;
  readonly segment: PathSegment;
}

interface Pending {
  readonly value: unknown;
  readonly depth: number;
  readonly path: PathNode | null;
}

function segmentsOf(node: PathNode | null): PathSegment[] {
  const segments: PathSegment[] = [];
  for (let n = node; n !== null; n = n.parent) segments.push(n.segment);
  return segments.reverse();
}

function pathOf(node: PathNode | null): string {
  return formatJsonPath(segmentsOf(node));
}

function reject(
  node: PathNode | null,
  limit: PreflightLimit,
  limitValue: number | string,
  value: unknown,
  what: string,
): never {
  const path = pathOf(node);
  throw new ContractInvalidError(
    `${what} at ${path} (limit ${limit}=${limitValue})`,
    path,
    limit,
    valueKindOf(value),
    {
      limit_value: limitValue,
    },
  );
}

function integerDigits(value: number): number {
  return String(Math.abs(value)).length;
}

/**
 * Walks `value` iteratively and throws a ContractInvalidError (path, limit, value kind) at
 * the first node, in document order, that breaks `bounds` or is not plain JSON: functions,
 * symbols, bigint, undefined, Dates, class instances, accessors, symbol keys and array holes
 * are all refused. A ModelTainted value raises taint_violation instead.
 */
export function preflight(value: unknown, bounds: JsonBounds = CONTRACT_BOUNDS): PreflightStats {
  const stack: Pending[] = [{ value, depth: 0, path: null }];
  let nodes = 0;
  let deepest = 0;
  let budget = 0;
  const spend = (bytes: number, at: PathNode | null, v: unknown): void => {
    budget += bytes;
    if (budget > bounds.maxScalarBudgetBytes) {
      reject(at, "scalar_budget_bytes", bounds.maxScalarBudgetBytes, v, "scalar budget exceeded");
    }
  };

  while (stack.length > 0) {
    const { value: v, depth, path } = stack.pop() as Pending;
    nodes += 1;
    if (depth > bounds.maxDepth) reject(path, "max_depth", bounds.maxDepth, v, "nesting too deep");
    if (nodes > bounds.maxNodes) reject(path, "max_nodes", bounds.maxNodes, v, "too many nodes");
    if (depth > deepest) deepest = depth;

    if (v === null) {
      spend(5, path, v);
      continue;
    }
    switch (typeof v) {
      case "boolean":
        spend(5, path, v);
        continue;
      case "number":
        if (!Number.isFinite(v)) reject(path, "finite_number", "finite", v, "non-finite number");
        if (Number.isInteger(v)) {
          if (Math.abs(v) > bounds.maxIntegerMagnitude) {
            reject(path, "safe_integer", bounds.maxIntegerMagnitude, v, "integer out of range");
          }
          spend(integerDigits(v), path, v);
        } else spend(24, path, v);
        continue;
      case "string": {
        // Every UTF-16 unit is at least one UTF-8 byte: a string longer in units than the
        // byte limit is refused from its length alone, before it is scanned.
        if (v.length > bounds.maxStringBytes)
          reject(path, "max_string_bytes", bounds.maxStringBytes, v, "string too long");
        const bytes = utf8ByteLength(v);
        if (bytes < 0)
          reject(path, "unicode_scalar", "no lone surrogates", v, "lone surrogate in string");
        // Postgres text and jsonb cannot hold U+0000: refuse it here, naming the field,
        // instead of letting the database fail the write with a bare storage error.
        if (bounds.rejectNul === true && v.includes("\u0000"))
          reject(path, "no_nul", "no U+0000", v, "NUL character in string");
        if (bytes > bounds.maxStringBytes)
          reject(path, "max_string_bytes", bounds.maxStringBytes, v, "string too long");
        spend(bytes, path, v);
        continue;
      }
      case "undefined":
      case "bigint":
      case "symbol":
      case "function":
        return reject(path, "json_value", "plain JSON", v, `${typeof v} is not a JSON value`);
      case "object":
        break;
    }

    if (isTaintMarked(v)) refuseTainted(pathOf(path));
    const children: Pending[] = [];
    // Count queued nodes too, so a ten-million-element array is refused before it is queued.
    const admit = (child: PathNode, childValue: unknown): void => {
      if (nodes + stack.length + children.length + 1 > bounds.maxNodes) {
        reject(child, "max_nodes", bounds.maxNodes, childValue, "too many nodes");
      }
      children.push({ value: childValue, depth: depth + 1, path: child });
    };
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype)
        reject(path, "json_value", "plain JSON", v, "array subclass");
      for (let i = 0; i < v.length; i += 1) {
        const child = { parent: path, segment: i };
        if (!Object.prototype.hasOwnProperty.call(v, i))
          reject(child, "json_value", "plain JSON", undefined, "array hole");
        admit(child, v[i] as unknown);
      }
    } else {
      if (!isPlainObject(v)) reject(path, "json_value", "plain JSON", v, "not a plain object");
      if (Object.getOwnPropertySymbols(v).length > 0) {
        reject(path, "string_key", "string keys only", v, "symbol-keyed member");
      }
      for (const key of Object.keys(v)) {
        const child = { parent: path, segment: key };
        const descriptor = Object.getOwnPropertyDescriptor(v, key);
        if (descriptor === undefined || !("value" in descriptor)) {
          reject(child, "json_value", "plain JSON", undefined, "accessor property");
        }
        if (descriptor.value === undefined && bounds.omitUndefinedMembers) continue;
        if (key.length > bounds.maxKeyBytes)
          reject(child, "max_key_bytes", bounds.maxKeyBytes, key, "key too long");
        const keyBytes = utf8ByteLength(key);
        if (keyBytes < 0)
          reject(child, "unicode_scalar", "no lone surrogates", key, "lone surrogate in key");
        if (bounds.rejectNul === true && key.includes("\u0000"))
          reject(child, "no_nul", "no U+0000", key, "NUL character in key");
        if (keyBytes > bounds.maxKeyBytes)
          reject(child, "max_key_bytes", bounds.maxKeyBytes, key, "key too long");
        spend(keyBytes, child, key);
        admit(child, descriptor.value as unknown);
      }
    }
    // Reverse so the first child is popped first: errors are reported in document order.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as Pending);
  }
  return { nodes, maxDepth: deepest, scalarBudgetBytes: budget };
}
