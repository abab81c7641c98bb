/**
 * `irrevon bench run | smoke | report` at the CLI boundary (in-process): every statistical
 * input is required (exit 2 naming the missing flag, nothing written), R@postgres without a
 * server is refused naming both ways to give one, B7 and --confirmatory are refused with exit
 * 4, `report` re-renders a results directory, and holdout targets inside the repository are
 * refused. Every subcommand has --help.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_RESULTS_FORMAT } from "../../src/bench/analysis/run-results.js";
import { holdoutTargetRefusal } from "../../src/bench/integrity/integrity.js";
import { METRIC_KEYS, rateCell } from "../../src/bench/metrics/metric-cells.js";
import { setOutputStreams } from "../../src/cli/output.js";
import { runCli } from "../../src/cli/run.js";

async function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  const previous = setOutputStreams({
    stdout: { write: (c: string) => (stdout += c) },
    stderr: { write: (c: string) => (stderr += c) },
  });
  try {
    return { status: await runCli(args), stdout, stderr };
  } finally {
    setOutputStreams(previous);
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}
const STATS = ["--margin", "0.01", "--c1-margin", "0.005", "--worst-cell-gate", "0.1"];

describe("bench run / smoke / report CLI", () => {
  it.each(["--margin", "--c1-margin", "--worst-cell-gate"])(
    "refuses a missing %s with exit 2, writing nothing",
    async (flag) => {
      const out = join(mkdtempSync(join(tmpdir(), "irrevon-bench-cli-")), "res");
      const i = STATS.indexOf(flag);
      const args = [...STATS.slice(0, i), ...STATS.slice(i + 2)];
      const run = await cli(["bench", "run", "--out", out, ...args]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`missing required option ${flag}`);
      expect(existsSync(out)).toBe(false);
    },
  );

  it("refuses R@postgres without a server, naming --postgres-url and IRREVON_TEST_PG_URL", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "irrevon-bench-cli-")), "res");
    const run = await cli(["bench", "run", "--out", out, "--arms", "B0,R@postgres", ...STATS], {
      IRREVON_TEST_PG_URL: undefined,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--postgres-url");
    expect(run.stderr).toContain("IRREVON_TEST_PG_URL");
    expect(existsSync(out)).toBe(false);
  });

  it("refuses a --cells or --replicates value that selects nothing, naming it, writing nothing", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "irrevon-bench-cli-")), "res");
    const [cell, replicate, notNumber] = [
      await cli(["bench", "run", "--out", out, "--arms", "B0", "--cells", "NOPE", ...STATS]),
      await cli(["bench", "run", "--out", out, "--arms", "B0", "--replicates", "0,99999", ...STATS]),
      await cli(["bench", "run", "--out", out, "--arms", "B0", "--replicates", "abc", ...STATS]),
    ];
    expect(cell.status).toBe(2);
    expect(cell.stderr).toContain('no fixture unit has cell "NOPE"');
    expect(replicate.status).toBe(2);
    expect(replicate.stderr).toContain("no fixture unit has replicate 99999");
    expect(notNumber.status).toBe(2);
    expect(notNumber.stderr).toContain("--replicates");
    expect(existsSync(out)).toBe(false);
  });

  it("refuses B7 and confirmatory mode with exit 4", async () => {
    const b7 = await cli(["bench", "run", "--arms", "B7", ...STATS]);
    expect(b7.status).toBe(4);
    expect(b7.stderr).toContain("not operationalized");
    const b7json = await cli(["bench", "run", "--arms", "B7", "--json", ...STATS]);
    expect(b7json.status).toBe(4);
    expect(JSON.parse(b7json.stdout)).toMatchObject({ field: "--arms", arm: "B7" });
    const conf = await cli(["bench", "run", "--confirmatory", "--json", ...STATS]);
    expect(conf.status).toBe(4);
    expect(JSON.stringify(JSON.parse(conf.stdout))).toContain("stage A: no registration at docs/registrations/stage-a-v1/registration.json");
  });

  it("re-renders a results directory, keeping its recorded inputs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-bench-cli-"));
    const metrics = Object.fromEntries(METRIC_KEYS.map((k) => [k, rateCell(1, 4)]));
    writeFileSync(
      join(dir, "run-results.json"),
      JSON.stringify({
        format: RUN_RESULTS_FORMAT,
        runs: [
          {
            run_id: "a",
            arm: "B0",
            cell_id: "C2/refdest/response-lost/IRREVERSIBLE",
            replicate_index: 0,
            validity: "VALID",
            metrics,
          },
        ],
      }),
    );
    expect((await cli(["bench", "report", dir])).status).toBe(2);
    const first = await cli(["bench", "report", dir, ...STATS, "--json"]);
    expect(first.status).toBe(0);
    for (const f of ["report.json", "report.md", "report.html"])
      expect(existsSync(join(dir, f))).toBe(true);
    const again = await cli(["bench", "report", dir, "--json"]);
    expect(again.status).toBe(0);
    expect(
      (JSON.parse(again.stdout) as { report: { inputs: { gate: number } } }).report.inputs.gate,
    ).toBe(0.1);
  });

  it.each(["run", "smoke", "report", "analyze", "fixtures"])("bench %s --help", async (sub) => {
    // commander prints help straight to process.stdout
    let text = "";
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      text += String(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      expect((await cli(["bench", sub, "--help"])).status).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(text).toContain("--json");
    if (sub === "run") expect(text).toContain("REQUIRED equivalence margin");
    // report re-renders with the margins the results directory recorded unless given.
    if (sub === "report") {
      expect(text).not.toContain("REQUIRED");
      expect(text).toContain("default: the value the results directory recorded");
    }
  });

  it("refuses holdout targets inside the repository", () => {
    const repo = mkdtempSync(join(tmpdir(), "irrevon-repo-"));
    mkdirSync(join(repo, "bench"));
    expect(holdoutTargetRefusal(join(repo, "bench", "holdout"), repo)).toContain(
      "inside the repository",
    );
    expect(holdoutTargetRefusal(repo, repo)).not.toBeNull();
    expect(holdoutTargetRefusal(mkdtempSync(join(tmpdir(), "irrevon-outside-")), repo)).toBeNull();
  });
});
