/**
 * Key choice for status queries (D7): strongest first — client ref (only with a stamp field
 * AND query support), then the receipt's destination ref, then declared stable-id
 * projections — and only keys the declaration lists; none ⇒ no covering key.
 */
import { describe, expect, it } from "vitest";
import type { CapabilityDeclaration } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { coveringKeys, sameKeys, strongestKey } from "../../src/engine/reconcile-keys.js";

const OP = `${"b".repeat(64)}:0`;
const C2 = refdestDeclaration("C2");

function decl(
  by: CapabilityDeclaration["queryable"]["by"],
  clientRefField: string | null = "client_ref",
): CapabilityDeclaration {
  return { ...C2, queryable: { supported: by.length > 0, by }, client_ref_field: clientRefField };
}

describe("reconcile keys", () => {
  it("orders client_ref, destination_ref, then stable-id projections", () => {
    const keys = coveringKeys(
      decl(["stable_id:order_id", "destination_ref", "client_ref"]),
      OP,
      "dest_1",
      { order_id: "9410" },
    );
    expect(keys.map((k) => k.strength)).toEqual(["client_ref", "destination_ref", "stable_id"]);
    expect(keys[2]?.key).toEqual({ kind: "stable_id", name: "order_id", value: "9410" });
  });

  it("uses only keys the destination supports (an EasyPost-like destination has no client_ref query)", () => {
    expect(strongestKey(decl(["destination_ref"], "reference"), OP, "dest_1", {})?.key).toEqual({
      kind: "destination_ref",
      value: "dest_1",
    });
    expect(strongestKey(decl(["destination_ref"], "reference"), OP, null, {})).toBeNull();
  });

  it("needs a stamp field for client_ref and a matching stable id for a projection", () => {
    expect(
      strongestKey(
        { ...decl([]), queryable: { supported: true, by: ["client_ref"] }, client_ref_field: null },
        OP,
        null,
        {},
      ),
    ).toBeNull();
    expect(strongestKey(decl(["stable_id:invoice_id"]), OP, null, { order_id: "1" })).toBeNull();
    expect(strongestKey(refdestDeclaration("C3"), OP, "dest_1", {})).toBeNull();
  });

  it("compares stored key sets canonically", () => {
    expect(sameKeys([{ kind: "client_ref", value: OP }], [{ value: OP, kind: "client_ref" }])).toBe(
      true,
    );
    expect(
      sameKeys([{ kind: "client_ref", value: OP }], [{ kind: "destination_ref", value: OP }]),
    ).toBe(false);
  });
});
