/**
 * A configuration that does not validate is refused naming every problem (up to three, then a
 * count), each by its key: an unknown key is not hidden behind a missing schema_version. A
 * configuration path that is not a regular file (a directory, a device, a FIFO) or is over
 * 1 MiB is refused before it is read, naming where the path came from.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_MAX_BYTES, loadConfig, parseConfig } from "../../src/cli/config.js";
import { IrrevonError } from "../../src/core/errors.js";

function refusal(text: string): IrrevonError {
  try {
    parseConfig(text, "irrevon.toml");
  } catch (e) {
    if (e instanceof IrrevonError) return e;
    throw e;
  }
  throw new Error("configuration was accepted");
}

describe("configuration refusals", () => {
  it("name an unknown key even when schema_version is missing too", () => {
    const e = refusal("[worker]\ninterval_secs = 5\n");
    expect(e.code).toBe("config_invalid");
    expect(e.message).toContain("'schema_version'");
    expect(e.message).toContain("unknown key 'worker.interval_secs'");
    expect(e.details["key"]).toBe("schema_version");
  });

  it("name each unknown key of one table on its own", () => {
    const e = refusal('schema_version = "1"\n[demo]\nseed = 1\nalpha = 1\nbeta = 2\n');
    expect(e.message).toBe(
      "irrevon.toml: unknown key 'demo.alpha' (remove it or check its spelling); unknown key 'demo.beta' (remove it or check its spelling)",
    );
    expect(e.details["key"]).toBe("demo.alpha");
  });

  it("show three problems and count the rest", () => {
    const e = refusal(
      'schema_version = "1"\n[demo]\nseed = "x"\n[worker]\ninterval_seconds = "y"\nsweep_interval_seconds = "z"\nhealth_file = 3\n',
    );
    expect(e.message).toMatch(/; and 1 more$/);
    expect((e.details["issues"] as unknown[]).length).toBe(4);
  });
});

describe("configuration files that are not files", () => {
  const loadRefusal = (path: string): IrrevonError => {
    try {
      loadConfig(path);
    } catch (e) {
      if (e instanceof IrrevonError) return e;
      throw e;
    }
    throw new Error("configuration was accepted");
  };

  it("a directory, a device and a FIFO are refused before reading, naming --config (exit 2)", () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-config-"));
    try {
      const fifo = join(dir, "irrevon.toml");
      execFileSync("mkfifo", [fifo]); // reading it would block until a writer came
      for (const path of [dir, "/dev/zero", fifo]) {
        const e = loadRefusal(path);
        expect(e.code).toBe("config_invalid");
        expect(e.details).toMatchObject({ path, source: "--config" });
      }
      // The same from the environment, named as such.
      const saved = process.env["IRREVON_CONFIG"];
      process.env["IRREVON_CONFIG"] = dir;
      try {
        let e: unknown;
        try {
          loadConfig();
        } catch (x) {
          e = x;
        }
        expect(e).toMatchObject({ code: "config_invalid", details: { source: "$IRREVON_CONFIG" } });
      } finally {
        if (saved === undefined) delete process.env["IRREVON_CONFIG"];
        else process.env["IRREVON_CONFIG"] = saved;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a file over 1 MiB is refused naming the limit", () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-config-"));
    try {
      const big = join(dir, "irrevon.toml");
      writeFileSync(big, `schema_version = "1"\n${"#".repeat(CONFIG_MAX_BYTES)}\n`);
      const e = loadRefusal(big);
      expect(e.code).toBe("config_invalid");
      expect(e.details).toMatchObject({ limit: CONFIG_MAX_BYTES, source: "--config" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
