/**
 * Arms are blind to truth: the layering rules refuse an arm that imports fixtures (labels),
 * metrics, statistics, oracles, the runner or the reference destination's control API. A
 * violation is planted in a temporary file under src/bench/arms and depcruise must fail on
 * it naming the rules; the real arms must pass. Also: the extension split regenerates to the
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

const ROOT = join(import.meta.dirname, "..", "..");
const DEPCRUISE = join(ROOT, "node_modules", ".bin", "depcruise");

function cruise(path: string): { status: number | null; out: string } {
  const r = spawnSync(DEPCRUISE, [path, "--config", ".dependency-cruiser.cjs"], { cwd: ROOT, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("bench arms are blind to truth", { timeout: 60_000 }, () => {
  it("depcruise refuses a planted arm that imports labels, metrics and the destination control API", () => {
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
      const r = cruise(file);
      expect(r.status).not.toBe(0);
      expect(r.out).toContain("bench-arms-blind-to-truth");
      expect(r.out).toContain("bench-arms-no-destination-control");
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

  it("irrevon bench fixtures --verify passes on the dev split and, with --split ext, on the extension split", () => {
    const verify = (...extra: string[]): { verified: boolean; root_hash: string; split: string } =>
      JSON.parse(
        execFileSync(process.execPath, ["--import", import.meta.resolve("tsx"), "src/cli/main.ts", "bench", "fixtures", "--verify", "--json", ...extra], {
          cwd: ROOT,
          encoding: "utf8",
        }),
      ) as { verified: boolean; root_hash: string; split: string };
    expect(verify()).toMatchObject({ split: "dev", verified: true, root_hash: "c214af121c88bf6685d9c5fede168a9d00cb4b140419486920f77e0ab393ed06" });
    expect(verify("--split", "ext")).toMatchObject({ split: "ext", verified: true, root_hash: "30e12040eaef60370edd52f8b4ff80dc7268026e385712a27982d519709b9405" });
  }, 60_000);
});
