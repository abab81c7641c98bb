/**
 * cli/version — the package version for `--version`, read from the package's own
 * package.json. Found by walking up from this file, because the file sits at different
 * depths in the source tree (src/cli) and the build (dist/src/cli). Imports: nothing.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The `version` of the nearest package.json named "irrevon" above this module. */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "irrevon" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // No (readable) package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) return "0.0.0-unknown";
    dir = parent;
  }
}
