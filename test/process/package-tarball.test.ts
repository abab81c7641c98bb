/**
 * What a consumer gets: the built package is packed (`npm pack`), a fresh app in the OS temp
 * directory installs the tarball with ONE `npm install` (offline from the npm cache first;
 * if the cache lacks package metadata, `--prefer-offline` against the registry), the examples
 * are copied into the app unchanged, type-checked against the INSTALLED type declarations,
 * and each is run there: `import … from "irrevon"` resolves to the tarball, never to ../src.
 *
 * Adding an example is one line in EXAMPLES: its folder under examples/, the extra packages
 * the app needs (versions are taken from this repository's package.json, so they are the ones
 * in the npm cache) and the lines it must print (test/support/examples).
 *
 * Needs the built package (dist/): `npm test` builds first; without dist/ this test builds it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, TSX_IMPORT } from "../support/cli.js";
import { LANGCHAIN_LINES, OPENAI_AGENTS_LINES, QUICKSTART_LINES } from "../support/examples.js";

interface ExampleRun {
  /** examples/<name>/index.ts */
  readonly name: string;
  /** Packages the app installs next to irrevon (e.g. a framework); versions from the repo. */
  readonly dependencies: readonly string[];
  readonly expected: readonly unknown[];
}

const EXAMPLES: readonly ExampleRun[] = [
  { name: "quickstart", dependencies: [], expected: QUICKSTART_LINES },
  { name: "openai-agents", dependencies: ["@openai/agents", "zod"], expected: OPENAI_AGENTS_LINES },
  {
    name: "langchain",
    dependencies: ["@langchain/core", "langchain", "zod"],
    expected: LANGCHAIN_LINES,
  },
];

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const repoPackage = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  readonly name: string;
  readonly version: string;
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
};

function repoVersion(name: string): string {
  const version = repoPackage.dependencies[name] ?? repoPackage.devDependencies[name];
  if (version === undefined)
    throw new Error(`example dependency ${name} is not in the repo's package.json`);
  return version;
}

function npm(args: readonly string[], cwd: string): { status: number | null; output: string } {
  const run = spawnSync(NPM, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

describe("the packed package in a fresh app", () => {
  let work: string;
  let app: string;

  beforeAll(() => {
    if (
      !existsSync(join(REPO_ROOT, "dist/src/index.js")) ||
      !existsSync(join(REPO_ROOT, "dist/pglite-image"))
    )
      execFileSync(NPM, ["run", "build"], { cwd: REPO_ROOT, stdio: "ignore" });
    work = mkdtempSync(join(tmpdir(), "irrevon-tarball-"));
    const packed = execFileSync(
      NPM,
      ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
      {
        cwd: REPO_ROOT,
        encoding: "utf8",
      },
    );
    const [info] = JSON.parse(packed) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    if (info === undefined) throw new Error("npm pack reported no tarball");
    const shipped = info.files.map((f) => f.path);
    expect(shipped).toContain("LICENSE");
    expect(shipped).toContain("dist/src/index.d.ts");
    expect(shipped.filter((p) => p.startsWith("src/") || p.startsWith("test/"))).toEqual([]);

    app = join(work, "app");
    mkdirSync(join(app, "examples"), { recursive: true });
    const dependencies: Record<string, string> = { [repoPackage.name]: `file:../${info.filename}` };
    for (const example of EXAMPLES) {
      for (const dep of example.dependencies) dependencies[dep] = repoVersion(dep);
      cpSync(join(REPO_ROOT, "examples", example.name), join(app, "examples", example.name), {
        recursive: true,
      });
    }
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify(
        { name: "irrevon-tarball-app", private: true, type: "module", dependencies },
        null,
        2,
      ),
    );
    const flags = ["--no-audit", "--no-fund", "--ignore-scripts"];
    let install = npm(["install", "--offline", ...flags], app);
    // The cache holds the tarballs `npm ci` fetched, not always the registry metadata.
    if (install.status !== 0) install = npm(["install", "--prefer-offline", ...flags], app);
    expect(install.status, install.output).toBe(0);
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [join(REPO_ROOT, "node_modules/@types")],
        },
        include: ["examples"],
      }),
    );
  }, 400_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it("resolves irrevon to the installed tarball, with a default export condition", () => {
    const resolved = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", 'console.log(import.meta.resolve("irrevon"))'],
      { cwd: app, encoding: "utf8" },
    );
    expect(resolved.stdout.trim()).toBe(
      `file://${join(app, "node_modules/irrevon/dist/src/index.js")}`,
    );
    const installed = JSON.parse(
      readFileSync(join(app, "node_modules/irrevon/package.json"), "utf8"),
    ) as {
      exports: Record<string, Record<string, string>>;
    };
    expect(installed.exports["."]?.["default"]).toBe("./dist/src/index.js");
    expect(existsSync(join(app, "node_modules/irrevon/LICENSE"))).toBe(true);
  });

  it("the examples type-check against the installed declarations", () => {
    const tsc = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      {
        cwd: app,
        encoding: "utf8",
      },
    );
    expect(tsc.status, tsc.stdout).toBe(0);
  }, 120_000);

  it.each(EXAMPLES)(
    "examples/$name runs from the installed package",
    ({ name, expected }) => {
      const run = spawnSync(
        process.execPath,
        ["--import", TSX_IMPORT, join(app, "examples", name, "index.ts")],
        {
          cwd: app,
          encoding: "utf8",
        },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim().split("\n")).toEqual(expected);
    },
    120_000,
  );
});
