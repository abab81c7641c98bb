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
 * The walk is bounded before it starts (depth and node count, see {@link findAdvisory}): it runs
 * on raw input before any other check, so it must never be the thing a hostile value stalls.
 *
 * Imports: core/errors, core/preflight.
 */
import { ContractInvalidError, ErrorCode, IrrevonError } from "./errors.js";
import { formatJsonPath, isTaintMarked, valueKindOf, type PathSegment } from "./preflight.js";

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

/** The bounds the advisory walk enforces before it reads a node (see {@link findAdvisory}). */
export interface AdvisoryWalkBounds {
  /** Deepest node read; the root is depth 0. */
  readonly maxDepth: number;
  /** Most nodes (containers, entries and scalars) read in the whole value. */
  readonly maxNodes: number;
}

/**
 * Bounds for evidence, decisions and other non-contract inputs: far above anything the engine
 * builds, far below what would stall the event loop (contracts use CONTRACT_BOUNDS).
 */
export const EVIDENCE_WALK_BOUNDS: AdvisoryWalkBounds = { maxDepth: 64, maxNodes: 100_000 };

interface Visit {
  readonly value: object;
  readonly depth: number;
  /** Linked to the parent's path: a path is built only when reported, never copied per node. */
  readonly path: PathNode | null;
}

interface PathNode {
  readonly parent: PathNode | null;
  readonly segment: PathSegment;
}

function formatPath(node: PathNode | null, last?: PathSegment): string {
  const segments: PathSegment[] = last === undefined ? [] : [last];
  for (let n = node; n !== null; n = n.parent) segments.push(n.segment);
  return formatJsonPath(segments.reverse());
}

function refuse(
  bounds: AdvisoryWalkBounds,
  limit: "max_depth" | "max_nodes",
  path: PathNode | null,
  value: unknown,
): never {
  const where = formatPath(path);
  const limitValue = limit === "max_depth" ? bounds.maxDepth : bounds.maxNodes;
  throw new ContractInvalidError(
    `${limit === "max_depth" ? "nesting too deep" : "too many nodes"} at ${where} (limit ${limit}=${limitValue})`,
    where,
    limit,
    valueKindOf(value),
    { limit_value: limitValue },
  );
}

/** Prototype hops examined per object: a longer chain is not something a proposal builds. */
const MAX_PROTOTYPE_HOPS = 32;

function advisoryClassName(value: object): string | undefined {
  let proto: unknown = Object.getPrototypeOf(value);
  for (let hop = 0; proto !== null && hop < MAX_PROTOTYPE_HOPS; hop += 1) {
    if (typeof proto !== "object" && typeof proto !== "function") return undefined;
    // Read the descriptor, not the property: no getter of an unknown object runs here.
    const ctor: unknown = Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
    if (typeof ctor === "function" && ctor.name === ADVISORY_CLASS_NAME) return ctor.name;
    proto = Object.getPrototypeOf(proto);
  }
  return undefined;
}

const INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Finds the first advisory marker in `value`, or `undefined`. The walk is iterative,
 * cycle-safe and bounded BEFORE it reads anything: every child is counted against
 * `bounds.maxNodes` as it is queued (so a ten-million-element array is refused before it is
 * walked) and a node deeper than `bounds.maxDepth` is refused before its members are listed
 * (so a 100,000-deep value costs O(maxDepth) reads). A refusal is ContractInvalidError
 * `max_depth` / `max_nodes` with the path of the offending node. Paths are parent links,
 * formatted only when reported: the work is linear in the nodes read.
 *
 * ModelTainted containers are skipped: their contents were checked before tainting and must
 * not be read here.
 */
export function findAdvisory(
  value: unknown,
  bounds: AdvisoryWalkBounds = EVIDENCE_WALK_BOUNDS,
): AdvisoryMatch | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null)
    return undefined;
  const seen = new Set<object>();
  const stack: Visit[] = [{ value, depth: 0, path: null }];
  let nodes = 1;
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop() as Visit;
    if (depth > bounds.maxDepth) refuse(bounds, "max_depth", path, current);
    if (seen.has(current) || isTaintMarked(current)) continue;
    seen.add(current);
    const className = advisoryClassName(current);
    if (className !== undefined) return { path: formatPath(path), marker: className };
    for (const key of ADVISORY_KEYS) {
      if (Object.prototype.hasOwnProperty.call(current, key)) {
        return { path: formatPath(path, key), marker: key };
      }
    }
    const children: Visit[] = [];
    const admit = (child: unknown, segment: PathSegment): void => {
      // Every child counts, scalars included, exactly as preflight counts them.
      nodes += 1;
      const at = { parent: path, segment };
      if (nodes > bounds.maxNodes) refuse(bounds, "max_nodes", at, child);
      if ((typeof child === "object" || typeof child === "function") && child !== null) {
        children.push({ value: child, depth: depth + 1, path: at });
      }
    };
    if (current instanceof Map) {
      if (nodes + 2 * current.size > bounds.maxNodes) refuse(bounds, "max_nodes", path, current);
      let i = 0;
      for (const [k, v] of current) {
        admit(k, `<map key ${i}>`);
        admit(v, `<map value ${i}>`);
        i += 1;
      }
    } else if (current instanceof Set) {
      if (nodes + current.size > bounds.maxNodes) refuse(bounds, "max_nodes", path, current);
      let i = 0;
      for (const v of current) admit(v, `<set ${i++}>`);
    }
    if (Array.isArray(current) && nodes + current.length > bounds.maxNodes) {
      // Refused from the length alone, before millions of index names are listed, at the
      // first item past the budget (the item preflight would name).
      const first = bounds.maxNodes - nodes;
      refuse(bounds, "max_nodes", { parent: path, segment: first }, current[first] as unknown);
    }
    for (const key of Object.getOwnPropertyNames(current)) {
      const descriptor = Object.getOwnPropertyDescriptor(current, key);
      if (descriptor !== undefined && "value" in descriptor) {
        if (Array.isArray(current) && key === "length") continue;
        const isIndex = Array.isArray(current) && INDEX.test(key);
        admit(descriptor.value, isIndex ? Number(key) : key);
      }
    }
    // Reverse so the first child is read first: refusals are reported in document order.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as Visit);
  }
  return undefined;
}

/** True when `value` carries advisory data anywhere. */
export function isAdvisory(
  value: unknown,
  bounds: AdvisoryWalkBounds = EVIDENCE_WALK_BOUNDS,
): boolean {
  return findAdvisory(value, bounds) !== undefined;
}

/**
 * Throws `advisory_rejected` if `value` carries advisory data anywhere, or
 * `contract_invalid` (`max_depth` / `max_nodes`) if `value` is beyond `bounds` before any
 * marker was found. Called on every input of register, settle, attach-finding and resolve
 * before anything else.
 */
export function rejectAdvisory(
  value: unknown,
  bounds: AdvisoryWalkBounds = EVIDENCE_WALK_BOUNDS,
): void {
  const match = findAdvisory(value, bounds);
  if (match === undefined) return;
  throw new IrrevonError(
    ErrorCode.advisory_rejected,
    `advisory output (${match.marker} at ${match.path}) cannot enter the authority path`,
    { details: { path: match.path, marker: match.marker } },
  );
}
