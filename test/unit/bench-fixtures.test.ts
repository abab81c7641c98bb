/**
 * IrrevonBench dev fixtures: the generator reproduces the reference design's dev split (its
 * manifest root hash, every unit seed, the example trials), every document satisfies its
 * closed schema, the schemas refuse what they must, and the on-disk verifier names the first
 * differing file.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { artifactDigest, CANARY, rootHash } from "../../src/bench/fixtures/artifact-bytes.js";
import { buildDevSplit, DEV_CELLS } from "../../src/bench/fixtures/dev-split.js";
import type { FaultSchedule, VariantSet, Workload } from "../../src/bench/fixtures/documents.js";
import { DEV_MASTER_SEED, deriveUnitSeed, parseSeedText } from "../../src/bench/fixtures/seeds.js";
import { diffSplit, loadSplit, writeSplit } from "../../src/bench/fixtures/split-dir.js";
import { validateFixtureDocument } from "../../src/bench/fixtures/validate.js";
import { cellId, cellSlug, parseCellId } from "../../src/bench/fault-model.js";

/** The reference dev manifest's root hash: the conformance check of the whole split. */
const REFERENCE_ROOT = "c214af121c88bf6685d9c5fede168a9d00cb4b140419486920f77e0ab393ed06";

const REFERENCE_SEEDS: Readonly<Record<string, readonly [string, string]>> = {
  "c1.responselost.irre": ["17064853728076318615", "1907679715491365656"],
  "c2.branchcancellation.irre": ["2008772231205873988", "2535993421386556741"],
  "c2.crashaftereffectbeforeresponse.irre": ["3784332357537349666", "2831055710176691245"],
  "c2.crashbeforepersist.irre": ["16229310348281287290", "2926849240137182710"],
  "c2.responselost.irre": ["7133602359285182062", "6889470077682393625"],
  "c2.retrystorm.irre": ["15556826981497417624", "13038672878235063030"],
  "c2.semanticresynthesis.irre": ["8741733571613766168", "15380414395249015557"],
  "c2.staleauthorization.irre": ["8781810554739455745", "2022535822637376297"],
  "c3.responselost.irre": ["14286400388953559775", "8632178805821316022"],
};

const split = buildDevSplit();
const byPath = new Map(split.artifacts.map((a) => [a.path, a.document]));
const clone = <T>(value: T): T => structuredClone(value);

/** A copy of a schedule with injection `index` given `param`. */
function withParam(
  schedule: FaultSchedule,
  index: number,
  param: Record<string, unknown>,
): unknown {
  return {
    ...schedule,
    injections: schedule.injections.map((injection, i) =>
      i === index ? { ...injection, param } : injection,
    ),
  };
}

/** A copy of a workload with trial 0 changed. */
function withTrial0(workload: Workload, change: Record<string, unknown>): Workload {
  return {
    ...workload,
    trials: workload.trials.map((t, i) => (i === 0 ? { ...t, ...change } : t)),
  };
}

