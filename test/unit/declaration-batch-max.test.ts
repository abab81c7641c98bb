/**
 * `queryable.batch_max` in capability declarations and in defineAdapter: the loader accepts
 * 2..1000 (or absent/null, which is dropped so the digest is that of a declaration without the
 * field), refuses anything else naming the field, the allowed values and the fix, and refuses
 * it on a destination that cannot be queried; defineAdapter turns `findBatch` into
 * `statusQueryBatch` under the single find's guards and refuses batch_max without findBatch
 * (and findBatch without batch_max).
 */
import { describe, expect, it } from "vitest";
import type { QueryKey } from "../../src/adapters/contract.js";
import { declarationDigest, loadDeclaration } from "../../src/adapters/declaration.js";
import { defineAdapter, type AdapterDefinition } from "../../src/adapters/define-adapter.js";
import { IrrevonError } from "../../src/core/errors.js";

const C2 = {
  adapter: "acme-c2",
  destination: "acme",
  api_version: "v1",
  tier: "C2",
  idempotency: { supported: false, window: null, replay_semantics: null },
  queryable: { supported: true, by: ["destination_ref", "client_ref"] },
  client_ref_field: "metadata.ref",
  list_queryable: false,
  consistency: { status_settlement_lag: "PT0S", listing_lag: null },
  citations: ["https://docs.example.com/api"],
  evidence_quality: "EI",
} as const;

function refusal(run: () => unknown): IrrevonError {
  try {
    run();
  } catch (e) {
    if (e instanceof IrrevonError) return e;
    throw e;
  }
  throw new Error("accepted");
}
const withBatch = (batch: unknown, queryable: object = C2.queryable) => ({
  ...C2,
  queryable: { ...queryable, batch_max: batch },
});

describe("loadDeclaration: queryable.batch_max", () => {
  it("accepts 2..1000; absent and null are one declaration with one digest", () => {
    expect(loadDeclaration(withBatch(2)).queryable.batch_max).toBe(2);
    expect(loadDeclaration(withBatch(1000)).queryable.batch_max).toBe(1000);
    const absent = loadDeclaration(C2);
    const nulled = loadDeclaration(withBatch(null));
    expect(nulled).toEqual(absent);
    expect(declarationDigest(nulled)).toBe(declarationDigest(absent));
    expect(declarationDigest(loadDeclaration(withBatch(50)))).not.toBe(declarationDigest(absent));
  });

  it.each([1, 0, 1001, 2.5, "10", true, -3])("refuses %j naming the field and the range", (v) => {
    const e = refusal(() => loadDeclaration(withBatch(v)));
    expect(e.code).toBe("declaration_invalid");
    expect(e.details["field"]).toBe("/queryable/batch_max");
    expect(String(e.details["allowed"])).toContain("2..1000");
    expect(typeof e.details["fix"]).toBe("string");
  });

  it("refuses batch_max on a destination that cannot be queried", () => {
    const e = refusal(() =>
      loadDeclaration({
        ...C2,
        tier: "C3",
        client_ref_field: null,
        consistency: { status_settlement_lag: null, listing_lag: null },
        queryable: { supported: false, by: [], batch_max: 10 },
      }),
    );
    expect([e.code, e.details["field"]]).toEqual(["declaration_invalid", "/queryable/batch_max"]);
  });
});

const ok = () =>
  Promise.resolve({ transportOutcome: "OK" as const, destinationRef: "d1", evidence: {} });
const DECL = {
  adapter: "acme-c2",
  destination: "acme",
  api_version: "v1",
  tier: "C2" as const,
  client_ref_field: "metadata.ref",
  citations: ["https://docs.example.com/api"] as const,
};
const keys: QueryKey[] = [
  { kind: "destination_ref", value: "d1" },
  { kind: "client_ref", value: "op-2" },
  { kind: "destination_ref", value: "d3" },
];

