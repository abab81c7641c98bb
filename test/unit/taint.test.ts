/**
 * ModelTainted (reference §1.5): every implicit use JavaScript can intercept throws
 * taint_violation; inspection prints an opaque marker; revealForAdapter is the one exit;
 * deriving identity from a validated intent never touches the tainted parameters.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { validateIntentContract } from "../../src/core/contract.js";
import { deriveIdentity } from "../../src/core/identity.js";
import {
  isModelTainted,
  revealForAdapter,
  taint,
  type ModelTainted,
} from "../../src/core/taint.js";
import { V2_INTENT_ID, expectCode, validContract } from "./helpers/contracts.js";

const payload = { sku: "SKU-118", qty: 2, items: [1, 2] };

// `any` on purpose: each entry performs an operation the type system would rightly refuse.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const implicitUses: Array<[string, (t: any) => unknown]> = [
  ["String()", (t) => String(t)],
  ["template literal", (t) => `${t}`],
  ["string concatenation", (t) => "x" + t],
  ["unary plus", (t) => +t],
  ["loose equality with a primitive", (t) => t == "x"],
  ["relational comparison", (t) => t < 1],
  ["JSON.stringify", (t) => JSON.stringify(t)],
  ["JSON.stringify nested", (t) => JSON.stringify({ a: [t] })],
  ["toJSON()", (t) => t.toJSON()],
  ["toString()", (t) => t.toString()],
  ["valueOf()", (t) => t.valueOf()],
  ["Symbol.toPrimitive", (t) => t[Symbol.toPrimitive]],
  ["spread into array", (t) => [...t]],
  [
    "for..of",
    (t) => {
      for (const _ of t) return _;
    },
  ],
  ["Array.from", (t) => Array.from(t)],
  ["Object.keys", (t) => Object.keys(t)],
  ["Object.entries", (t) => Object.entries(t)],
  ["Object.values", (t) => Object.values(t)],
  ["Reflect.ownKeys", (t) => Reflect.ownKeys(t)],
  [
    "for..in",
    (t) => {
      for (const k in t) return k;
    },
  ],
  ["object spread", (t) => ({ ...t })],
  ["Object.assign", (t) => Object.assign({}, t)],
  ["in", (t) => "sku" in t],
  ["property read", (t) => t.sku],
  ["index read", (t) => t[0]],
  ["length", (t) => t.length],
  [
    "property write",
    (t) => {
      t.sku = "x";
    },
  ],
  ["delete", (t) => delete t.sku],
  ["defineProperty", (t) => Object.defineProperty(t, "x", { value: 1 })],
  ["getOwnPropertyDescriptor", (t) => Object.getOwnPropertyDescriptor(t, "sku")],
  ["getPrototypeOf", (t) => Object.getPrototypeOf(t)],
  ["instanceof", (t) => t instanceof Object],
  ["Object.freeze", (t) => Object.freeze(t)],
  ["Object.isFrozen", (t) => Object.isFrozen(t)],
  ["Object.prototype.toString", (t) => Object.prototype.toString.call(t)],
  ["hasOwnProperty", (t) => Object.prototype.hasOwnProperty.call(t, "sku")],
];

describe("ModelTainted implicit uses", () => {
  it.each(implicitUses)("%s throws taint_violation", (_name, use) => {
    const tainted = taint(payload);
    const error = expectCode(() => use(tainted), "taint_violation");
    expect(JSON.stringify(error.details)).not.toContain("SKU-118");
    expect(error.message).not.toContain("SKU-118");
  });

  it("a tainted string payload is just as opaque", () => {
    const tainted = taint("secret model text");
    expectCode(() => String(tainted), "taint_violation");
    expectCode(() => `${tainted as unknown as string}`, "taint_violation");
  });

  it("util.inspect and console-style formatting print an opaque marker without throwing", () => {
    const tainted = taint(payload);
    expect(inspect(tainted)).toBe("ModelTainted(<opaque>)");
    expect(inspect({ parameters: tainted })).toBe("{ parameters: ModelTainted(<opaque>) }");
    expect(inspect(tainted, { showProxy: true })).not.toContain("SKU-118");
  });

  it("identity checks, typeof, truthiness and Map keys work (JS has no hook; nothing leaks)", () => {
    const tainted = taint(payload);
    expect(tainted === tainted).toBe(true);
    expect(typeof tainted).toBe("object");
    expect(Boolean(tainted)).toBe(true);
    expect(new Map([[tainted, 1]]).get(tainted)).toBe(1);
  });

  it("can travel through promises unopened", async () => {
    const tainted = taint(payload);
    const passed = await Promise.resolve(tainted);
    expect(passed === tainted).toBe(true);
  });
});

describe("the sanctioned exit", () => {
  it("revealForAdapter returns the payload", () => {
    const tainted: ModelTainted<typeof payload> = taint(payload);
    expect(revealForAdapter(tainted)).toBe(payload);
    expect(isModelTainted(tainted)).toBe(true);
    expect(isModelTainted(payload)).toBe(false);
  });

  it("revealForAdapter refuses anything else", () => {
    expectCode(
      () => revealForAdapter(payload as unknown as ModelTainted<unknown>),
      "taint_violation",
    );
  });
});

describe("identity never trips taint", () => {
  it("validating a contract and deriving identity never opens the parameters", () => {
    const intent = validateIntentContract({
      ...validContract(),
      parameters: { effect_type: "spoof", stable_ids: { a: "b" } },
    });
    expect(intent.identity.intentId).toBe(V2_INTENT_ID);
    const again = deriveIdentity({
      effect_type: intent.effectType,
      scope: intent.scope,
      stable_ids: intent.stableIds,
    });
    expect(again.intentId).toBe(V2_INTENT_ID);
  });

  it("a validated intent cannot be serialised implicitly (its parameters are tainted)", () => {
    const intent = validateIntentContract(validContract());
    expectCode(() => JSON.stringify(intent), "taint_violation");
    expect(inspect(intent)).toContain("ModelTainted(<opaque>)");
  });
});
