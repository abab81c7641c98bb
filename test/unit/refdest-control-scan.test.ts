/**
 * Adapters, the engine and benchmark arms must never reach the refdest control API (it holds
 * the truth the oracle reads). Layering already stops adapters and the engine from importing
 * refdest; this scan also catches a hand-written control URL or a borrowed token anywhere in
 * their source text.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
// Arms may live under bench/arms or bench/baselines (B0–B6); both are scanned.
const SCANNED = ["src/adapters", "src/engine", "src/bench/arms", "src/bench/baselines"];
const FORBIDDEN = [
  /\/control\b/,
  /controlToken/,
  /RefdestControlClient/,
  /IRREVON_REFDEST_CONTROL_TOKEN/,
];

function files(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return []; // a folder that does not exist yet has nothing to scan
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? files(path)
      : /\.(ts|js|mjs|cjs|json)$/.test(name)
        ? [path]
        : [];
  });
}

/** Every (file, line, pattern) where a forbidden reference appears. */
function controlReferences(text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) =>
      FORBIDDEN.filter((re) => re.test(line)).map((re) => `${i + 1}: ${re.source}`),
    );
}

describe("no control-API reach from adapters, engine or bench arms", () => {
  it("the scanner detects each forbidden form", () => {
    expect(controlReferences('fetch(base + "/control/truth")')).toHaveLength(1);
    expect(controlReferences("const t = server.controlToken;")).toHaveLength(1);
    expect(controlReferences("new RefdestControlClient(url, t)")).toHaveLength(1);
    expect(controlReferences("process.env.IRREVON_REFDEST_CONTROL_TOKEN")).toHaveLength(1);
    expect(controlReferences('fetch(base + "/effects")')).toHaveLength(0);
  });

  it("finds none in src/adapters, src/engine and src/bench/arms", () => {
    const scanned = SCANNED.flatMap((d) => files(join(ROOT, d)));
    expect(scanned.some((f) => f.endsWith("refdest-adapter.ts"))).toBe(true); // the scan really reads the adapters
    const hits = scanned.flatMap((f) =>
      controlReferences(readFileSync(f, "utf8")).map((h) => `${relative(ROOT, f)}:${h}`),
    );
    expect(hits).toEqual([]);
  });
});
