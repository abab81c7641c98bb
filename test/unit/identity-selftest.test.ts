import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { identitySelfTest } from "../../src/core/identity-selftest.js";

describe("identity self-test (doctor)", () => {
  it("reproduces the external digests of v1 and v2", () => {
    const results = identitySelfTest();
    expect(results.map((r) => [r.name, r.ok])).toEqual([
      ["v1-rfc8785-appendix", true],
      ["v2-intent-tuple", true],
    ]);
  });

  it("embeds the same expected digests as the conformance fixtures", () => {
    const expected = JSON.parse(readFileSync("test/fixtures/identity-vectors/expected-digests.json", "utf8")) as Record<string, string>;
    for (const r of identitySelfTest()) expect(r.expected).toBe(expected[`${r.name}.json`]);
  });
});
