/**
 * Crash points are inert unless IRREVON_TEST_HOOKS=1, refuse to arm in a benchmark or
 * production process (crash_hooks_forbidden), reject unknown seams, and pause at a sync seam
 * until its release file appears.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { CRASH_SEAMS, crashPointsFromEnv } from "../../src/engine/crash-points.js";

describe("crash points", () => {
  it("names exactly the seams of §8", () => {
    expect([...CRASH_SEAMS].sort()).toEqual(
      [
        "persist.pre_commit",
        "persist.post_commit",
        "gate.post_allow",
        "adapter.pre_call",
        "adapter.post_call",
        "receipt.pre_commit",
        "receipt.post_commit",
        "settle.pre_commit",
        "reconcile.pre_settle",
        "sweep.pre_finding",
        "recovery.after_record",
      ].sort(),
    );
  });

  it("is inert without IRREVON_TEST_HOOKS=1, even when a crash is requested", async () => {
    const points = crashPointsFromEnv({ IRREVON_CRASH_AT: "persist.pre_commit" });
    expect(points.armed).toBe(false);
    const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
    await points.hit("persist.pre_commit");
    expect(kill).not.toHaveBeenCalled();
    kill.mockRestore();
  });

  it("refuses to arm in a benchmark or production process", () => {
    expect(() => crashPointsFromEnv({ IRREVON_TEST_HOOKS: "1", IRREVON_BENCH: "1" })).toThrow(
      expect.objectContaining({ code: "crash_hooks_forbidden" }),
    );
    expect(() => crashPointsFromEnv({ IRREVON_TEST_HOOKS: "1", NODE_ENV: "production" })).toThrow(
      expect.objectContaining({ code: "crash_hooks_forbidden" }),
    );
  });

  it("rejects unknown seams and bad hit counts", () => {
    expect(() =>
      crashPointsFromEnv({ IRREVON_TEST_HOOKS: "1", IRREVON_CRASH_AT: "persist.nowhere" }),
    ).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() =>
      crashPointsFromEnv({ IRREVON_TEST_HOOKS: "1", IRREVON_CRASH_AT: "gate.post_allow:0" }),
    ).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() =>
      crashPointsFromEnv({ IRREVON_TEST_HOOKS: "1", IRREVON_SYNC_AT: "adapter.pre_call" }),
    ).toThrow(expect.objectContaining({ code: "config_invalid" }));
  });

  it("kills on the n-th hit only", async () => {
    const points = crashPointsFromEnv({
      IRREVON_TEST_HOOKS: "1",
      IRREVON_CRASH_AT: "receipt.pre_commit:2",
    });
    const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await points.hit("receipt.pre_commit");
    expect(kill).not.toHaveBeenCalled();
    void points.hit("receipt.pre_commit"); // never resolves: the process would be dead
    await new Promise((r) => setTimeout(r, 10));
    expect(kill).toHaveBeenCalledWith(process.pid, "SIGKILL");
    kill.mockRestore();
    stderr.mockRestore();
  });

  it("pauses at a sync seam until the release file exists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-sync-"));
    const points = crashPointsFromEnv({
      IRREVON_TEST_HOOKS: "1",
      IRREVON_SYNC_AT: "adapter.post_call",
      IRREVON_SYNC_DIR: dir,
    });
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    let released = false;
    const waiting = points.hit("adapter.post_call").then(() => {
      released = true;
    });
    await new Promise((r) => setTimeout(r, 80));
    expect(released).toBe(false);
    expect(stdout).toHaveBeenCalledWith("HOOK adapter.post_call REACHED\n");
    writeFileSync(join(dir, "adapter.post_call.release"), "");
    await waiting;
    expect(released).toBe(true);
    stdout.mockRestore();
  });
});