describe("defineAdapter: findBatch", () => {
  const base = {
    create: ok,
    findByDestinationRef: () => Promise.resolve({ result: "ABSENT" as const }),
    findByClientRef: () => Promise.resolve({ result: "ABSENT" as const }),
  };

  it("declares batch_max and answers through statusQueryBatch, each answer guarded", async () => {
    const seen: number[] = [];
    const a = defineAdapter({
      ...base,
      declaration: { ...DECL, queryable: { batch_max: 3 } },
      findBatch: (ks) => {
        seen.push(ks.length);
        return Promise.resolve([
          { result: "PRESENT" }, // by destination ref: the ref asked for is used
          { result: "ABSENT", destinationRefs: ["x"] }, // contradicts itself
          { result: "ABSENT" },
        ]);
      },
    });
    expect(a.declare().queryable).toEqual({
      supported: true,
      by: ["destination_ref", "client_ref"],
      batch_max: 3,
    });
    const out = await a.statusQueryBatch?.(keys, 1000);
    expect(seen).toEqual([3]);
    expect(out?.map((r) => [r.result, r.nFound, r.destinationRefs])).toEqual([
      ["PRESENT", 1, ["d1"]],
      ["INDETERMINATE", null, []],
      ["ABSENT", 0, []],
    ]);
  });

  it("a findBatch that throws or answers the wrong number is INDETERMINATE for every key", async () => {
    for (const findBatch of [
      () => Promise.reject(new Error("down")),
      () => Promise.resolve([{ result: "ABSENT" as const }]),
    ]) {
      const a = defineAdapter({
        ...base,
        declaration: { ...DECL, queryable: { batch_max: 10 } },
        findBatch,
      });
      const out = await a.statusQueryBatch?.(keys, 1000);
      expect(out?.map((r) => r.result)).toEqual([
        "INDETERMINATE",
        "INDETERMINATE",
        "INDETERMINATE",
      ]);
    }
  });

  it("refuses more keys than batch_max and undeclared keys before calling findBatch", async () => {
    let called = 0;
    const a = defineAdapter({
      ...base,
      declaration: { ...DECL, queryable: { batch_max: 2 } },
      findBatch: () => {
        called += 1;
        return Promise.resolve([]);
      },
    });
    await expect(a.statusQueryBatch?.(keys, 1000)).rejects.toMatchObject({
      code: "usage",
      details: { limit: 2 },
    });
    await expect(
      a.statusQueryBatch?.([{ kind: "stable_id", name: "n", value: "1" }], 1000),
    ).rejects.toMatchObject({ code: "capability_unsupported" });
    expect(called).toBe(0);
  });

  it("without findBatch the adapter offers no statusQueryBatch", () => {
    expect(defineAdapter({ ...base, declaration: DECL }).statusQueryBatch).toBeUndefined();
  });

  it("refuses batch_max without findBatch, and findBatch without batch_max, naming the field", () => {
    const noFn = refusal(() =>
      defineAdapter({ ...base, declaration: { ...DECL, queryable: { batch_max: 10 } } }),
    );
    expect([noFn.code, noFn.details["field"]]).toEqual(["config_invalid", "findBatch"]);
    const noMax = refusal(() =>
      defineAdapter({
        ...base,
        declaration: DECL,
        findBatch: () => Promise.resolve([]),
      } as AdapterDefinition),
    );
    expect([noMax.code, noMax.details["field"]]).toEqual([
      "config_invalid",
      "declaration.queryable.batch_max",
    ]);
    // An out-of-range batch_max goes through the loader's rule.
    const range = refusal(() =>
      defineAdapter({
        ...base,
        declaration: { ...DECL, queryable: { batch_max: 5000 } },
        findBatch: () => Promise.resolve([]),
      }),
    );
    expect([range.code, range.details["field"]]).toEqual([
      "declaration_invalid",
      "/queryable/batch_max",
    ]);
  });
});
