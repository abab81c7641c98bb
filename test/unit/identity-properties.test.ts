/**
 * Identity properties (issue 3 item 3, invariant I1), ≥1,000 cases each in CI:
 * permutation invariance; parameters, event_time, authority and model text never change
 * ids; any change of an identity member changes the id; separator injection stays distinct.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateIntentContract } from "../../src/core/contract.js";
import { deriveIdentity, operationId, type IdentityTuple } from "../../src/core/identity.js";
import {
  NUM_RUNS,
  dateTimeText,
  identityTuple,
  parametersArb,
  permute,
  text,
  validContract,
  type TupleSample,
} from "./helpers/contracts.js";

const idOf = (tuple: TupleSample | IdentityTuple): string => deriveIdentity(tuple).intentId;

function contractFor(tuple: TupleSample, extra: Record<string, unknown>): Record<string, unknown> {
  return { ...validContract(), ...tuple, ...extra };
}

describe("identity properties", () => {
  it("is invariant under member and stable-id key order", () => {
    fc.assert(
      fc.property(
        identityTuple,
        fc.array(fc.integer(), { minLength: 1, maxLength: 8 }),
        (tuple, order) => {
          const shuffledIds = Object.fromEntries(permute(Object.entries(tuple.stable_ids), order));
          const members = permute(
            [
              ["stable_ids", shuffledIds],
              ["scope", tuple.scope],
              ["effect_type", tuple.effect_type],
            ] as Array<[string, unknown]>,
            order,
          );
          const reordered = Object.fromEntries(members) as unknown as IdentityTuple;
          expect(idOf(reordered)).toBe(idOf(tuple));
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("parameters, event_time, authority, adapter, class, branch and model text never change ids", () => {
    const nonIdentity = fc.record(
      {
        parameters: parametersArb,
        event_time: dateTimeText,
        authority_ref: text(),
        stamped_at: dateTimeText,
        adapter_id: text(),
        effect_class: fc.constantFrom("IDEMPOTENT", "REVERSIBLE", "COMPENSABLE", "IRREVERSIBLE"),
        branch_ref: text(),
      },
      { requiredKeys: ["parameters"] },
    );
    fc.assert(
      fc.property(identityTuple, nonIdentity, nonIdentity, (tuple, a, b) => {
        const first = validateIntentContract(contractFor(tuple, a));
        const second = validateIntentContract(contractFor(tuple, b));
        expect(first.identity).toEqual(second.identity);
        expect(first.identity.intentId).toBe(idOf(tuple));
        expect(operationId(first.identity.intentId, 0)).toBe(
          operationId(second.identity.intentId, 0),
        );
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("model text that mimics identity members inside parameters changes nothing", () => {
    fc.assert(
      fc.property(identityTuple, identityTuple, (tuple, mimic) => {
        const intent = validateIntentContract(
          contractFor(tuple, { parameters: { ...mimic, stable_ids: mimic.stable_ids } }),
        );
        expect(intent.identity.intentId).toBe(idOf(tuple));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("extra members on the tuple argument are never hashed", () => {
    fc.assert(
      fc.property(identityTuple, parametersArb, (tuple, junk) => {
        const withExtras = { ...tuple, parameters: junk, event_time: "2026-01-01T00:00:00Z" };
        expect(idOf(withExtras)).toBe(idOf(tuple));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("any change of an identity member changes the id", () => {
    const change = fc.oneof(
      fc.record({ kind: fc.constant("effect_type" as const), to: text() }),
      fc.record({ kind: fc.constant("scope" as const), to: text() }),
      fc.record({ kind: fc.constant("value" as const), to: text(), at: fc.nat() }),
      fc.record({ kind: fc.constant("rename" as const), to: text(12), at: fc.nat() }),
      fc.record({ kind: fc.constant("add" as const), to: text(12), value: text() }),
      fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(identityTuple, change, (tuple, c) => {
        const ids = { ...tuple.stable_ids };
        const keys = Object.keys(ids);
        const key = keys[("at" in c ? c.at : 0) % keys.length] as string;
        const next: TupleSample = { ...tuple, stable_ids: ids };
        switch (c.kind) {
          case "effect_type":
            fc.pre(c.to !== tuple.effect_type);
            next.effect_type = c.to;
            break;
          case "scope":
            fc.pre(c.to !== tuple.scope);
            next.scope = c.to;
            break;
          case "value":
            fc.pre(c.to !== ids[key]);
            ids[key] = c.to;
            break;
          case "rename": {
            fc.pre(!(c.to in tuple.stable_ids));
            const value = ids[key] as string;
            delete ids[key];
            Object.defineProperty(ids, c.to, {
              value,
              enumerable: true,
              writable: true,
              configurable: true,
            });
            break;
          }
          case "add":
            fc.pre(!Object.prototype.hasOwnProperty.call(ids, c.to));
            Object.defineProperty(ids, c.to, {
              value: c.value,
              enumerable: true,
              writable: true,
              configurable: true,
            });
            break;
          case "remove":
            fc.pre(keys.length > 1);
            delete ids[key];
            break;
        }
        expect(idOf(next)).not.toBe(idOf(tuple));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("separator injection stays distinct (examples)", () => {
    const base = { effect_type: "order.create", scope: "acme-store/prod" };
    expect(idOf({ ...base, stable_ids: { a: "b:c" } })).not.toBe(
      idOf({ ...base, stable_ids: { "a:b": "c" } }),
    );
    expect(idOf({ effect_type: "a:b", scope: "c", stable_ids: { k: "v" } })).not.toBe(
      idOf({ effect_type: "a", scope: "b:c", stable_ids: { k: "v" } }),
    );
    expect(idOf({ ...base, stable_ids: { a: "b", c: "d" } })).not.toBe(
      idOf({ ...base, stable_ids: { a: 'b","c":"d' } }),
    );
  });

  it("separator injection stays distinct (property)", () => {
    const sep = fc.constantFrom(":", "/", "|", ",", '"', "=", "\u0000", ".");
    fc.assert(
      fc.property(text(8), text(8), text(8), sep, (a, b, c, s) => {
        const base = { effect_type: "e", scope: "s" };
        expect(idOf({ ...base, stable_ids: { [a]: b + s + c } })).not.toBe(
          idOf({ ...base, stable_ids: { [a + s + b]: c } }),
        );
        expect(idOf({ effect_type: a + s + b, scope: c, stable_ids: { k: "v" } })).not.toBe(
          idOf({ effect_type: a, scope: b + s + c, stable_ids: { k: "v" } }),
        );
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
