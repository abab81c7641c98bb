/**
 * The layering rules bite: dependency-cruiser, run with the repository's own configuration
 * on a small planted tree, reports the identity module importing raw model arguments, the
 * authority path reaching advisory (also indirectly), core importing another layer, an agent
 * tool importing the ledger, and the engine importing an agent tool.
 * (The real tree is checked by `npm run layering`, part of `npm test`.)
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";

function plant(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function cruise(root: string): { rule: string; from: string }[] {
  let out: string;
  try {
    out = execFileSync(process.execPath, [join(REPO_ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"), "src", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], {
      cwd: root,
      encoding: "utf8",
    });
  } catch (e) {
    out = (e as { stdout: string }).stdout;
  }
  const result = JSON.parse(out) as { summary: { violations: Array<{ rule: { name: string }; from: string }> } };
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from }));
}

describe("layering rules", () => {
  it("report each planted violation by rule name", () => {
    const root = mkdtempSync(join(tmpdir(), "irrevon-layering-"));
    copyFileSync(join(REPO_ROOT, ".dependency-cruiser.cjs"), join(root, ".dependency-cruiser.cjs"));
    writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", allowImportingTsExtensions: true, noEmit: true } }));
    plant(root, {
      "src/core/taint.ts": "export const t = 1;\n",
      "src/core/identity.ts": 'import { t } from "./taint.ts";\nexport const id = t;\n',
      "src/advisory/proposal.ts": "export const p = 1;\n",
      "src/ledger/helper.ts": 'import { p } from "../advisory/proposal.ts";\nexport const h = p;\n',
      "src/engine/gate.ts": 'import { h } from "../ledger/helper.ts";\nexport const g = h;\n',
      "src/core/leaky.ts": 'import { g } from "../engine/gate.ts";\nexport const l = g;\n',
      "src/agent/tool.ts": 'import { h } from "../ledger/helper.ts";\nexport const a = h;\n',
      "src/engine/uses-agent.ts": 'import { a } from "../agent/tool.ts";\nexport const u = a;\n',
    });
    const violations = cruise(root);
    const rules = new Set(violations.map((v) => v.rule));
    expect(rules).toContain("identity-never-sees-raw-model-arguments");
    expect(rules).toContain("advisory-never-on-authority-path");
    expect(rules).toContain("core-imports-nothing");
    expect(violations).toContainEqual({ rule: "agent-no-storage-or-destination", from: "src/agent/tool.ts" });
    expect(violations).toContainEqual({ rule: "agent-not-imported-below", from: "src/engine/uses-agent.ts" });
    // Indirect: the engine reaches advisory only through the ledger.
    expect(violations.filter((v) => v.rule === "advisory-never-on-authority-path").map((v) => v.from)).toContain("src/engine/gate.ts");
  }, 60_000);
});
