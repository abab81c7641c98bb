/**
 * preflight (reference §1.2 step 2): every bound, measured in UTF-8 bytes, applied without
 * recursion before the schema; each rejection names path, limit and value kind.
 */
import { describe, expect, it } from "vitest";
import { validateIntentContract } from "../../src/core/contract.js";
import {
  CONTRACT_BOUNDS,
  codePointLength,
  formatJsonPath,
  preflight,
  utf8ByteLength,
} from "../../src/core/preflight.js";
import { expectCode, expectContractError, validContract } from "./helpers/contracts.js";

function nestedArray(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

function withParameters(parameters: unknown): Record<string, unknown> {
  return { ...validContract(), parameters };
}

describe("preflight bounds on an intent contract", () => {
  it("depth 1200 nested array → max_depth at depth 33, before the schema", () => {
    const error = expectContractError(
      () => validateIntentContract(withParameters({ deep: nestedArray(1200) })),
      {
        path: `$.parameters.deep${"[0]".repeat(31)}`,
        limit: "max_depth",
        kind: "array",
      },
    );
    expect(error.details["limit_value"]).toBe(32);
  });

  it("depth 32 (root = 0) is allowed", () => {
    // $ (0) → parameters (1) → deep (2) → 30 arrays → the innermost value at depth 32.
    expect(() => validateIntentContract(withParameters({ deep: nestedArray(30) }))).not.toThrow();
    expect(preflight({ deep: nestedArray(31) }).maxDepth).toBe(32);
  });

  it("a 100,000-deep array is refused by a counter, not a stack overflow", () => {
    expectContractError(() => preflight(nestedArray(100_000)), {
      path: `$${"[0]".repeat(33)}`,
      limit: "max_depth",
    });
  });

  it("more than 10,000 nodes → max_nodes", () => {
    expectContractError(
      () => validateIntentContract(withParameters({ big: new Array<number>(10_001).fill(1) })),
      {
        path: expect.stringMatching(/^\$\.parameters\.big\[\d+\]$/) as unknown as string,
        limit: "max_nodes",
      },
    );
    expect(preflight(new Array<number>(9_999).fill(1)).nodes).toBe(10_000);
    expectContractError(() => preflight(new Array<number>(10_000).fill(1)), {
      path: "$[9999]",
      limit: "max_nodes",
    });
  });

  it("a string over 64 KiB of UTF-8 → max_string_bytes (measured in bytes, not characters)", () => {
    expectContractError(() => validateIntentContract(withParameters({ s: "a".repeat(65_537) })), {
      path: "$.parameters.s",
      limit: "max_string_bytes",
      kind: "string",
    });
    expect(() => validateIntentContract(withParameters({ s: "a".repeat(65_536) }))).not.toThrow();
    // 21,846 characters, 65,538 bytes.
    expectContractError(() => preflight({ s: "€".repeat(21_846) }), {
      path: "$.s",
      limit: "max_string_bytes",
    });
  });

  it("a key over 64 KiB → max_key_bytes", () => {
    expectContractError(() => preflight({ ["k".repeat(65_537)]: 1 }), {
      path: expect.stringMatching(/^\$\["k+…/) as unknown as string,
      limit: "max_key_bytes",
      kind: "string",
    });
  });

  it("lone surrogates in strings and keys → unicode_scalar", () => {
    expectContractError(() => validateIntentContract(withParameters({ s: "ok\ud800" })), {
      path: "$.parameters.s",
      limit: "unicode_scalar",
      kind: "string",
    });
    expectContractError(() => preflight({ "\udfff": 1 }), {
      path: '$["\\udfff"]',
      limit: "unicode_scalar",
    });
    expect(() => preflight({ s: "\ud83d\ude00" })).not.toThrow();
  });

  it("integers outside ±(2^53−1) → safe_integer (2^80 included)", () => {
    expectContractError(() => validateIntentContract(withParameters({ n: 2 ** 80 })), {
      path: "$.parameters.n",
      limit: "safe_integer",
      kind: "integer",
    });
    expectContractError(() => preflight([2 ** 53]), { path: "$[0]", limit: "safe_integer" });
    expectContractError(() => preflight([-(2 ** 53)]), { path: "$[0]", limit: "safe_integer" });
    expect(() =>
      preflight([Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0.5, -0]),
    ).not.toThrow();
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    "%s → finite_number",
    (n) => {
      expectContractError(() => validateIntentContract(withParameters({ n })), {
        path: "$.parameters.n",
        limit: "finite_number",
        kind: "number",
      });
    },
  );

  it("a running scalar budget over 1 MiB → scalar_budget_bytes", () => {
    const parameters: Record<string, string> = {};
    for (let i = 0; i < 17; i += 1) parameters[`s${i}`] = "x".repeat(64_000);
    expectContractError(() => validateIntentContract(withParameters(parameters)), {
      path: "$.parameters.s16",
      limit: "scalar_budget_bytes",
    });
  });

  it("counts the budget as specified: key/string bytes, bool/null 5, integer digits, float 24", () => {
    expect(preflight({ ab: "é", t: true, z: null, n: -12_345, f: 1.5 }).scalarBudgetBytes).toBe(
      2 + 2 + (1 + 5) + (1 + 5) + (1 + 5) + (1 + 24),
    );
  });

  class Money {
    readonly cents = 5;
  }
  const sym = Symbol("s");
  const accessor = Object.defineProperty({}, "x", { get: () => 1, enumerable: true });

  it.each([
    ["function", { v: () => 1 }, "$.v", "json_value"],
    ["symbol value", { v: sym }, "$.v", "json_value"],
    ["bigint", { v: 10n }, "$.v", "json_value"],
    ["undefined", { v: undefined }, "$.v", "json_value"],
    ["Date", { v: new Date(0) }, "$.v", "json_value"],
    ["Map", { v: new Map() }, "$.v", "json_value"],
    ["class instance", { v: new Money() }, "$.v", "json_value"],
    [
      "array hole",
      { v: Object.assign(new Array<number>(3), { 0: 1, 2: 3 }) },
      "$.v[1]",
      "json_value",
    ],
    ["symbol key", { v: { [sym]: 1 } }, "$.v", "string_key"],
    ["accessor", { v: accessor }, "$.v.x", "json_value"],
  ])("non-plain value: %s → %s", (_name, value, path, limit) => {
    expectContractError(() => preflight(value), { path, limit });
    expectContractError(() => validateIntentContract(withParameters(value)), {
      path: path.replace("$", "$.parameters"),
      limit,
    });
  });

  it("a null-prototype object is plain", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    expect(() => preflight(bare)).not.toThrow();
  });

  it("runs before the schema: a bounds failure wins over schema failures", () => {
    expectContractError(() => validateIntentContract({ junk: 2 ** 80 }), {
      path: "$.junk",
      limit: "safe_integer",
    });
  });

  it("the contract bounds are the reference numbers", () => {
    expect(CONTRACT_BOUNDS).toEqual({
      maxDepth: 32,
      maxNodes: 10_000,
      maxStringBytes: 65_536,
      maxKeyBytes: 65_536,
      maxIntegerMagnitude: 2 ** 53 - 1,
      maxScalarBudgetBytes: 1_048_576,
      omitUndefinedMembers: false,
      rejectNul: true,
    });
  });
});

describe("helpers", () => {
  it("utf8ByteLength matches Buffer and flags lone surrogates", () => {
    for (const s of ["", "a", "é", "€", "😀", "a😀é€"])
      expect(utf8ByteLength(s)).toBe(Buffer.byteLength(s));
    expect(utf8ByteLength("\ud83d")).toBe(-1);
    expect(utf8ByteLength("\ude00x")).toBe(-1);
  });

  it("codePointLength counts astral characters once", () => {
    expect(codePointLength("a😀é")).toBe(3);
  });

  it("formats JSON paths", () => {
    expect(formatJsonPath(["parameters", "items", 3, "sku"])).toBe("$.parameters.items[3].sku");
    expect(formatJsonPath(["odd key", "a-b", 0])).toBe('$["odd key"]["a-b"][0]');
    expect(formatJsonPath([])).toBe("$");
  });

  it("a ModelTainted value inside raw input is taint_violation", async () => {
    const { taint } = await import("../../src/core/taint.js");
    expectCode(() => preflight({ a: taint(1) }), "taint_violation");
  });
});

describe("preflight: U+0000", () => {
  it("refuses NUL in a contract string and in a key, naming the path (Postgres text cannot hold it)", async () => {
    const { validateIntentContract } = await import("../../src/core/contract.js");
    const { validContract } = await import("./helpers/contracts.js");
    for (const [mutate, path] of [
      [(c: Record<string, unknown>) => ({ ...c, scope: "acme\u0000prod" }), "$.scope"],
      [(c: Record<string, unknown>) => ({ ...c, parameters: { ["no\u0000te"]: 1 } }), "$.parameters"],
    ] as const) {
      let caught: unknown;
      try {
        validateIntentContract(mutate(validContract() as Record<string, unknown>));
      } catch (e) {
        caught = e;
      }
      expect(caught).toMatchObject({ code: "contract_invalid", details: { limit: "no_nul" } });
      expect(String((caught as { details: { path: string } }).details.path)).toContain(path);
    }
  });
});
