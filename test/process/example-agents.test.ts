/**
 * The agent examples run from source the way docs/agents.md says (`npm run example -- ai`,
 * `npm run example -- mcp`, `openai-agents`, `langchain`; "irrevon" resolved to this checkout) and tell the story they
 * claim: a lost reply, a re-worded retry collapsing onto the first order, a new order going
 * through — two orders at the destination after three tool calls. Against the packed
 * tarball: test/process/package-tarball.test.ts.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";
import { AI_LINES, LANGCHAIN_LINES, MCP_LINES, OPENAI_AGENTS_LINES } from "../support/examples.js";

const run = promisify(execFile);

// Both examples run side by side (each opens its own in-memory ledger).
it.concurrent.each([
  { name: "ai", expected: AI_LINES },
  { name: "mcp", expected: MCP_LINES },
  { name: "openai-agents", expected: OPENAI_AGENTS_LINES },
  { name: "langchain", expected: LANGCHAIN_LINES },
])(
  "examples/$name: one order for the lost reply and its re-worded retry, a second for the new order",
  async ({ name, expected }) => {
    // execFile rejects (failing the test, with stderr) on a non-zero exit.
    const { stdout } = await run(
      process.execPath,
      [join(REPO_ROOT, "scripts/run-example.mjs"), name],
      { encoding: "utf8", cwd: REPO_ROOT, env: { ...process.env, OPENAI_API_KEY: "" } },
    );
    expect(stdout.trim().split("\n")).toEqual(expected);
  },
  90_000,
);
