/**
 * Shared test helpers for the pure core: a valid intent contract, the fast-check run count,
 * arbitraries for identity tuples and bounded JSON, and an assertion on contract errors.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { ContractInvalidError, IrrevonError, type ErrorCode } from "../../../src/core/errors.js";

/** ≥1,000 cases per property in CI (house style), fewer locally. */
export const NUM_RUNS = process.env["CI"] ? 1000 : 200;

/** The v2 vector's intent id. */
export const V2_INTENT_ID = "0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5";

/** A valid contract for the v2 tuple (fresh object each call). */
export function validContract(): Record<string, unknown> {
  return {
    schema_version: "1",
    stable_ids: { order_id: "9410", customer_ref: "C-0007" },
    effect_type: "order.create",
    scope: "acme-store/prod",
    effect_class: "IRREVERSIBLE",
    adapter_id: "refdest-c2",
    parameters: {
      line_items: [{ sku: "SKU-118", quantity: 2 }],
      shipping_method: "standard",
      note: "please deliver to the loading dock",
    },
    authority_ref: "auth_approved_task_18",
    stamped_at: "2026-01-15T09:30:00Z",
  };
}

/** Runs `fn` and returns the IrrevonError it throws (fails the test if it does not throw one). */
export function thrown(fn: () => unknown): IrrevonError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(IrrevonError);
    return error as IrrevonError;
  }
  expect.fail("expected an IrrevonError to be thrown");
}

/** Expects an IrrevonError with `code`. */
export function expectCode(fn: () => unknown, code: ErrorCode): IrrevonError {
  const error = thrown(fn);
  expect(error.code).toBe(code);
  return error;
}

/** Expects a ContractInvalidError at `path` for `limit`, optionally with the value kind. */
export function expectContractError(
  fn: () => unknown,
  expected: { path: string; limit: string; kind?: string },
): ContractInvalidError {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(ContractInvalidError);
  expect(error.code).toBe("contract_invalid");
  expect(error.details["path"]).toEqual(expected.path);
  expect(error.details["limit"]).toBe(expected.limit);
  if (expected.kind !== undefined) expect(error.details["value_kind"]).toBe(expected.kind);
  return error as ContractInvalidError;
}

/** Contracts cannot carry U+0000 (Postgres text cannot store it; preflight refuses it). */
const withoutNul = (s: string): string => s.replaceAll("\u0000", "\u0001");

/** Any well-formed Unicode text without U+0000, non-empty. */
export const text = (maxLength = 24): fc.Arbitrary<string> =>
  fc.string({ unit: "binary", minLength: 1, maxLength }).map(withoutNul);

/** Any well-formed Unicode text without U+0000, possibly empty. */
const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: "binary", maxLength }).map(withoutNul);

/** An identity tuple (valid per the contract limits). */
export const identityTuple = fc.record({
  effect_type: text(),
  scope: text(),
  stable_ids: fc.dictionary(text(12), text(), { minKeys: 1, maxKeys: 6 }),
});
export type TupleSample = {
  effect_type: string;
  scope: string;
  stable_ids: Record<string, string>;
};

/** Plain JSON inside every contract bound (small, safe numbers, shallow). */
export const boundedJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ min: -1e9, max: 1e9, noNaN: true }),
    anyText(16),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(anyText(8), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A parameters object. */
export const parametersArb = fc.dictionary(
  anyText(8),
  boundedJson,
  { maxKeys: 6 },
);

/** RFC 3339 text for instants in years 0001–9999, in several spellings. */
export const dateTimeText = fc
  .tuple(
    fc.date({
      min: new Date("0001-01-01T00:00:00Z"),
      max: new Date("9999-12-31T23:59:59Z"),
      noInvalidDate: true,
    }),
    fc.constantFrom("Z", "z", "+00:00", "-00:00"),
  )
  .map(([date, suffix]) => date.toISOString().replace("Z", suffix));

/** Shuffles entries by a permutation seed (deterministic for shrinking). */
export function permute<T>(items: readonly T[], keys: readonly number[]): T[] {
  return items
    .map((item, i) => ({ item, key: keys[i % Math.max(keys.length, 1)] ?? 0, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map(({ item }) => item);
}
