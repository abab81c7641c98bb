/**
 * core/taint — the ModelTainted container for model-written arguments (reference §1.5).
 *
 * A tainted value is a Proxy over an empty box; the payload lives in a module-private
 * WeakMap. Every implicit use JavaScript lets us intercept throws `taint_violation`: string
 * conversion, template literals, `toJSON`/JSON.stringify, `Symbol.toPrimitive`/`valueOf`/
 * `toString` (so `==`, `+`, `<` too), iteration, spreading, `Object.keys/entries`, `for..in`,
 * `in`, `instanceof`, property reads and writes. `util.inspect` and `console.log` print
 * `ModelTainted(<opaque>)` without throwing. The one sanctioned exit is `revealForAdapter`.
 *
 * What JavaScript offers no hook for, and so cannot throw: `===`, `typeof`, truthiness, and
 * use as a Map/Set/WeakMap key (identity, not content). None of those reveals the payload.
 * Two reads answer without throwing because they reveal nothing: the registered TAINT_MARK
 * (so identity code can refuse the value) and `then` (so promises can carry it).
 *
 * Imports: core/errors, core/preflight (for the registered TAINT_MARK symbol).
 */
import { ErrorCode, IrrevonError } from "./errors.js";
import { TAINT_MARK } from "./preflight.js";

declare const taintedPayload: unique symbol;

/**
 * Model-written data that must not flow anywhere implicitly. The string-keyed brand makes
 * it unassignable to identity inputs (IdentityTuple declares `__irrevon_model_tainted?:
 * never`); the phantom symbol member keeps `T` in the type.
 */
export interface ModelTainted<T> {
  readonly __irrevon_model_tainted: true;
  readonly [taintedPayload]: T;
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");
const OPAQUE = "ModelTainted(<opaque>)";

/** The proxy target: holds nothing but the inspect hook (Node inspects a proxy's target). */
class TaintedBox {
  [INSPECT](): string {
    return OPAQUE;
  }
}

const payloads = new WeakMap<object, unknown>();

function describeKey(key: string | symbol): string {
  return typeof key === "symbol" ? (key.description ?? "symbol") : key;
}

function violation(operation: string, key?: string | symbol): never {
  const property = key === undefined ? undefined : describeKey(key);
  throw new IrrevonError(
    ErrorCode.taint_violation,
    `model-tainted value used implicitly (${operation}${property === undefined ? "" : ` ${property}`}); ` +
      "only an adapter may reveal it",
    { details: property === undefined ? { operation } : { operation, property } },
  );
}

const handler: ProxyHandler<TaintedBox> = {
  get(_target, key) {
    // The registered mark lets identity and canonical refuse tainted values without
    // importing this module; it reveals nothing about the payload.
    if (key === TAINT_MARK) return true;
    // Promise resolution probes `then`; answering "not a thenable" lets a tainted value pass
    // through async code unopened instead of rejecting every promise that carries it.
    if (key === "then") return undefined;
    return violation("get", key);
  },
  set: (_t, key) => violation("set", key),
  has: (_t, key) => violation("has", key),
  deleteProperty: (_t, key) => violation("deleteProperty", key),
  defineProperty: (_t, key) => violation("defineProperty", key),
  ownKeys: () => violation("ownKeys"),
  getOwnPropertyDescriptor: (_t, key) => violation("getOwnPropertyDescriptor", key),
  getPrototypeOf: () => violation("getPrototypeOf"),
  setPrototypeOf: () => violation("setPrototypeOf"),
  isExtensible: () => violation("isExtensible"),
  preventExtensions: () => violation("preventExtensions"),
};

/** Wraps model-written data. The caller should not keep (or later mutate) its own reference. */
export function taint<T>(value: T): ModelTainted<T> {
  const proxy = new Proxy(new TaintedBox(), handler);
  payloads.set(proxy, value);
  return proxy as unknown as ModelTainted<T>;
}

/** True for a value made by `taint` (checks identity only; triggers no trap). */
export function isModelTainted(value: unknown): value is ModelTainted<unknown> {
  return typeof value === "object" && value !== null && payloads.has(value);
}

/**
 * The one sanctioned exit: an adapter building its destination payload reads the
 * model-written arguments here. Nothing on the identity path may call it.
 */
export function revealForAdapter<T>(tainted: ModelTainted<T>): T {
  if (!isModelTainted(tainted)) {
    throw new IrrevonError(
      ErrorCode.taint_violation,
      "revealForAdapter needs a ModelTainted value",
      {
        details: { operation: "reveal" },
      },
    );
  }
  return payloads.get(tainted) as T;
}
