/**
 * `irrevon identity` in a real child process on hostile input (issue 10 items 5 and 9): a
 * 100,000-deep document and a document with a duplicate key are refused with exit 2 and a
 * `contract_invalid` envelope naming the path and the limit, and input over 16 MiB (stdin or an
 * endless file) as `max_input_bytes` without being read whole. Not timed: each run only has to
 * finish inside the test timeout (before the fix the deep one ran for minutes).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validContract } from "./helpers/contracts.js";
import { CLI_ENTRY } from "../support/cli.js";

const root = join(import.meta.dirname, "..", "..");

interface Envelope {
  readonly error: { readonly code: string; readonly details: Record<string, unknown> };
}

function identity(stdin: string): { status: number | null; envelope: Envelope } {
  const result = spawnSync(process.execPath, [...CLI_ENTRY, "identity", "--json"], {
    cwd: root,
    input: stdin,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { status: result.status, envelope: JSON.parse(result.stdout) as Envelope };
}

/** `irrevon identity FILE --json` (no stdin). */
function identityOfFile(file: string): { status: number | null; envelope: Envelope } {
  const result = spawnSync(process.execPath, [...CLI_ENTRY, "identity", file, "--json"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 60_000,
  });
  return { status: result.status, envelope: JSON.parse(result.stdout) as Envelope };
}

function withParametersText(parametersText: string): string {
  const text = JSON.stringify({ ...validContract(), parameters: "@" });
  return text.replace('"@"', parametersText);
}

describe("irrevon identity on hostile input", () => {
  it("a 100,000-deep parameters value → exit 2, contract_invalid max_depth at depth 33", () => {
    const depth = 100_000;
    const run = identity(withParametersText(`{"deep":${"[".repeat(depth)}0${"]".repeat(depth)}}`));
    expect(run.status).toBe(2);
    expect(run.envelope.error.code).toBe("contract_invalid");
    expect(run.envelope.error.details["limit"]).toBe("max_depth");
    expect(run.envelope.error.details["limit_value"]).toBe(32);
    expect(run.envelope.error.details["path"]).toBe(`$.parameters.deep${"[0]".repeat(31)}`);
  });

  it("a 5,000,000-deep document (16 MiB cap region) is refused the same way", () => {
    const depth = 5_000_000;
    const run = identity(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    expect(run.status).toBe(2);
    expect(run.envelope.error.code).toBe("contract_invalid");
    expect(run.envelope.error.details["limit"]).toBe("max_depth");
  });

  it("input over 16 MiB is refused as max_input_bytes, on stdin and from an endless file alike", () => {
    // Before: stdin stopped at the limit and parsed what it had kept; a file was read whole
    // first (/dev/zero grew the process until it was killed).
    for (const run of [identity(" ".repeat(16 * 1024 * 1024 + 1)), identityOfFile("/dev/zero")]) {
      expect(run.status).toBe(2);
      expect(run.envelope.error.code).toBe("contract_invalid");
      expect(run.envelope.error.details).toMatchObject({
        limit: "max_input_bytes",
        limit_value: 16 * 1024 * 1024,
      });
    }
  });

  it.each([
    ["top level", '{"scope":"a","scope":"b"}', "$.scope", "scope"],
    [
      "nested",
      '{"stable_ids":{"order_id":"1","order_id":"2"}}',
      "$.stable_ids.order_id",
      "order_id",
    ],
    ["escaped spelling", '{"parameters":{"a":1,"\\u0061":2}}', "$.parameters.a", "a"],
    ["inside an array", '{"parameters":{"l":[{"x":1},{"x":1,"x":2}]}}', "$.parameters.l[1].x", "x"],
  ])("a duplicate key (%s) → exit 2 naming the key", (_name, text, path, key) => {
    const run = identity(text);
    expect(run.status).toBe(2);
    expect(run.envelope.error.code).toBe("contract_invalid");
    expect(run.envelope.error.details["limit"]).toBe("duplicate_key");
    expect(run.envelope.error.details["path"]).toBe(path);
    expect(run.envelope.error.details["key"]).toBe(key);
  });

  it("the same key in sibling objects is not a duplicate", () => {
    const contract = validContract();
    const run = identity(
      JSON.stringify({
        ...contract,
        parameters: { a: { id: 1 }, b: { id: 1 }, c: [{ id: 1 }, { id: 2 }] },
      }),
    );
    expect(run.status).toBe(0);
  });
});
