/**
 * Arms are blind to truth: the layering rules refuse an arm that imports fixtures (labels),
 * metrics, statistics, oracles, the runner or the reference destination's control API. A
 * violation is planted in a temporary file under src/bench/arms and depcruise must fail on
 * it naming the rules (one depcruise run over src/bench/{arms,faults}); the real arms must pass. Also: the extension split regenerates to the
 * committed bytes and the dev split's root hash is unchanged.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildDevSplit } from "../../src/bench/fixtures/dev-split.js";
import { buildExtSplit, DEFAULT_EXT_FIXTURES_DIR } from "../../src/bench/fixtures/ext-split.js";
import { diffSplit, loadSplit } from "../../src/bench/fixtures/split-dir.js";
import { episodeFor } from "../../src/bench/faults/episode.js";
import { CLI_ENTRY } from "../support/cli.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DEPCRUISE = join(ROOT, "node_modules", ".bin", "depcruise");

interface Violation {
  readonly from: string;
  readonly rule: { readonly name: string; readonly severity: string };
}

/** One depcruise run over `paths` (their direct imports only); its JSON summary's violations. */
function cruise(...paths: string[]): { status: number | null; violations: Violation[]; out: string } {
  const r = spawnSync(DEPCRUISE, [...paths, "--config", ".dependency-cruiser.cjs", "--output-type", "json", "--max-depth", "1"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const parsed = JSON.parse(r.stdout) as { summary: { violations: Violation[] } };
  return { status: r.status, violations: parsed.summary.violations, out: r.stderr };
}

describe("bench arms are blind to truth", { timeout: 60_000 }, () => {
  it("one depcruise run over the arms: refuses a planted arm importing labels, metrics and the destination control API; the real arms pass", () => {
    const file = join("src", "bench", "arms", `planted-${randomBytes(4).toString("hex")}.ts`);
    writeFileSync(
      join(ROOT, file),
      [
        'import type { WorkloadTrial } from "../fixtures/documents.js";',
        'import { scoreUnit } from "../metrics/score-unit.js";',
        'import { RefdestControlClient } from "../../refdest/control-client.js";',
        "export const planted: [WorkloadTrial | null, unknown, unknown] = [null, scoreUnit, RefdestControlClient];",
        "",
      ].join("\n"),
    );
    try {
      const r = cruise(join("src", "bench", "arms"), join("src", "bench", "faults"));
      // The JSON reporter exits 0; `npm run layering` fails on any violation of severity error.
      expect(r.status, r.out).toBe(0);
      const rules = new Set(r.violations.filter((v) => v.rule.severity === "error").map((v) => v.rule.name));
      expect(rules).toContain("bench-arms-blind-to-truth");
      expect(rules).toContain("bench-arms-no-destination-control");
      // Every violation is the planted file's: the real arms and faults pass.
      expect(r.violations.filter((v) => v.from !== file.split("\\").join("/"))).toEqual([]);
    } finally {
      rmSync(join(ROOT, file), { force: true });
    }
  });

  it("an episode carries no oracle label", () => {
    const split = buildDevSplit();
    const workload = split.artifacts.find((a) => a.path.includes("wl_dev.c2.responselost"))?.document as unknown as { trials: never[] };
    const episode = episodeFor(workload.trials[1] as never, [{ trial_index: 1, fault: "response-lost", param: {} }], null);
    expect(Object.keys(episode)).not.toContain("legitimate");
    expect(Object.keys(episode)).not.toContain("eligible_for_dispatch");
    expect(episode.fault).toBe("response-lost");
  });
});

describe("fixture splits", () => {
  it("the dev split's root hash is unchanged by the extension", () => {
    expect(buildDevSplit().manifest.root_hash).toBe("c214af121c88bf6685d9c5fede168a9d00cb4b140419486920f77e0ab393ed06");
    expect(diffSplit(join(ROOT, "bench/fixtures/dev"), buildDevSplit())).toEqual([]);
  });

  it("bench/fixtures/ext equals its regeneration, loads cleanly and has its own root", () => {
    const ext = buildExtSplit();
    expect(diffSplit(join(ROOT, DEFAULT_EXT_FIXTURES_DIR), ext)).toEqual([]);
    const loaded = loadSplit(join(ROOT, DEFAULT_EXT_FIXTURES_DIR)) as unknown as { problems: unknown[] };
    expect(loaded.problems).toEqual([]);
    expect(ext.manifest.root_hash).toBe("30e12040eaef60370edd52f8b4ff80dc7268026e385712a27982d519709b9405");
    expect(ext.manifest.root_hash).not.toBe(buildDevSplit().manifest.root_hash);
  });

  // The dev split's `--verify` (no --split) is locked by test/unit/cli-bench.test.ts.
  it("irrevon bench fixtures --verify --split ext passes on the extension split", () => {
    const verify = (...extra: string[]): { verified: boolean; root_hash: string; split: string } =>
      JSON.parse(
        execFileSync(process.execPath, [...CLI_ENTRY, "bench", "fixtures", "--verify", "--json", ...extra], {
          cwd: ROOT,
          encoding: "utf8",
        }),
      ) as { verified: boolean; root_hash: string; split: string };
    expect(verify("--split", "ext")).toMatchObject({ split: "ext", verified: true, root_hash: "30e12040eaef60370edd52f8b4ff80dc7268026e385712a27982d519709b9405" });
  }, 60_000);
});
