#!/usr/bin/env node
/**
 * build-pglite-image — writes the migrated PGlite image the package ships:
 * dist/pglite-image/pglite-<key>.<sha256>.tar (see src/db/pglite-image.ts and
 * docs/decisions/0006-embedded-image.md). Runs after `tsc` in `npm run build`, using the
 * compiled migrator, so the image is exactly what `irrevon migrate` would produce. An image
 * already there for the current key whose bytes verify is kept (a rebuild costs ~10 s);
 * images of other keys and leftovers of interrupted runs are removed.
 */
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const image = await import(pathToFileURL(join(root, "dist", "src", "db", "pglite-image.js")).href);
const dir = join(root, "dist", "pglite-image");
const key = image.imageKey();

const started = Date.now();
let kept = image.findImage(dir, key, image.ImageSource.shipped, true);
for (const name of (() => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
})()) {
  if (kept === undefined || join(dir, name) !== kept.path) rmSync(join(dir, name), { force: true });
}
if (kept === undefined) {
  const path = image.writeImageFile(dir, key, await image.buildPgliteImageBytes());
  console.log(`build-pglite-image: built ${path} in ${Date.now() - started} ms`);
} else {
  console.log(`build-pglite-image: ${kept.path} is current`);
}
