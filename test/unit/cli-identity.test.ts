/**
 * `irrevon identity` in a real child process: exit codes 0 and 2, the --json shapes, and the
 * v2 tuple printing the v2 digest as intent_id.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { V2_INTENT_ID, validContract } from "./helpers/contracts.js";
import { CLI_ENTRY } from "../support/cli.js";

const root = join(import.meta.dirname, "..", "..");

function cli(
  args: string[],
  stdin?: string,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...CLI_ENTRY, ...args], {
    cwd: root,
    input: stdin ?? "",
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const V2_CANONICAL =
  '{"effect_type":"order.create","scope":"acme-store/prod","stable_ids":{"customer_ref":"C-0007","order_id":"9410"}}';

describe("irrevon identity", () => {
  it("--json on stdin prints intent_id (the v2 digest), operation_id step 0 and canonical; exit 0", () => {
    const run = cli(["identity", "--json"], JSON.stringify(validContract()));
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      schema_version: "1",
      intent_id: V2_INTENT_ID,
      operation_id: `${V2_INTENT_ID}:0`,
      canonical: V2_CANONICAL,
      identity_version: 1,
    });
  });

  it("reads a FILE argument and `-`", () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-cli-"));
    const file = join(dir, "contract.json");
    writeFileSync(file, JSON.stringify(validContract()));
    const fromFile = cli(["identity", file, "--json"]);
    expect(fromFile.status).toBe(0);
    expect((JSON.parse(fromFile.stdout) as { intent_id: string }).intent_id).toBe(V2_INTENT_ID);
    const dash = cli(["identity", "-", "--json"], JSON.stringify(validContract()));
    expect((JSON.parse(dash.stdout) as { intent_id: string }).intent_id).toBe(V2_INTENT_ID);
  });

  it("without --json prints the human form on stderr and nothing on stdout", () => {
    const run = cli(["identity"], JSON.stringify(validContract()));
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(V2_INTENT_ID);
    expect(run.stderr).toContain(`${V2_INTENT_ID}:0`);
  });

  it.each([
    ["bad JSON", '{"schema_version":', "contract_invalid", "json_syntax"],
    ["empty input", "", "contract_invalid", "json_syntax"],
    ["not an object", "[]", "contract_invalid", "type"],
    [
      "invalid contract",
      JSON.stringify({ ...validContract(), stable_ids: {} }),
      "contract_invalid",
      "min_properties",
    ],
    [
      "advisory payload",
      JSON.stringify({ ...validContract(), proposed_action: "COMPENSATED" }),
      "advisory_rejected",
      undefined,
    ],
  ])("%s → exit 2 with the JSON error envelope", (_name, stdin, code, limit) => {
    const run = cli(["identity", "--json"], stdin);
    expect(run.status).toBe(2);
    const envelope = JSON.parse(run.stdout) as {
      schema_version: string;
      error: {
        code: string;
        message: string;
        retryable: boolean;
        details: Record<string, unknown>;
      };
    };
    expect(envelope.schema_version).toBe("1");
    expect(Object.keys(envelope.error).sort()).toEqual(["code", "details", "message", "retryable"]);
    expect(envelope.error.code).toBe(code);
    expect(envelope.error.retryable).toBe(false);
    if (limit !== undefined) expect(envelope.error.details["limit"]).toBe(limit);
  });

  it("without --json an error is one line `irrevon: <code>: <message>` on stderr, exit 2", () => {
    const run = cli(["identity"], "{nope");
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^irrevon: contract_invalid: [^\n]+\n$/);
  });

  it("a missing file is a usage error, exit 2", () => {
    const run = cli(["identity", join(root, "does-not-exist.json"), "--json"]);
    expect(run.status).toBe(2);
    expect((JSON.parse(run.stdout) as { error: { code: string } }).error.code).toBe("usage");
  });
});

describe("irrevon usage", () => {
  it.each([[["bogus"]], [["identity", "--frob"]], [[]], [["identity", "a", "b"]]])(
    "%j → one-line usage error, exit 2",
    (args) => {
      const run = cli(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^irrevon: usage: [^\n]+\n$/);
    },
  );

  it("--version prints the package version; --help exits 0", () => {
    const version = cli(["--version"]);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(cli(["--help"]).status).toBe(0);
    const help = cli(["identity", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--json");
  });
});