describe("dev split conformance", () => {
  it("reproduces the reference manifest root hash over 38 artifacts", () => {
    expect(split.artifacts).toHaveLength(38);
    expect(split.manifest.artifacts).toHaveLength(38);
    expect(split.manifest.root_hash).toBe(REFERENCE_ROOT);
    expect(rootHash(split.manifest.artifacts)).toBe(REFERENCE_ROOT);
  });

  it("the public master seed is the SHA-256 of its source text", () => {
    expect(DEV_MASTER_SEED).toBe(
      "c2d95794fc69b329fafeaa5797a94c386f51b90a3478914e305d1e963bc6730e",
    );
    expect(split.manifest.master_seed).toBe(DEV_MASTER_SEED);
    expect(split.manifest.manifest_id).toBe("mf_dev.v1");
  });

  it("derives every unit seed of the reference table, and no arm enters the derivation", () => {
    expect(DEV_CELLS.map((c) => cellSlug(c)).sort()).toEqual(Object.keys(REFERENCE_SEEDS).sort());
    for (const cell of DEV_CELLS) {
      const expected = REFERENCE_SEEDS[cellSlug(cell)];
      for (const replicate of [0, 1] as const) {
        const seed = deriveUnitSeed(DEV_MASTER_SEED, cellId(cell), replicate);
        expect(seed.toString()).toBe(expected?.[replicate]);
        const workload = byPath.get(
          `workloads/wl_dev.${cellSlug(cell)}.r${replicate}.json`,
        ) as Workload;
        expect(workload.seed).toBe(expected?.[replicate]);
      }
    }
    expect(deriveUnitSeed.length).toBe(3);
  });

  it("builds the reference example workload trial by trial", () => {
    const w = byPath.get("workloads/wl_dev.c2.semanticresynthesis.irre.r0.json") as Workload;
    expect(w.cell_id).toBe("C2/refdest/semantic-resynthesis/IRREVERSIBLE");
    const rows = w.trials.map((t) => {
      const p = t.parameters as { line_items: { sku: string; quantity: number }[] };
      return [
        t.stable_ids["order_id"],
        t.stable_ids["customer_ref"],
        p.line_items[0]?.sku,
        p.line_items[0]?.quantity,
      ];
    });
    expect(rows).toEqual([
      ["713783", "C-0000", "SKU-145", 2],
      ["371700", "C-0001", "SKU-920", 3],
      ["293729", "C-0002", "SKU-708", 1],
      ["835886", "C-0003", "SKU-195", 1],
    ]);
    expect(w.trials.every((t) => t.legitimate && t.eligible_for_dispatch)).toBe(true);
    expect(w.trials[1]?.parameters["note"]).toBe("benchmark trial 1 (synthetic)");
  });

  it("faults trials 1 and 3 with the label matrix of each fault", () => {
    const labels = (slug: string): string =>
      (byPath.get(`workloads/wl_dev.${slug}.r0.json`) as Workload).trials
        .map((t) => `${Number(t.legitimate)}${Number(t.eligible_for_dispatch)}`)
        .join(" ");
    expect(labels("c2.responselost.irre")).toBe("11 11 11 11");
    expect(labels("c2.crashbeforepersist.irre")).toBe("11 10 11 10");
    expect(labels("c2.staleauthorization.irre")).toBe("11 00 11 00");
    expect(labels("c2.branchcancellation.irre")).toBe("11 00 11 00");
    const storm = byPath.get("fault-schedules/fs_dev.c2.retrystorm.irre.r1.json") as FaultSchedule;
    expect(storm.injections.map((i) => [i.trial_index, i.anchor, i.param.retries])).toEqual([
      [1, "T_DISPATCH", 3],
      [3, "T_DISPATCH", 3],
    ]);
  });

  it("re-synthesis variants keep the stable ids, rename every key and use an em dash", () => {
    const set = byPath.get("variants/vs_dev.c2.semanticresynthesis.irre.r0.json") as VariantSet;
    const schedule = byPath.get(
      "fault-schedules/fs_dev.c2.semanticresynthesis.irre.r0.json",
    ) as FaultSchedule;
    expect(schedule.injections.map((i) => i.param.variant_id)).toEqual(
      set.variants.map((v) => v.variant_id),
    );
    const v1 = set.variants[0];
    expect(v1?.variant_id).toBe("var_dev.c2.semanticresynthesis.irre.r0.t1");
    expect(v1?.stable_ids).toEqual({ order_id: "371700", customer_ref: "C-0001" });
    expect(v1?.parameters).toEqual({
      purchase_order: "371700",
      customer: "C-0001",
      items: [{ sku: "SKU-920", qty: 3, gift_wrap: false }],
      shipping: { method: "standard", priority: "normal" },
      customer_note: "Benchmark trial 1 \u2014 synthetic retry.",
    });
    expect(split.artifacts.filter((a) => a.path.startsWith("variants/"))).toHaveLength(2);
  });

  it("a different master seed gives a different, private split", () => {
    const other = buildDevSplit("0".repeat(64));
    expect(other.manifest.manifest_id).toBe("mf_dev.private");
    expect(other.manifest.root_hash).not.toBe(REFERENCE_ROOT);
  });

  it("any changed value changes the root hash", () => {
    const entries = split.manifest.artifacts.map((a) => ({ ...a }));
    const w = withTrial0(byPath.get("workloads/wl_dev.c1.responselost.irre.r0.json") as Workload, {
      authority_ref: "auth_bench_x",
    });
    const index = entries.findIndex(
      (e) => e.path === "workloads/wl_dev.c1.responselost.irre.r0.json",
    );
    entries[index] = { ...(entries[index] as (typeof entries)[number]), sha256: artifactDigest(w) };
    expect(rootHash(entries)).not.toBe(REFERENCE_ROOT);
  });
});

