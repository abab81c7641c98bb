#!/usr/bin/env node
/**
 * scripts/run-example — `npm run example -- <name>` runs examples/<name>/index.ts from source,
 * exactly as an app would import the package: `import … from "irrevon"` (and its subpaths)
 * resolves through this package's own "exports" under the "irrevon-source" condition, which
 * points at src/ (so no build is needed after `npm ci`); tsx compiles the TypeScript.
 * `--help` lists the examples.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const examplesDir = join(root, "examples");
const available = readdirSync(examplesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(examplesDir, d.name, "index.ts")))
  .map((d) => d.name)
  .sort();

const args = process.argv.slice(2);
const name = args[0];
if (name === undefined || name === "--help" || name === "-h") {
  console.log(
    `usage: npm run example -- <name> [args…]\n\nRuns examples/<name>/index.ts with "irrevon" resolved to this checkout's src/.\nexamples: ${available.join(", ")}`,
  );
  process.exit(name === undefined ? 2 : 0);
}
if (!available.includes(name)) {
  console.error(
    `run-example: unknown example ${JSON.stringify(name)}; expected one of: ${available.join(", ")} (a folder examples/<name>/ with index.ts)`,
  );
  process.exit(2);
}
const run = spawnSync(
  process.execPath,
  [
    "--conditions=irrevon-source",
    "--import",
    "tsx",
    join(examplesDir, name, "index.ts"),
    ...args.slice(1),
  ],
  { stdio: "inherit", cwd: root },
);
process.exit(run.status ?? 1);
