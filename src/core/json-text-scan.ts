/**
 * core/json-text-scan — one linear pass over raw JSON text, run BEFORE `JSON.parse`, that
 * refuses what the parser would silently accept or spend unbounded work on:
 *  - nesting deeper than a bound (a 16 MiB document of `[` is 8 million levels; `JSON.parse`
 *    would build all of them before any bound could apply);
 *  - a member name repeated in one object (`JSON.parse` keeps the last one silently, so the
 *    document a person reviewed is not the one we act on). Names compare after unescaping:
 *    `"a"` and `"\u0061"` are the same member.
 *
 * Why hand-written: no parser among our runtime dependencies reports duplicate names, the
 * JSON.parse reviver only sees the last value, and a new dependency for ~100 lines of scanning
 * is not worth its supply chain. The scanner does NOT validate syntax: it only tracks strings
 * and brackets, and the caller still parses with `JSON.parse`, which reports syntax errors.
 * Every character is read once; each open object keeps one Set of its names.
 *
 * Imports: core/errors, core/preflight.
 */
import { ContractInvalidError } from "./errors.js";
import { formatJsonPath, type PathSegment } from "./preflight.js";

/** What the scan enforces. */
export interface JsonTextScanBounds {
  /** Deepest container allowed; the root is depth 0 (the same counting as preflight). */
  readonly maxDepth: number;
}

interface Frame {
  readonly isObject: boolean;
  readonly names: Set<string> | null;
  /** Objects: the current member name (or null before the first). Arrays: the current index. */
  current: PathSegment | null;
  /** Objects: true while the next string is a member name. */
  expectName: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function pathOf(frames: readonly Frame[], count = frames.length): string {
  const segments: PathSegment[] = [];
  for (let i = 0; i < count; i += 1) {
    const segment = frames[i]?.current;
    if (segment !== null && segment !== undefined) segments.push(segment);
  }
  return formatJsonPath(segments);
}

/** Index just past the string that opens at `start` (or `text.length` if it never closes). */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    if (unit === BACKSLASH) i += 2;
    else if (unit === QUOTE) return i + 1;
    else i += 1;
  }
  return text.length;
}

function decodeName(token: string): string {
  if (!token.includes("\\")) return token.slice(1, -1);
  try {
    const decoded: unknown = JSON.parse(token);
    return typeof decoded === "string" ? decoded : token;
  } catch {
    return token; // malformed: JSON.parse of the whole document reports it
  }
}

/**
 * Scans `text`. Throws ContractInvalidError `max_depth` at the path of the first container
 * deeper than `bounds.maxDepth`. Returns the first repeated member name as a ready
 * ContractInvalidError `duplicate_key` (path of the member, `details.key` the decoded name),
 * or null; the caller throws it once `JSON.parse` has found the syntax valid, so a broken
 * document is reported as a syntax error first.
 */
export function scanJsonText(
  text: string,
  bounds: JsonTextScanBounds,
): ContractInvalidError | null {
  let duplicate: ContractInvalidError | null = null;
  const frames: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (unit === QUOTE) {
      const end = endOfString(text, i);
      if (top?.isObject === true && top.expectName) {
        const name = decodeName(text.slice(i, end));
        top.current = name;
        top.expectName = false;
        if (duplicate === null && top.names?.has(name) === true) {
          const path = pathOf(frames);
          duplicate = new ContractInvalidError(
            `duplicate member name at ${path}`,
            path,
            "duplicate_key",
            "string",
            { key: name, limit_value: "unique member names" },
          );
        }
        top.names?.add(name);
      }
      i = end;
      continue;
    }
    if (unit === 0x7b || unit === 0x5b) {
      // `{` or `[`: a new container at depth frames.length.
      if (frames.length > bounds.maxDepth) {
        const path = pathOf(frames);
        throw new ContractInvalidError(
          `nesting too deep at ${path} (limit max_depth=${bounds.maxDepth})`,
          path,
          "max_depth",
          unit === 0x7b ? "object" : "array",
          { limit_value: bounds.maxDepth },
        );
      }
      const isObject = unit === 0x7b;
      frames.push({
        isObject,
        names: isObject ? new Set<string>() : null,
        current: isObject ? null : 0,
        expectName: isObject,
      });
    } else if (unit === 0x7d || unit === 0x5d) {
      frames.pop();
    } else if (unit === 0x2c && top !== undefined) {
      // `,`: the next member name, or the next array index.
      if (top.isObject) top.expectName = true;
      else top.current = (top.current as number) + 1;
    }
    i += 1;
  }
  return duplicate;
}
