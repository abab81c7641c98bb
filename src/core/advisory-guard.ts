/**
 * core/advisory-guard — invariant I9: advisory similarity output never reaches the gate,
 * the ledger's write functions or resolution (reference §9, design gap 24 closed).
 *
 * This lives in core so the authority path can refuse advisory data WITHOUT importing
 * src/advisory (a layering rule forbids that, directly or indirectly). It recognises
 * advisory data structurally, at any depth, so a JSON-laundered copy is refused too:
 *  - an object carrying the `__irrevon_advisory__` marker key;
 *  - an instance whose class (or any ancestor class) is named `ClassifierProposal`;
 *  - an object with a `proposed_action` or `proposedAction` member.
 *
 * Imports: core/errors, core/preflight.
 */
import { ErrorCode, IrrevonError } from "./errors.js";
import { formatJsonPath, isTaintMarked, type PathSegment } from "./preflight.js";

/** The marker key `ClassifierProposal.toPayload()` adds to its payload. */
export const ADVISORY_MARKER = "__irrevon_advisory__";
/** The advisory type's class name, matched on the prototype chain. */
export const ADVISORY_CLASS_NAME = "ClassifierProposal";
const ADVISORY_KEYS: readonly string[] = [ADVISORY_MARKER, "proposed_action", "proposedAction"];

/** Why a value was recognised as advisory. */
export interface AdvisoryMatch {
  readonly path: string;
  readonly marker: string;
}

interface Visit {
  readonly value: object;
  readonly path: readonly PathSegment[];
}

function advisoryClassName(value: object): string | undefined {
  for (
    let proto: unknown = Object.getPrototypeOf(value);
    proto !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    if (typeof proto !== "object" && typeof proto !== "function") return undefined;
    // Read the descriptor, not the property: no getter of an unknown object runs here.
    const ctor: unknown = Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
    if (typeof ctor === "function" && ctor.name === ADVISORY_CLASS_NAME) return ctor.name;
  }
  return undefined;
}

function childrenOf(value: object, path: readonly PathSegment[]): Visit[] {
  const out: Visit[] = [];
  const push = (child: unknown, segment: PathSegment): void => {
    if ((typeof child === "object" || typeof child === "function") && child !== null) {
      out.push({ value: child, path: [...path, segment] });
    }
  };
  if (value instanceof Map) {
    let i = 0;
    for (const [k, v] of value) {
      push(k, `<map key ${i}>`);
      push(v, `<map value ${i}>`);
      i += 1;
    }
  } else if (value instanceof Set) {
    let i = 0;
    for (const v of value) push(v, `<set ${i++}>`);
  }
  for (const key of Object.getOwnPropertyNames(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor !== undefined && "value" in descriptor) {
      push(
        descriptor.value,
        Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key,
      );
    }
  }
  return out;
}

/**
 * Finds the first advisory marker in `value` (iterative, cycle-safe), or `undefined`.
 * ModelTainted containers are skipped: their contents were checked before tainting and
 * must not be read here.
 */
export function findAdvisory(value: unknown): AdvisoryMatch | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null)
    return undefined;
  const seen = new Set<object>();
  const queue: Visit[] = [{ value, path: [] }];
  while (queue.length > 0) {
    const { value: current, path } = queue.pop() as Visit;
    if (seen.has(current) || isTaintMarked(current)) continue;
    seen.add(current);
    const className = advisoryClassName(current);
    if (className !== undefined) return { path: formatJsonPath(path), marker: className };
    for (const key of ADVISORY_KEYS) {
      if (Object.prototype.hasOwnProperty.call(current, key)) {
        return { path: formatJsonPath([...path, key]), marker: key };
      }
    }
    const children = childrenOf(current, path);
    for (let i = children.length - 1; i >= 0; i -= 1) queue.push(children[i] as Visit);
  }
  return undefined;
}

/** True when `value` carries advisory data anywhere. */
export function isAdvisory(value: unknown): boolean {
  return findAdvisory(value) !== undefined;
}

/**
 * Throws `advisory_rejected` if `value` carries advisory data anywhere. Called on every
 * input of register, settle, attach-finding and resolve before anything else.
 */
export function rejectAdvisory(value: unknown): void {
  const match = findAdvisory(value);
  if (match === undefined) return;
  throw new IrrevonError(
    ErrorCode.advisory_rejected,
    `advisory output (${match.marker} at ${match.path}) cannot enter the authority path`,
    { details: { path: match.path, marker: match.marker } },
  );
}
