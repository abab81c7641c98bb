/**
 * Vitest global setup: compiles sql/migrations into src/db/migrations.generated.ts and the
 * declaration schema into src/adapters/declaration-validator.generated.ts (the same steps
 * `npm run build` runs), so `npx vitest` works in a fresh clone before any build; then
 * makes sure a verified migrated PGlite image exists (dist/ or the user cache), so the test
 * workers clone it instead of each building one.
 */
import { execFileSync } from "node:child_process";

export default async function setup(): Promise<void> {
  execFileSync(process.execPath, ["scripts/compile-migrations.mjs"], { stdio: "inherit" });
  execFileSync(process.execPath, ["scripts/compile-declaration-validator.mjs"], {
    stdio: "inherit",
  });
  const { resolvePgliteImage } = await import("../src/db/pglite-image.js");
  await resolvePgliteImage();
}
