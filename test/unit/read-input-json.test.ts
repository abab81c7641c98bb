/**
 * cli/read-input `parseJsonText`: duplicate member names are refused naming the key (issue 10
 * item 9), nesting is bounded before the document is parsed, and the strict scan agrees with
 * JSON.parse on every document without duplicates (property).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonText } from "../../src/cli/read-input.js";
import { NUM_RUNS, expectContractError } from "./helpers/contracts.js";

describe("parseJsonText refuses duplicate keys", () => {
  it.each([
    ['{"a":1,"a":2}', "$.a", "a"],
    ['{"a":{"b":1,"c":{"d":true,"d":false}}}', "$.a.c.d", "d"],
    ['[0,{"x":[],"x":null}]', "$[1].x", "x"],
    ['{"\\u00e9":1,"é":2}', '$["é"]', "é"],
    ['{"__proto__":1,"__proto__":2}', "$.__proto__", "__proto__"],
    ['{"":1,"":2}', '$[""]', ""],
  ])("%s → duplicate_key at %s", (text, path, key) => {
    const error = expectContractError(() => parseJsonText(text), { path, limit: "duplicate_key" });
    expect(error.details["key"]).toBe(key);
  });

  it("strings that look like structure are not keys", () => {
    expect(parseJsonText('{"a":"{\\"a\\":1,","b":"\\\\","c":["a","a"]}')).toEqual({
      a: '{"a":1,',
      b: "\\",
      c: ["a", "a"],
    });
  });

  it("bad syntax is still json_syntax", () => {
    expectContractError(() => parseJsonText('{"a":1,"a"'), { path: "$", limit: "json_syntax" });
  });

  it("nesting deeper than the bound is refused before parsing", () => {
    const text = `${"[".repeat(40)}${"]".repeat(40)}`;
    expectContractError(() => parseJsonText(text), {
      path: `$${"[0]".repeat(33)}`,
      limit: "max_depth",
    });
  });

  it("agrees with JSON.parse on documents without duplicate keys (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        expect(parseJsonText(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