describe("fixture schemas", () => {
  it("every generated document, manifest included, is valid and carries the canary", () => {
    for (const a of split.artifacts) {
      expect(validateFixtureDocument(a.document), a.path).toEqual([]);
      expect((a.document as { canary: string }).canary).toBe(CANARY);
    }
    expect(validateFixtureDocument(split.manifest)).toEqual([]);
  });

  const workload = byPath.get("workloads/wl_dev.c2.responselost.irre.r0.json") as Workload;
  const storm = byPath.get("fault-schedules/fs_dev.c2.retrystorm.irre.r0.json") as FaultSchedule;
  const resynth = byPath.get(
    "fault-schedules/fs_dev.c2.semanticresynthesis.irre.r0.json",
  ) as FaultSchedule;
  const variants = byPath.get("variants/vs_dev.c2.semanticresynthesis.irre.r0.json") as VariantSet;
  const keywords = (doc: unknown): string[] =>
    validateFixtureDocument(doc).map((p) => `${p.pointer} ${p.keyword}`);

  it.each([
    ["an unknown top-level field", { ...workload, extra: 1 }, " additionalProperties"],
    [
      "an unknown trial field",
      { ...workload, trials: [{ ...workload.trials[0], hint: "x" }] },
      "/trials/0 additionalProperties",
    ],
    [
      "a dev split claiming frozen",
      { ...workload, freeze_status: "frozen" },
      "/freeze_status const",
    ],
    ["a numeric seed", { ...workload, seed: 7 }, "/seed type"],
    ["a seed with a leading zero", { ...workload, seed: "07" }, "/seed pattern"],
    ["no trials", { ...workload, trials: [] }, "/trials minItems"],
    [
      "empty stable ids",
      { ...workload, trials: [{ ...workload.trials[0], stable_ids: {} }] },
      "/trials/0/stable_ids minProperties",
    ],
    ["a wrong canary", { ...workload, canary: "x" }, "/canary const"],
  ])("a workload with %s is refused", (_name, doc, expected) => {
    expect(keywords(doc)).toContain(expected);
  });

  it("retry-storm needs retries ≥ 2 and re-synthesis needs a variant id", () => {
    expect(keywords(storm)).toEqual([]);
    expect(keywords(withParam(storm, 0, {}))).toContain("/injections/0/param required");
    expect(keywords(withParam(storm, 0, { retries: 1 }))).toContain(
      "/injections/0/param/retries minimum",
    );
    expect(keywords(withParam(resynth, 1, {}))).toContain("/injections/1/param required");
    expect(keywords(withParam(storm, 0, { retries: 3, jitter: 1 }))).toContain(
      "/injections/0/param additionalProperties",
    );
  });

  it("a frozen variant set must have passed its human spot check", () => {
    const frozen = { ...variants, split: "frozen", freeze_status: "frozen" };
    expect(keywords(frozen)).toEqual(
      expect.arrayContaining(["/spot_check/status const", "/spot_check/cohen_kappa type"]),
    );
    const passed = {
      ...frozen,
      spot_check: {
        status: "passed",
        sample_fraction: 0.2,
        sample_seed: "12",
        cohen_kappa: 0.85,
        raw_disagreement: 0.03,
        new_intent_reviewed_fraction: 1,
        disagreements_recorded_at: "2026-08-01T00:00:00Z",
      },
    };
    expect(keywords(passed)).toEqual([]);
    expect(
      keywords({ ...passed, spot_check: { ...passed.spot_check, cohen_kappa: 0.79 } }),
    ).toContain("/spot_check/cohen_kappa minimum");
  });

  it("a dev manifest has a master seed and no sealing; a holdout manifest the reverse", () => {
    const sealing = {
      ciphertext_sha256: "a".repeat(64),
      plaintext_root_hash: "b".repeat(64),
      sealed_at: "2026-08-01T00:00:00Z",
      unseal_condition: "after the Stage-B registration verifies",
    };
    expect(keywords({ ...split.manifest, sealing })).toContain("/sealing type");
    expect(keywords({ ...split.manifest, master_seed: null })).toContain("/master_seed type");
    const holdout = {
      ...split.manifest,
      split: "holdout",
      freeze_status: "frozen",
      master_seed: null,
      sealing,
    };
    expect(keywords(holdout)).toEqual([]);
    expect(keywords({ ...holdout, master_seed: DEV_MASTER_SEED })).toContain("/master_seed type");
  });

  it("an unknown format is a problem, not a pass", () => {
    expect(keywords({ ...workload, format: "irrevonbench/workload/v9" })).toEqual([
      "/format format",
    ]);
    expect(keywords(null)).toEqual(["/format format"]);
  });
});

