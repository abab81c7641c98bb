/**
 * Two real processes building the PGlite image into the same empty cache at once: both
 * succeed with a verified image, the cache holds only complete files whose bytes hash to
 * their names (no temporary leftovers), and a third process reads it from the cache.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { imageKey } from "../../src/db/pglite-image.js";
import { REPO_ROOT, TSX_IMPORT } from "../support/cli.js";

interface Resolved {
  readonly source: string;
  readonly sha256: string;
  readonly path: string | null;
  readonly applied: string[];
}

function resolveInChild(cacheDir: string): Promise<Resolved> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", TSX_IMPORT, join(REPO_ROOT, "test/process/fixtures/resolve-image.ts"), cacheDir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`child exited ${String(code)}: ${stderr.slice(-2000)}`));
      else resolve(JSON.parse(stdout) as Resolved);
    });
  });
}

const sha256 = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");

describe("the image cache under concurrent builders", () => {
  it("two processes building at once both get a verified image; the cache holds only whole files", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "irrevon-image-race-"));
    const [a, b] = await Promise.all([resolveInChild(cacheDir), resolveInChild(cacheDir)]);
    for (const r of [a, b]) {
      expect(r.applied).toEqual([]);
      expect(["built", "cache"]).toContain(r.source);
      expect(r.path).not.toBeNull();
      expect(sha256(readFileSync(r.path ?? ""))).toBe(r.sha256);
    }
    const names = readdirSync(cacheDir);
    expect(names.length).toBeGreaterThanOrEqual(1);
    for (const name of names) {
      const match = /^pglite-(.+)\.([0-9a-f]{64})\.tar$/.exec(name);
      expect(match?.[1], name).toBe(imageKey());
      expect(sha256(readFileSync(join(cacheDir, name)))).toBe(match?.[2]);
    }
    const third = await resolveInChild(cacheDir);
    expect(third.source).toBe("cache");
    expect(names.map((n) => join(cacheDir, n))).toContain(third.path);
  }, 900_000);
});
