/**
 * `irrevon --help` loads no command module: no PGlite, node-postgres, Hono, zod or engine
 * code (they are imported by the command that needs them). A module-load hook in the real
 * child process records every URL it loads; the time it takes is measured by
 * `npm run bench:engine`, never asserted here.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, TSX_IMPORT } from "../support/cli.js";

function loadedBy(args: readonly string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "irrevon-lazy-"));
  const log = join(dir, "loaded.txt");
  writeFileSync(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + "\\n"); return next(url, context); }
`,
  );
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
  );
  writeFileSync(log, "");
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        join(dir, "register.mjs"),
        "--import",
        TSX_IMPORT,
        join(REPO_ROOT, "src/cli/main.ts"),
        ...args,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`exit ${String(code)}: ${stderr}`));
      else
        resolve(
          readFileSync(log, "utf8")
            .split("\n")
            .filter((l) => l !== ""),
        );
    });
  });
}

const HEAVY = [
  "/@electric-sql/pglite/",
  "/node_modules/pg/",
  "/node_modules/hono/",
  "/node_modules/zod/",
  "/src/engine/",
  "/src/db/pglite-driver",
];

describe("CLI lazy loading", () => {
  it("--help loads none of PGlite, pg, Hono, zod or the engine", async () => {
    const loaded = await loadedBy(["--help"]);
    expect(loaded.some((u) => u.includes("/src/cli/commands/index"))).toBe(true);
    expect(loaded.filter((u) => HEAVY.some((h) => u.includes(h)))).toEqual([]);
  }, 60_000);

  it("identity --help loads its own module but still no database driver", async () => {
    const loaded = await loadedBy(["identity", "--help"]);
    expect(loaded.some((u) => u.includes("/src/cli/commands/identity"))).toBe(true);
    expect(
      loaded.filter((u) => u.includes("/@electric-sql/pglite/") || u.includes("/node_modules/pg/")),
    ).toEqual([]);
  }, 60_000);
});
