/** canonical: JCS text/bytes/digests, and refusal of anything that is not plain I-JSON. */
import { describe, expect, it } from "vitest";
import {
  canonicalBytes,
  canonicalDigest,
  canonicalJson,
  isDigest,
  sha256Hex,
} from "../../src/core/canonical.js";
import { taint } from "../../src/core/taint.js";
import { expectCode, expectContractError } from "./helpers/contracts.js";

/** `[1, <hole>, 2]`, built without a sparse literal. */
function withHole(): unknown[] {
  const array: unknown[] = [1];
  array[2] = 2;
  return array;
}

describe("canonicalJson", () => {
  it("sorts members, drops whitespace and uses ECMAScript numbers", () => {
    expect(canonicalJson({ b: [1, 1e30, 4.5, -0, 0.002], a: { d: true, c: null } })).toBe(
      '{"a":{"c":null,"d":true},"b":[1,1e+30,4.5,0,0.002]}',
    );
  });

  it("bytes are the UTF-8 of the text", () => {
    expect(Buffer.from(canonicalBytes({ k: "é€😀" })).toString("hex")).toBe(
      Buffer.from('{"k":"é€😀"}').toString("hex"),
    );
  });

  it("omits undefined object members, as JSON.stringify does", () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(canonicalDigest({ a: 1, b: undefined })).toBe(canonicalDigest({ a: 1 }));
  });

  it("keeps an own __proto__ member as an ordinary key", () => {
    const value = JSON.parse('{"__proto__":"x","a":"y"}') as unknown;
    expect(canonicalJson(value)).toBe('{"__proto__":"x","a":"y"}');
  });

  it("digests are sha256:<64 hex>", () => {
    const digest = canonicalDigest({ probe_ids: [1] });
    expect(digest).toBe("sha256:b686e76dc0b9cc9fd079ac281029ec0282a4d643c099d68e5112297e3ed9e735");
    expect(isDigest(digest)).toBe(true);
    expect(isDigest("sha256:ABC")).toBe(false);
  });

  it("sha256Hex hashes strings as UTF-8 and refuses lone surrogates", () => {
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(sha256Hex(new TextEncoder().encode("abc"))).toBe(sha256Hex("abc"));
    expectContractError(() => sha256Hex("a\ud800"), { path: "$", limit: "unicode_scalar" });
  });

  it.each([
    ["undefined array item", [1, undefined], "$[1]", "json_value"],
    ["array hole", withHole(), "$[1]", "json_value"],
    ["Date (would call toJSON)", { a: new Date(0) }, "$.a", "json_value"],
    ["lone surrogate (would be escaped)", { a: "\udc00" }, "$.a", "unicode_scalar"],
    ["NaN", [Number.NaN], "$[0]", "finite_number"],
    ["function", { f: () => 1 }, "$.f", "json_value"],
    ["bigint", { n: 1n }, "$.n", "json_value"],
    ["root undefined", undefined, "$", "json_value"],
  ])("refuses %s", (_name, value, path, limit) => {
    expectContractError(() => canonicalJson(value), { path, limit });
  });

  it("refuses a cycle through the depth cap instead of overflowing the stack", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expectContractError(() => canonicalJson(cyclic), {
      path: `$${".self".repeat(1001)}`,
      limit: "max_depth",
    });
  });

  it("accepts numbers beyond the safe-integer range (JCS itself has no limit)", () => {
    expect(canonicalJson([1e30, 2 ** 80])).toBe("[1e+30,1.2089258196146292e+24]");
  });

  it("refuses a ModelTainted value with taint_violation", () => {
    expectCode(() => canonicalDigest(taint({ a: 1 })), "taint_violation");
    expectCode(() => canonicalDigest({ nested: [taint("x")] }), "taint_violation");
  });
});
