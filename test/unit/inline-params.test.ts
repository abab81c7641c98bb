/**
 * db/inline-params: which statements may share a round trip with BEGIN or COMMIT, and how
 * their values are written out. Every `$n` must certainly be a placeholder; anything that could
 * hide one (a literal, a comment, a dollar quote, an identifier with a `$`) or end the statement
 * is refused, as are values that cannot travel as text.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, IrrevonError } from "../../src/core/errors.js";
import { inlineParams, isInlinable } from "../../src/db/inline-params.js";

// A stand-in quoter that makes the substitution visible.
const q = (t: string): string => `<${t}>`;

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof IrrevonError ? `${e.code}:${String(e.details["sqlstate"] ?? "")}` : "other";
  }
  return "none";
}

describe("inlineParams", () => {
  it("replaces each placeholder by its value; $10 is not $1 followed by 0", () => {
    const params = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlineParams("SELECT f($1, $10, $2::jsonb)", params, q)).toBe(
      "SELECT f(<v1>, <v10>, <v2>::jsonb)",
    );
  });

  it("writes null and undefined as NULL, numbers, bigints and booleans as quoted text", () => {
    expect(inlineParams("SELECT f($1, $2, $3, $4, $5)", [null, undefined, 42, 7n, false], q)).toBe(
      "SELECT f(NULL, NULL, <42>, <7>, <false>)",
    );
  });

  it.each([
    ["a string literal", "SELECT f($1, 'x')"],
    ["a quoted identifier", 'SELECT "f"($1)'],
    ["a line comment", "SELECT f($1) -- $2"],
    ["a block comment", "SELECT f($1) /* $2 */"],
    ["a second statement", "SELECT f($1); SELECT 1"],
    ["a backslash", "SELECT f($1) \\g"],
    ["a dollar quote", "SELECT $$x$$"],
    ["a tagged dollar quote", "SELECT $t$x$t$"],
    ["an identifier holding $1", "SELECT a$1 FROM t"],
    ["a bare $", "SELECT $ + $1"],
    ["a non-ASCII identifier holding $1", "SELECT é$1 FROM t"],
    ["a placeholder continued by a non-ASCII letter", "SELECT $1é FROM t"],
    ["a placeholder used twice", "SELECT f($1, $1)"],
  ])("refuses a statement with %s (internal), before any value is read", (_what, sql) => {
    expect(isInlinable(sql)).toBe(false);
    expect(codeOf(() => inlineParams(sql, ["x", "y"], q))).toBe(`${ErrorCode.internal}:`);
  });

  it("refuses a placeholder without a parameter", () => {
    expect(codeOf(() => inlineParams("SELECT f($2)", ["x"], q))).toBe(`${ErrorCode.internal}:`);
    expect(codeOf(() => inlineParams("SELECT f($0)", ["x"], q))).toBe(`${ErrorCode.internal}:`);
  });

  it.each([
    ["an object", { a: 1 }],
    ["a buffer", Buffer.from("x")],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a function", () => 1],
  ])("refuses %s as a value (internal)", (_what, value) => {
    expect(codeOf(() => inlineParams("SELECT f($1)", [value], q))).toBe(`${ErrorCode.internal}:`);
  });

  it("refuses a NUL character as the server does (storage_error, 22021)", () => {
    expect(codeOf(() => inlineParams("SELECT f($1)", ["a\u0000b"], q))).toBe(
      `${ErrorCode.storage_error}:22021`,
    );
  });

  it("accepts the statements the fused hot path sends", () => {
    expect(isInlinable("SELECT ledger_register($1::jsonb, $2, $3, $4) AS r")).toBe(true);
    expect(isInlinable("SELECT ledger_claim($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb) AS claim")).toBe(
      true,
    );
  });
});
