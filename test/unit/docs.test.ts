/**
 * Generated and data-backed documentation stays in step with the code: docs/state-tables.md
 * (regenerated in memory), the exit-code table in docs/cli.md and every error code in
 * docs/errors.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderStateTablesDoc } from "../../scripts/gen-state-tables-doc.js";
import { EXIT_CODES, exitCodeForError } from "../../src/cli/exit-codes.js";
import { ErrorCode } from "../../src/core/errors.js";
import { LIFECYCLE_EDGES, RESOLUTION_ACTION_CELLS } from "../../src/core/state-tables.js";

const docs = join(import.meta.dirname, "..", "..", "docs");
const read = (name: string): string => readFileSync(join(docs, name), "utf8");

/** Rows of every Markdown table in `text`, cells trimmed (formatting-independent). */
function tableRows(text: string): string[][] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

describe("docs", () => {
  it("docs/state-tables.md is exactly what the generator produces", async () => {
    const rendered = await renderStateTablesDoc();
    expect(read("state-tables.md")).toBe(rendered);
    expect(rendered).toContain(`The ${LIFECYCLE_EDGES.length} legal edges`);
    expect(rendered).toContain(
      `The ${RESOLUTION_ACTION_CELLS.length} legal classification × action cells (of 20)`,
    );
  });

  it("docs/cli.md lists every exit code with its description", () => {
    const rows = tableRows(read("cli.md"));
    for (const [name, { code, description }] of Object.entries(EXIT_CODES)) {
      expect(rows).toContainEqual([String(code), `\`${name}\``, description]);
    }
  });

  it("docs/errors.md documents every error code with its exit code", () => {
    const text = read("errors.md");
    const rows = tableRows(text);
    for (const code of Object.values(ErrorCode)) {
      expect(text).toContain(`## \`${code}\``);
      const row = rows.find((r) => r[0] === `\`${code}\``);
      expect(row, code).toBeDefined();
      expect(row?.[2]).toBe(String(exitCodeForError(code)));
    }
  });

  it("docs/glossary.md defines the required terms", () => {
    const text = read("glossary.md");
    for (const term of [
      "effect",
      "intent",
      "execution",
      "attempt",
      "receipt",
      "probe",
      "finding",
      "resolution",
      "slot",
      "tier",
      "declaration",
      "lag",
      "re-read gap",
      "lease",
      "fencing token",
      "variant",
    ]) {
      expect(text).toContain(`**${term}**`);
    }
  });
});
