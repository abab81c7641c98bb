/** identity: input rules, operation ids, idempotency keys, the D4 collision guard, taint refusal. */
import { describe, expect, it } from "vitest";
import {
  IDENTITY_VERSION,
  assertNoIdentityCollision,
  deriveIdentity,
  idempotencyKey,
  isIntentId,
  isOperationId,
  operationId,
  parseOperationId,
  preimageMatches,
  type IdentityTuple,
} from "../../src/core/identity.js";
import { taint } from "../../src/core/taint.js";
import { V2_INTENT_ID, expectCode, expectContractError } from "./helpers/contracts.js";

const v2: IdentityTuple = {
  effect_type: "order.create",
  scope: "acme-store/prod",
  stable_ids: { order_id: "9410", customer_ref: "C-0007" },
};

describe("deriveIdentity", () => {
  it("returns id, exact preimage and version 1", () => {
    const identity = deriveIdentity(v2);
    expect(identity).toEqual({
      intentId: V2_INTENT_ID,
      canonical:
        '{"effect_type":"order.create","scope":"acme-store/prod","stable_ids":{"customer_ref":"C-0007","order_id":"9410"}}',
      identityVersion: 1,
    });
    expect(IDENTITY_VERSION).toBe(1);
    expect(Object.isFrozen(identity)).toBe(true);
  });

  it("hashes values byte-exact: no trimming, case folding or normalisation", () => {
    const ids = [
      deriveIdentity(v2).intentId,
      deriveIdentity({ ...v2, scope: "acme-store/prod " }).intentId,
      deriveIdentity({ ...v2, scope: "ACME-store/prod" }).intentId,
      deriveIdentity({ ...v2, stable_ids: { order_id: "e\u0301", customer_ref: "C-0007" } })
        .intentId,
      deriveIdentity({ ...v2, stable_ids: { order_id: "\u00e9", customer_ref: "C-0007" } })
        .intentId,
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    ["empty effect_type", { ...v2, effect_type: "" }, "$.effect_type", "min_length"],
    ["empty scope", { ...v2, scope: "" }, "$.scope", "min_length"],
    ["empty stable_ids", { ...v2, stable_ids: {} }, "$.stable_ids", "min_properties"],
    ["empty stable-id key", { ...v2, stable_ids: { "": "x" } }, '$[""]', "min_length"],
    ["empty stable-id value", { ...v2, stable_ids: { a: "" } }, "$.stable_ids.a", "min_length"],
    ["null stable-id value", { ...v2, stable_ids: { a: null } }, "$.stable_ids.a", "type"],
    ["numeric effect_type", { ...v2, effect_type: 7 }, "$.effect_type", "type"],
    ["missing scope", { effect_type: "x", stable_ids: { a: "b" } }, "$.scope", "type"],
    ["array stable_ids", { ...v2, stable_ids: ["a"] }, "$.stable_ids", "type"],
    ["lone surrogate", { ...v2, scope: "\ud800" }, "$.scope", "unicode_scalar"],
  ])("refuses %s", (_name, tuple, path, limit) => {
    const expectedPath = path === '$[""]' ? '$.stable_ids[""]' : path;
    expectContractError(() => deriveIdentity(tuple as unknown as IdentityTuple), {
      path: expectedPath,
      limit,
    });
  });

  it("refuses a ModelTainted value anywhere in the tuple at run time", () => {
    const smuggle = (t: unknown): IdentityTuple => t as IdentityTuple;
    expectCode(() => deriveIdentity(smuggle(taint(v2))), "taint_violation");
    expectCode(
      () => deriveIdentity(smuggle({ ...v2, stable_ids: taint(v2.stable_ids) })),
      "taint_violation",
    );
    expectCode(
      () => deriveIdentity(smuggle({ ...v2, scope: taint("acme-store/prod") })),
      "taint_violation",
    );
    expectCode(
      () => deriveIdentity(smuggle({ ...v2, stable_ids: { order_id: taint("9410") } })),
      "taint_violation",
    );
  });

  it("a ModelTainted value does not type-check as identity input", () => {
    const tainted = taint(v2);
    const check = (): void => {
      // @ts-expect-error — ModelTainted carries a brand IdentityTuple forbids.
      deriveIdentity(tainted);
      // @ts-expect-error — a tainted stable_ids is not a record of strings.
      deriveIdentity({ ...v2, stable_ids: taint(v2.stable_ids) });
      // @ts-expect-error — a tainted member is not a string.
      deriveIdentity({ ...v2, scope: taint("x") });
      // @ts-expect-error — a record whose stable-id values are tainted is refused too.
      deriveIdentity({ ...v2, stable_ids: { order_id: taint("9410") } });
    };
    expect(check).toBeTypeOf("function");
  });
});

describe("operation ids and idempotency keys", () => {
  it("operation id is <intent_id>:<step>", () => {
    expect(operationId(V2_INTENT_ID, 0)).toBe(`${V2_INTENT_ID}:0`);
    expect(operationId(V2_INTENT_ID, 12)).toBe(`${V2_INTENT_ID}:12`);
    expect(parseOperationId(`${V2_INTENT_ID}:12`)).toEqual({ intentId: V2_INTENT_ID, step: 12 });
    expect(isOperationId(`${V2_INTENT_ID}:0`)).toBe(true);
    expect(isIntentId(V2_INTENT_ID)).toBe(true);
    expect(isIntentId(V2_INTENT_ID.toUpperCase())).toBe(false);
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])("refuses step %s", (step) => {
    expectContractError(() => operationId(V2_INTENT_ID, step), {
      path: "$.step",
      limit: "safe_integer",
    });
  });

  it("refuses a malformed intent id", () => {
    expectContractError(() => operationId("abc", 0), { path: "$.intent_id", limit: "pattern" });
  });

  it("the idempotency key is the operation id verbatim, validated", () => {
    const op = operationId(V2_INTENT_ID, 3);
    expect(idempotencyKey(op)).toBe(op);
    for (const bad of [
      `${V2_INTENT_ID}:01`,
      `${V2_INTENT_ID}:-1`,
      `${V2_INTENT_ID}`,
      `${V2_INTENT_ID.toUpperCase()}:0`,
      `${V2_INTENT_ID}:99999999999999999999`,
    ]) {
      expectContractError(() => idempotencyKey(bad), { path: "$.operation_id", limit: "pattern" });
      expect(isOperationId(bad)).toBe(false);
    }
  });
});

describe("collision guard (D4)", () => {
  const identity = deriveIdentity(v2);

  it("the stored preimage re-hashes to its id", () => {
    expect(preimageMatches(identity.intentId, identity.canonical)).toBe(true);
    expect(preimageMatches(identity.intentId, `${identity.canonical} `)).toBe(false);
  });

  it("same id with a different preimage is identity_collision", () => {
    const error = expectCode(
      () => assertNoIdentityCollision(identity, { intentId: identity.intentId, canonical: "{}" }),
      "identity_collision",
    );
    expect(error.details["intent_id"]).toBe(identity.intentId);
  });

  it("same id and preimage, or different ids, pass", () => {
    expect(() => assertNoIdentityCollision(identity, { ...identity })).not.toThrow();
    const other = deriveIdentity({ ...v2, scope: "other" });
    expect(() => assertNoIdentityCollision(identity, other)).not.toThrow();
  });
});
