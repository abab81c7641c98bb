/**
 * The benchmark runner survives its own SIGKILL without double-counting a trial: a real child
 * process runs a 4-slot matrix and kills itself (IRREVON_BENCH_KILL_AFTER_SLOT=1) in slot 2
 * right after that slot's write-ahead manifest and first journal line. A second run into the
 * same directory skips the finished slot, finalizes the interrupted attempt INVALID
 * `harness-corruption`, replaces it (`replaces_run_id`) and finishes: every slot has exactly one
 * VALID result, and each trial of a VALID run is journaled exactly once.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const CHILD = "test/support/bench-runner-child.ts";

function runChild(
  out: string,
  env: Record<string, string>,
): Promise<{ code: number | null; signal: string | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, out], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.on("exit", (code, signal) => resolve({ code, signal, stdout }));
  });
}

const json = (p: string): Record<string, unknown> =>
  JSON.parse(readFileSync(p, "utf8")) as Record<string, unknown>;

describe("bench runner: resume after SIGKILL", () => {
  it("counts every slot once after being killed mid-slot", async () => {
    const out = mkdtempSync(join(tmpdir(), "irrevon-bench-kill-"));
    const killed = await runChild(out, { IRREVON_BENCH_KILL_AFTER_SLOT: "1" });
    expect(killed.signal).toBe("SIGKILL");
    const runs = join(out, "runs");
    const afterKill = readdirSync(runs).sort();
    expect(afterKill).toHaveLength(2);
    const interrupted = afterKill.find((d) => !existsSync(join(runs, d, "result.json")));
    expect(interrupted).toBeDefined();
    expect(existsSync(join(runs, interrupted as string, "run-manifest.json"))).toBe(true);
    expect(
      readFileSync(join(runs, interrupted as string, "journal.jsonl"), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(1);

    const resumed = await runChild(out, {});
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      slots: 4,
      ran: 3,
      skipped_duplicate: 1,
      unresolved_slots: [],
      runs_valid: 4,
      runs_invalid: 1,
    });

    const old = json(join(runs, interrupted as string, "result.json"));
    expect(old["validity"]).toEqual({
      status: "INVALID",
      invalid_class: "harness-corruption",
      evidence: ["interrupted attempt: run-manifest.json without result.json found at resume"],
    });
    const replacement = json(join(runs, `${interrupted as string}.attempt2`, "result.json"));
    expect(replacement["replaces_run_id"]).toBe(interrupted);
    expect((replacement["validity"] as { status: string }).status).toBe("VALID");

    const results = json(join(out, "run-results.json"))["runs"] as {
      run_id: string;
      arm: string;
      cell_id: string;
      replicate_index: number;
      validity: string;
    }[];
    const valid = results.filter((r) => r.validity === "VALID");
    const slots = valid.map((r) => `${r.cell_id}|${r.replicate_index}|${r.arm}`);
    expect(new Set(slots).size).toBe(4);
    expect(valid).toHaveLength(4);
    for (const r of valid) {
      const lines = readFileSync(join(runs, r.run_id, "journal.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { trial_index: number }).trial_index);
      expect(lines).toEqual([0, 1, 2, 3]);
    }
  }, 120_000); // mostly child-process start-up, which a loaded 2-core machine stretches
});
