/**
 * cli/commands/bench — `irrevon bench …`, the benchmark's command group:
 *
 * - `fixtures [--verify] [--out DIR]` writes the dev split, or verifies that DIR equals a
 *   regeneration byte for byte (exit 3 naming the first differing file);
 * - `analyze --results FILE --margin δ --c1-margin δ_C1` runs the paired statistics over a
 *   results document. Margins have no defaults: a missing one is a usage error (exit 2)
 *   naming the flag.
 *
 * `analyze` also takes `--worst-cell-gate` and then prints the kill verdict with its inputs.
 * `run`, `smoke` and `report` live in bench-run.ts; `freeze` and `holdout` in bench-integrity.ts. All logic lives in src/bench; these files
 * parse flags and print. Imports: bench, cli/{output,read-input,commands/bench-run}.
 */
import type { Command } from "commander";
import { analyzeRuns } from "../../bench/analysis/analyze.js";
import { renderAnalysis } from "../../bench/analysis/render-analysis.js";
import { parseRunResults } from "../../bench/analysis/run-results.js";
import { CANARY } from "../../bench/fixtures/artifact-bytes.js";
import { buildDevSplit } from "../../bench/fixtures/dev-split.js";
import { buildExtSplit, DEFAULT_EXT_FIXTURES_DIR } from "../../bench/fixtures/ext-split.js";
import { diffSplit, loadSplit, writeSplit } from "../../bench/fixtures/split-dir.js";
import { killVerdict, renderVerdict } from "../../bench/verdict/verdict.js";
import { IrrevonError } from "../../core/errors.js";
import { EXIT_CODES } from "../exit-codes.js";
import { emitResult, requestExit } from "../output.js";
import { parseJsonText, readInputText } from "../read-input.js";
import { registerIntegrityCommands } from "./bench-integrity.js";
import { list, registerRunCommands, requiredRate } from "./bench-run.js";
import { checkOutputDir } from "../output-paths.js";

/** Where the committed dev split lives, relative to the working directory. */
export const DEFAULT_FIXTURES_DIR = "bench/fixtures/dev";

interface FixturesFlags {
  readonly verify?: boolean;
  readonly out?: string;
  readonly split: string;
  readonly json?: boolean;
}

interface AnalyzeFlags {
  readonly results: string;
  readonly margin: string;
  readonly c1Margin: string;
  readonly referenceArm: string;
  readonly compositeArm: string;
  readonly b5Arm: string;
  readonly c1Arms: string;
  readonly cells?: string;
  readonly c1Cells?: string;
  readonly worstCellGate?: string;
  readonly json?: boolean;
}

function fixtures(options: FixturesFlags): void {
  if (options.split !== "dev" && options.split !== "ext") {
    throw new IrrevonError(
      "usage",
      `--split must be dev or ext; got ${JSON.stringify(options.split)}`,
      {
        details: { field: "--split", value: options.split },
      },
    );
  }
  const ext = options.split === "ext";
  const flags = {
    ...options,
    out: options.out ?? (ext ? DEFAULT_EXT_FIXTURES_DIR : DEFAULT_FIXTURES_DIR),
  };
  const split = ext ? buildExtSplit() : buildDevSplit();
  const summary = {
    split: options.split,
    manifest_id: split.manifest.manifest_id,
    root_hash: split.manifest.root_hash,
    artifact_count: split.artifacts.length,
    canary: CANARY,
    dir: flags.out,
  };
  if (flags.verify !== true) {
    checkOutputDir(flags.out, "--out");
    const written = writeSplit(flags.out, split);
    emitResult(
      flags.json === true,
      { ...summary, written: written.length },
      `wrote ${written.length} files to ${flags.out}\nroot hash ${summary.root_hash}`,
    );
    return;
  }
  const differences = diffSplit(flags.out, split);
  const problems = loadSplit(flags.out).problems;
  const first = differences[0];
  const ok = differences.length === 0 && problems.length === 0;
  if (!ok) requestExit(EXIT_CODES.declared_outcome.code);
  const describe =
    first === undefined
      ? ""
      : `${first.path} (${first.kind}${first.byteOffset === undefined ? "" : ` at byte ${first.byteOffset}`})`;
  emitResult(
    flags.json === true,
    { ...summary, verified: ok, first_difference: first ?? null, differences, problems },
    ok
      ? `verified: ${flags.out} equals the regenerated ${options.split} split\nroot hash ${summary.root_hash}`
      : [
          `MISMATCH: ${flags.out} differs from the regenerated ${options.split} split`,
          first === undefined
            ? `first problem: ${problems[0] ?? ""}`
            : `first differing file: ${describe}`,
          `${differences.length} differing file(s), ${problems.length} load problem(s)`,
          `expected root hash ${summary.root_hash}`,
        ].join("\n"),
  );
}