describe("ids and seeds", () => {
  it("cell ids and slugs round-trip", () => {
    const cell = {
      tier: "C2",
      destination_kind: "refdest",
      fault: "crash-after-effect-before-response",
      effect_class: "IRREVERSIBLE",
    } as const;
    expect(cellId(cell)).toBe("C2/refdest/crash-after-effect-before-response/IRREVERSIBLE");
    expect(cellSlug(cell)).toBe("c2.crashaftereffectbeforeresponse.irre");
    expect(parseCellId(cellId(cell))).toEqual(cell);
    expect(parseCellId("C4/refdest/response-lost/IRREVERSIBLE")).toBeUndefined();
  });

  it("refuses a malformed master seed, an empty cell id or a negative replicate", () => {
    expect(() => deriveUnitSeed("C2D9", "c", 0)).toThrow(/master seed/);
    expect(() => deriveUnitSeed(DEV_MASTER_SEED, "", 0)).toThrow(/cell id/);
    expect(() => deriveUnitSeed(DEV_MASTER_SEED, "c", -1)).toThrow(/replicate/);
    expect(parseSeedText("18446744073709551615")).toBe(18446744073709551615n);
    expect(() => parseSeedText("18446744073709551616")).toThrow(/64-bit/);
  });
});

describe("split directory", () => {
  const dirs: string[] = [];
  const fresh = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-bench-fixtures-"));
    dirs.push(dir);
    writeSplit(dir, split);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("the committed bench/fixtures/dev equals a regeneration byte for byte", () => {
    const committed = join(import.meta.dirname, "..", "..", "bench", "fixtures", "dev");
    expect(diffSplit(committed, split)).toEqual([]);
    expect(loadSplit(committed).problems).toEqual([]);
  });

  it("a written split verifies and loads without problems", () => {
    const dir = fresh();
    expect(diffSplit(dir, split)).toEqual([]);
    const loaded = loadSplit(dir);
    expect(loaded.problems).toEqual([]);
    expect(loaded.manifest?.root_hash).toBe(REFERENCE_ROOT);
    expect(loaded.documents.size).toBe(38);
  });

  it("names a changed, a missing and an extra file, sorted by path", () => {
    const dir = fresh();
    const changed = "workloads/wl_dev.c2.responselost.irre.r1.json";
    writeFileSync(join(dir, changed), JSON.stringify(byPath.get(changed), null, 2));
    unlinkSync(join(dir, "fault-schedules", "fs_dev.c3.responselost.irre.r0.json"));
    writeFileSync(join(dir, "notes.txt"), "x");
    expect(diffSplit(dir, split)).toEqual([
      { path: "fault-schedules/fs_dev.c3.responselost.irre.r0.json", kind: "missing" },
      { path: "notes.txt", kind: "extra" },
      { path: changed, kind: "different", byteOffset: 1 },
    ]);
    const problems = loadSplit(dir).problems;
    expect(problems).toContain("fault-schedules/fs_dev.c3.responselost.irre.r0.json: missing");
    expect(problems).toContain("notes.txt: not in the manifest");
    expect(problems).toContain("wl_dev.c3.responselost.irre.r0: no fault schedule");
    // Re-indenting changes bytes but not the parsed document, so the digest holds.
    expect(problems.filter((p) => p.startsWith(changed))).toEqual([]);
  });

  it("loading refuses digest and root drift", () => {
    const dir = fresh();
    const path = "workloads/wl_dev.c2.responselost.irre.r1.json";
    const doc = withTrial0(byPath.get(path) as Workload, { legitimate: false });
    writeFileSync(join(dir, path), JSON.stringify(doc));
    expect(loadSplit(dir).problems).toEqual([`${path}: digest drift`]);
    const manifest = { ...clone(split.manifest), root_hash: "0".repeat(64) };
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    expect(loadSplit(dir).problems).toContain("manifest: root hash drift");
  });
});
