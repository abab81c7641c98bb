/**
 * The agent-framework examples run from source as the docs say (`npm run example --
 * openai-agents` / `langchain`, "irrevon" resolved to this checkout) with no model key, and
 * tell the story they claim: the lost response reads as committed, the re-worded retry
 * collapses onto it (original destination ref, changed field named), the new order is a
 * second destination effect.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";
import { LANGCHAIN_LINES, OPENAI_AGENTS_LINES } from "../support/examples.js";

function runExample(
  name: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "scripts/run-example.mjs"), name], {
      cwd: REPO_ROOT,
      env: { ...process.env, OPENAI_API_KEY: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

it("examples/openai-agents and examples/langchain: one effect per order, the re-worded retry collapses", async () => {
  // Both at once: two child processes, so the pair costs about one start-up.
  const [openai, langchain] = await Promise.all([
    runExample("openai-agents"),
    runExample("langchain"),
  ]);

  expect(openai.status, openai.stderr).toBe(0);
  expect(openai.stdout.trim().split("\n")).toEqual(OPENAI_AGENTS_LINES);

  expect(langchain.status, langchain.stderr).toBe(0);
  expect(langchain.stdout.trim().split("\n")).toEqual(LANGCHAIN_LINES);
}, 120_000);
