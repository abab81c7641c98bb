/**
 * bench/engine/open-probe — one cold open of a new embedded ledger, in its own process (so
 * PGlite's WASM start is part of the figure, as it is for a user): `file <dir>` opens a new
 * data directory the way `openIrrevon({ dataDir })` does (clone of the migrated image, then
 * the migrator's journal check); `memory` the way `openIrrevon({ memory: true })` does.
 * Prints `OPEN_MS <ms>`. The image must already exist (dist/ or the cache): building it is a
 * one-time cost the benchmark reports separately. Imports: db, bench.
 */
import { DbRole } from "../../db/db.js";
import { migrate } from "../../db/migrator.js";
import { openDatabase, openEmbeddedPrivileged } from "../../db/open.js";
import { elapsedMs } from "./stats.js";

const [mode, dataDir] = process.argv.slice(2);
const start = process.hrtime.bigint();
if (mode === "file" && dataDir !== undefined) {
  const db = await openDatabase({ dataDir, role: DbRole.app, autoMigrate: true });
  await db.query("SELECT 1");
  process.stdout.write(`OPEN_MS ${elapsedMs(start)}\n`);
  await db.close();
} else if (mode === "memory") {
  const root = await openEmbeddedPrivileged();
  await migrate(root);
  await root.as(DbRole.app).query("SELECT 1");
  process.stdout.write(`OPEN_MS ${elapsedMs(start)}\n`);
  await root.close();
} else {
  process.stderr.write("usage: open-probe file <dir> | memory\n");
  process.exitCode = 2;
}
