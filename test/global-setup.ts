/**
 * Vitest global setup: compiles sql/migrations into src/db/migrations.generated.ts (the same
 * step `npm run build` runs), so `npx vitest` works in a fresh clone before any build.
 */
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/compile-migrations.mjs"], { stdio: "inherit" });
}
