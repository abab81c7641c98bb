/**
 * docs/adapters.md matches the code: every JSON declaration example loads, the quoted
 * defineAdapter example is examples/define-adapter.ts verbatim, and every conformance check
 * and public test-kit name it lists exists.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadDeclaration } from "../../src/adapters/declaration.js";
import * as kit from "../../src/testing/index.js";

const doc = readFileSync(new URL("../../docs/adapters.md", import.meta.url), "utf8");

describe("docs/adapters.md", () => {
  it("every JSON declaration example is a valid declaration, one per tier", () => {
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map(
      (m) => JSON.parse(m[1] as string) as unknown,
    );
    expect(blocks.map((b) => loadDeclaration(b).tier)).toEqual(["C1", "C2", "C3"]);
  });

  it("quotes examples/define-adapter.ts verbatim", () => {
    const example = readFileSync(
      new URL("../../examples/define-adapter.ts", import.meta.url),
      "utf8",
    );
    expect(doc).toContain("```ts\n" + example + "```");
  });

  it("lists every conformance check and the exported kit names", () => {
    for (const name of kit.CONFORMANCE_CHECKS)
      expect(doc).toContain(name.startsWith("not_found") ? "not_found.client_ref" : `\`${name}\``);
    for (const name of [
      "createRefdest",
      "createInProcessTransport",
      "manualClock",
      "inProcessRefdest",
      "refdestHarness",
      "refdestControls",
      "checkAdapterConformance",
      "assertConformant",
    ]) {
      expect(Object.keys(kit)).toContain(name);
      expect(doc).toContain(name);
    }
  });
});
