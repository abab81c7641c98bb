/**
 * The four external identity conformance vectors (reference §1.6): produced by four
 * independent JCS implementations, never regenerated from this code.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  canonicalBytes,
  canonicalDigest,
  canonicalJson,
  sha256Hex,
} from "../../src/core/canonical.js";
import { deriveIdentity, type IdentityTuple } from "../../src/core/identity.js";
import { V2_INTENT_ID } from "./helpers/contracts.js";

const dir = join(import.meta.dirname, "..", "fixtures", "identity-vectors");
const expected = JSON.parse(readFileSync(join(dir, "expected-digests.json"), "utf8")) as Record<
  string,
  string
>;
const vector = (name: string): unknown => JSON.parse(readFileSync(join(dir, name), "utf8"));
const names = Object.keys(expected).filter((k) => k.endsWith(".json"));

describe("identity vectors", () => {
  it("has all four vectors", () => {
    expect(names.sort()).toEqual([
      "v1-rfc8785-appendix.json",
      "v2-intent-tuple.json",
      "v3-key-order-scrambled.json",
      "v4-unicode-sorting.json",
    ]);
  });

  it.each(names)("%s reproduces its digest", (name) => {
    expect(sha256Hex(canonicalBytes(vector(name)))).toBe(expected[name]);
    expect(canonicalDigest(vector(name))).toBe(`sha256:${expected[name]}`);
  });

  it("v2 canonical bytes are exact", () => {
    const bytes =
      '{"effect_type":"order.create","scope":"acme-store/prod","stable_ids":{"customer_ref":"C-0007","order_id":"9410"}}';
    expect(canonicalJson(vector("v2-intent-tuple.json"))).toBe(bytes);
    expect(Buffer.from(canonicalBytes(vector("v2-intent-tuple.json"))).toString("utf8")).toBe(
      bytes,
    );
  });

  it("v3 (v2 permuted) canonicalises to the same bytes as v2", () => {
    expect(canonicalJson(vector("v3-key-order-scrambled.json"))).toBe(
      canonicalJson(vector("v2-intent-tuple.json")),
    );
    expect(expected["v3-key-order-scrambled.json"]).toBe(expected["v2-intent-tuple.json"]);
  });

  it("v4 sorts keys by UTF-16 code units", () => {
    const text = canonicalJson(vector("v4-unicode-sorting.json"));
    const order = ["A", "a", "\u007f", "\u00e9", "\u20ac", "\u{1F600}"].map((k) =>
      text.indexOf(`"${k}":`),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
  });

  it("sorts U+10000 (surrogates D800..) before U+E000, unlike code-point order", () => {
    expect(canonicalJson({ "\ue000": 1, "\u{10000}": 2 })).toBe('{"\u{10000}":2,"\ue000":1}');
  });

  it("the intent id of the v2 tuple is the v2 digest", () => {
    const identity = deriveIdentity(vector("v2-intent-tuple.json") as IdentityTuple);
    expect(identity.intentId).toBe(V2_INTENT_ID);
    expect(identity.intentId).toBe(expected["v2-intent-tuple.json"]);
    expect(identity.identityVersion).toBe(1);
    expect(sha256Hex(identity.canonical)).toBe(identity.intentId);
  });
});
