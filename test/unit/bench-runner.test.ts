/**
 * IrrevonBench runner discipline with a fake arm: documents are schema-checked before they
 * are written (an extra field is refused), a finished slot is never run twice, a harness
 * failure makes the attempt INVALID `harness-corruption` and after three attempts the slot is
 * `unresolved-slot` (kept and counted), and the environment digest ignores the wall clock.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkedText, runnerDocumentProblems } from "../../src/bench/runner/documents.js";
import { captureEnvironment } from "../../src/bench/runner/environment.js";
import { runMatrix } from "../../src/bench/runner/run-matrix.js";
import { fakeBackend } from "../support/bench-fake-arm.js";

const CELL = "C2/refdest/response-lost/IRREVERSIBLE";
const base = {
  fixturesDir: "bench/fixtures/dev",
  cells: [CELL],
  replicates: [0],
  postgresUrl: null,
  root: process.cwd(),
  env: {},
};

describe("bench runner", () => {
  it("scores a naive arm's duplicates, then skips the finished slot on a second run", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "irrevon-bench-run-"));
    const first = await runMatrix({
      ...base,
      outDir,
      arms: ["fake-naive"],
      backend: fakeBackend(),
    });
    expect(first).toMatchObject({ slots: 1, ran: 1, runs_valid: 1, runs_invalid: 0 });
    const result = JSON.parse(
      readFileSync(
        join(outDir, "runs", "c2.responselost.irre.r0.fake-naive", "result.json"),
        "utf8",
      ),
    ) as {
      metrics: Record<string, { numerator: number | null }>;
      history: { cross_check: string };
    };
    expect(result.metrics["duplicate_effect_rate"]?.numerator).toBe(2);
    expect(result.history.cross_check).toBe("CONSISTENT");
    const second = await runMatrix({
      ...base,
      outDir,
      arms: ["fake-naive"],
      backend: fakeBackend(),
    });
    expect(second).toMatchObject({ ran: 0, skipped_duplicate: 1, runs_valid: 1 });
    for (const f of ["run-manifest.json", "history.json", "history-verdict.json", "result.json"]) {
      const doc = JSON.parse(
        readFileSync(join(outDir, "runs", "c2.responselost.irre.r0.fake-naive", f), "utf8"),
      ) as unknown;
      expect(runnerDocumentProblems(doc), f).toEqual([]);
    }
  });

  it("makes a harness failure INVALID harness-corruption and gives up after three attempts", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "irrevon-bench-run-"));
    const s = await runMatrix({
      ...base,
      outDir,
      arms: ["fake-careful"],
      backend: fakeBackend({ breakHistory: true }),
    });
    expect(s).toMatchObject({
      ran: 0,
      runs_valid: 0,
      runs_invalid: 3,
      unresolved_slots: ["c2.responselost.irre.r0.fake-careful"],
    });
    const dirs = readdirSync(join(outDir, "runs")).sort();
    expect(dirs).toEqual([
      "c2.responselost.irre.r0.fake-careful",
      "c2.responselost.irre.r0.fake-careful.attempt2",
      "c2.responselost.irre.r0.fake-careful.attempt3",
    ]);
    const third = JSON.parse(
      readFileSync(join(outDir, "runs", dirs[2] as string, "result.json"), "utf8"),
    ) as {
      replaces_run_id: string;
      validity: { invalid_class: string; evidence: string[] };
      metrics: Record<string, { mark: string }>;
    };
    expect(third.replaces_run_id).toBe(dirs[1]);
    expect(third.validity.invalid_class).toBe("harness-corruption");
    expect(third.validity.evidence[0]).toMatch(/^harness error: EISDIR.*history\.json/);
    expect(third.metrics["duplicate_effect_rate"]?.mark).toBe("N/A");
  });

  it("refuses to resume runs made by other code (exit-2 usage naming --out); --fresh starts over", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "irrevon-bench-run-"));
    const run = (fresh?: boolean) =>
      runMatrix({
        ...base,
        outDir,
        arms: ["fake-naive"],
        backend: fakeBackend(),
        ...(fresh === undefined ? {} : { fresh }),
      });
    expect(await run()).toMatchObject({ ran: 1 });
    // The directory's runs as if another commit had made them.
    const path = join(outDir, "environment.json");
    const recorded = JSON.parse(readFileSync(path, "utf8")) as { git: { commit: string | null } };
    writeFileSync(
      path,
      JSON.stringify({ ...recorded, git: { ...recorded.git, commit: "0".repeat(40) } }),
    );
    const refused = await run().then(
      () => null,
      (e: unknown) => e as { code?: string; details?: Record<string, unknown> },
    );
    expect(refused?.code).toBe("usage");
    expect(refused?.details?.["field"]).toBe("--out");
    expect(Object.keys((refused?.details?.["differs"] ?? {}) as object)).toEqual(["git.commit"]);
    // Nothing was run or rewritten by the refused call.
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({
      git: { commit: "0".repeat(40) },
    });
    expect(await run(true)).toMatchObject({ ran: 1, skipped_duplicate: 0 });
    expect(await run()).toMatchObject({ ran: 0, skipped_duplicate: 1 });
  });

  it("refuses to write a document with an unknown field", () => {
    const env = captureEnvironment(process.cwd(), false);
    expect(() => checkedText({ ...env, extra: 1 })).toThrow(/extra|additional/);
    expect(runnerDocumentProblems({ ...env, extra: 1 }).join()).toContain("additional properties");
  });

  it("keeps the wall clock out of the environment digest", () => {
    const a = captureEnvironment(process.cwd(), false, new Date(0));
    const b = captureEnvironment(process.cwd(), false, new Date(1e12));
    expect(a.captured_at).not.toBe(b.captured_at);
    expect(a.environment_digest).toBe(b.environment_digest);
    expect(captureEnvironment(process.cwd(), true).environment_digest).not.toBe(
      a.environment_digest,
    );
  });
});
