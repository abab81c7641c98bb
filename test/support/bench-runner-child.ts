/**
 * test/support/bench-runner-child — runs a tiny benchmark matrix (C2 response-lost, both
 * replicates, the two fake arms) into argv[2] and prints the summary as JSON. The process test
 * arms IRREVON_BENCH_KILL_AFTER_SLOT to make it SIGKILL itself mid-slot. Not a test file.
 */
import { runMatrix } from "../../src/bench/runner/run-matrix.js";
import { fakeBackend } from "./bench-fake-arm.js";

const summary = await runMatrix({
  fixturesDir: "bench/fixtures/dev",
  outDir: process.argv[2] as string,
  arms: ["fake-naive", "fake-careful"],
  cells: ["C2/refdest/response-lost/IRREVERSIBLE"],
  backend: fakeBackend(),
  postgresUrl: null,
  root: process.cwd(),
});
process.stdout.write(`${JSON.stringify(summary)}\n`);