async function analyze(flags: AnalyzeFlags): Promise<void> {
  const margin = requiredRate(flags.margin, "--margin");
  const c1Margin = requiredRate(flags.c1Margin, "--c1-margin");
  const results = parseRunResults(parseJsonText(await readInputText(flags.results)));
  if (results.runs.length === 0) {
    requestExit(EXIT_CODES.declared_outcome.code);
    emitResult(flags.json === true, { analysis: null, reason: "no runs" }, "no runs to analyze");
    return;
  }
  const cells = list(flags.cells);
  const c1Cells = list(flags.c1Cells);
  const analysis = analyzeRuns(results, {
    margin,
    c1Margin,
    referenceArm: flags.referenceArm,
    compositeArm: flags.compositeArm,
    b5Arm: flags.b5Arm,
    c1Arms: list(flags.c1Arms) ?? [],
    ...(cells === undefined ? {} : { cells }),
    ...(c1Cells === undefined ? {} : { c1Cells }),
  });
  if (flags.worstCellGate === undefined) {
    emitResult(flags.json === true, { analysis }, renderAnalysis(analysis));
    return;
  }
  const verdict = killVerdict(
    analysis,
    results.runs,
    requiredRate(flags.worstCellGate, "--worst-cell-gate"),
  );
  emitResult(
    flags.json === true,
    { analysis, verdict },
    `${renderAnalysis(analysis)}\n${renderVerdict(verdict)}`,
  );
}

/** Registers the `bench` command group. */
export function register(program: Command): void {
  const bench = program
    .command("bench")
    .description(
      "IrrevonBench: fixtures, the runner (run, smoke), paired statistics and the kill verdict (analyze), reports",
    );
  bench
    .command("fixtures")
    .description(
      "write the dev fixture split, or --verify that a directory equals its regeneration",
    )
    .option("--verify", "compare DIR with a regeneration byte for byte (exit 3 on any difference)")
    .option(
      "--out <dir>",
      `split directory to write or verify (default ${DEFAULT_FIXTURES_DIR}, or ${DEFAULT_EXT_FIXTURES_DIR} with --split ext)`,
    )
    .option(
      "--split <name>",
      "dev (the reference design's split) or ext (extension faults, decision 0012)",
      "dev",
    )
    .option("--json", "print a JSON document on stdout instead of the human form on stderr")
    .action((flags: FixturesFlags) => fixtures(flags));
  bench
    .command("analyze")
    .description("paired statistics over a results document (margins are required: no defaults)")
    .requiredOption(
      "--results <file>",
      "results document (irrevonbench/run-results/v1), or - for stdin",
    )
    .requiredOption(
      "--margin <rate>",
      "equivalence margin δ in rate units (0.01 = 1 percentage point)",
    )
    .requiredOption(
      "--c1-margin <rate>",
      "equivalence margin δ_C1 of the registered C1 null, in rate units",
    )
    .option("--reference-arm <arm>", "the arm under test", "R")
    .option("--composite-arm <arm>", "the preselected primary comparator", "B5+B3+B6")
    .option("--b5-arm <arm>", "the durable-execution comparator", "B5")
    .option(
      "--c1-arms <arms>",
      "comma-separated native-idempotency comparators of the C1 null",
      "B4,B5",
    )
    .option(
      "--cells <ids>",
      "comma-separated cell ids averaged per seed (default: C2 discriminating cells present)",
    )
    .option(
      "--c1-cells <ids>",
      "comma-separated C1 cell ids of the registered null (default: C1 discriminating cells present)",
    )
    .option(
      "--worst-cell-gate <rate>",
      "worst-cell gate in rate units; when given, the kill verdict is printed too (no default)",
    )
    .option("--json", "print a JSON document on stdout instead of the human form on stderr")
    .action((flags: AnalyzeFlags) => analyze(flags));
  registerRunCommands(bench, DEFAULT_FIXTURES_DIR);
  registerIntegrityCommands(bench);
}
