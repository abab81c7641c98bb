/**
 * The flagship demo through the real CLI, on the embedded database and on a Postgres server:
 * exit 0, the summary shape, 1 vs 2 destination effects, the v2 effect id; then `inspect`
 * on the demo's ledger shows SETTLED_COMMITTED, the CONFIRMED_UNIQUE finding citing its
 * probe, the parameter variant and the dedup denial, with stable-id values as digests.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stableIdValueDigest } from "../../src/core/value-digest.js";
import { jsonOf, runCli } from "../support/cli.js";
import { SKIP_POSTGRES, TEST_PG_URL } from "../support/databases.js";

const V2 = "0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5";
const RESYNTHESIZED_DIGEST = "sha256:074abd639c1ad62f7ad769c6261bfa1f7b93021f8171644ebe3d4ce3df98c2cd";

function expectContrast(summary: Record<string, unknown>): void {
  expect(summary).toMatchObject({
    seed: 42,
    effect_id: V2,
    irrevon_leg: { destination_effects: 1, duplicate_rejected: true, reconciled: "SETTLED_COMMITTED" },
    b5_leg: { destination_effects: 2, duplicate_created: true },
    contrast_holds: true,
  });
}

describe("irrevon demo [pglite]", () => {
  const dir = mkdtempSync(join(tmpdir(), "irrevon-demo-"));

  it("runs twice in a row, exits 0 and the contrast holds", async () => {
    for (let i = 0; i < 2; i++) {
      const run = await runCli(["demo", "--json", "--dir", join(dir, "demo"), "--artifact", join(dir, "artifact.json")]);
      expect(run.code, run.stderr).toBe(0);
      expectContrast(jsonOf(run));
    }
  }, 120_000);

  it("inspect shows the three dimensions, the probe-cited finding, the variant and the dedup denial", async () => {
    const run = await runCli(["inspect", V2, "--json", "--data-dir", join(dir, "demo", "ledger")]);
    expect(run.code, run.stderr).toBe(0);
    const doc = jsonOf(run) as {
      dimensions: Record<string, unknown>;
      record: { stable_ids: Record<string, string> };
      findings: Array<{ classification: string; evidence: { probe_ids: number[] } }>;
      probes: Array<{ probe_id: number; result: string }>;
      parameter_variants: Array<{ parameters_digest: string }>;
      gate_decisions: Array<{ outcome: string; deny_check: string | null }>;
      integrity: { matches: boolean };
    };
    expect(doc.dimensions).toEqual({ lifecycle: "SETTLED_COMMITTED", classification: "CONFIRMED_UNIQUE", resolution: "CLOSED" });
    const finding = doc.findings.find((f) => f.classification === "CONFIRMED_UNIQUE");
    expect(finding?.evidence.probe_ids.length).toBe(1);
    const cited = doc.probes.find((p) => p.probe_id === finding?.evidence.probe_ids[0]);
    expect(cited?.result).toBe("PRESENT");
    expect(doc.parameter_variants.map((v) => v.parameters_digest)).toContain(RESYNTHESIZED_DIGEST);
    expect(doc.gate_decisions.map((g) => [g.outcome, g.deny_check])).toEqual([
      ["ALLOW", null],
      ["DENY", "dedup"],
    ]);
    expect(doc.record.stable_ids).toEqual({ order_id: stableIdValueDigest("9410"), customer_ref: stableIdValueDigest("C-0007") });
    expect(run.stdout).not.toContain('"9410"');
    expect(doc.integrity.matches).toBe(true);

    const revealed = jsonOf(await runCli(["inspect", V2, "--json", "--reveal", "--data-dir", join(dir, "demo", "ledger")])) as { record: { stable_ids: Record<string, string> } };
    expect(revealed.record.stable_ids).toEqual({ order_id: "9410", customer_ref: "C-0007" });
  }, 60_000);

  it("bad arguments exit 2 with a one-line error naming the problem", async () => {
    const seed = await runCli(["demo", "--seed", "x"]);
    expect(seed.code).toBe(2);
    expect(seed.stderr.trim().split("\n")).toHaveLength(1);
    expect(seed.stderr).toContain("--seed");
    const leg = await runCli(["demo", "--leg", "nope", "--json"]);
    expect(leg.code).toBe(2);
    expect((jsonOf(leg) as { error: { code: string } }).error.code).toBe("usage");
  });
});

describe("irrevon demo seed", () => {
  it("comes from --seed, else the configuration's [demo] seed; a configuration that does not parse is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-demo-seed-"));
    writeFileSync(join(dir, "irrevon.toml"), 'schema_version = "1"\n\n[demo]\nseed = 7\n');
    // The B5 leg alone: no engine process, and the seed is in the summary either way.
    const demo = (extra: string[]) =>
      runCli(["demo", "--json", "--leg", "b5", "--no-artifact", "--dir", join(dir, "demo"), ...extra], { cwd: dir, env: { IRREVON_CONFIG: "" } });
    const fromConfig = await demo([]);
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(jsonOf(fromConfig)).toMatchObject({ seed: 7, contrast_holds: true });
    const fromFlag = await demo(["--seed", "9"]);
    expect(fromFlag.code, fromFlag.stderr).toBe(0);
    expect(jsonOf(fromFlag)).toMatchObject({ seed: 9 });
    writeFileSync(join(dir, "broken.toml"), 'schema_version = "1"\n\n[demo]\nseed = "seven"\n');
    const broken = await demo(["--config", join(dir, "broken.toml")]);
    expect(broken.code).toBe(2);
    expect((jsonOf(broken) as { error: { code: string } }).error.code).toBe("config_invalid");
  }, 60_000);
});

describe.skipIf(SKIP_POSTGRES)("irrevon demo [postgres]", () => {
  it("runs with --database-url against the server and the contrast holds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-demo-pg-"));
    const run = await runCli(["demo", "--json", "--seed", "42", "--dir", join(dir, "demo"), "--no-artifact", "--database-url", TEST_PG_URL]);
    expect(run.code, run.stderr).toBe(0);
    expectContrast(jsonOf(run));
    const pgUrl = new URL(TEST_PG_URL);
    pgUrl.pathname = "/irrevon_demo_s42";
    const inspect = await runCli(["inspect", V2, "--json", "--database-url", pgUrl.toString()]);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect((jsonOf(inspect) as { dimensions: { lifecycle: string } }).dimensions.lifecycle).toBe("SETTLED_COMMITTED");
  }, 120_000);
});
