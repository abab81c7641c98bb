/**
 * test/support/lock-racer-child — a process that races for an embedded data directory's lock
 * (src/db/data-dir-lock.ts), driven over stdin by test/process/data-dir-lock-race.test.ts.
 * Prints READY; then `ROUND <dir> <startAtEpochMs>` spins until that instant (so every racer
 * starts together), tries the lock and answers `RESULT {"owner":bool,"code"?}` while keeping
 * a lock it won; `RELEASE` lets go (`RESULT {"released":bool}`); `EXIT` ends. Not a test file.
 */
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { lockDataDir, type DataDirLock } from "../../src/db/data-dir-lock.js";
import { isIrrevonError } from "../../src/core/errors.js";

let held: DataDirLock | undefined;

function reply(value: Record<string, unknown>): void {
  process.stdout.write(`RESULT ${JSON.stringify(value)}\n`);
}

function round(dir: string, startAtMs: number): void {
  // Busy-wait, not a timer: every racer leaves the barrier within microseconds of the others.
  while (performance.timeOrigin + performance.now() < startAtMs) {
    /* spin */
  }
  try {
    held = lockDataDir(dir);
    reply({ owner: true });
  } catch (e) {
    reply({ owner: false, code: isIrrevonError(e) ? e.code : `thrown:${String(e)}` });
  }
}

process.stdout.write("READY\n");
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const [verb, ...args] = line.trim().split(" ");
  if (verb === "EXIT") break;
  if (verb === "ROUND") round(args[0] ?? "", Number(args[1]));
  if (verb === "RELEASE") {
    held?.release();
    reply({ released: held !== undefined });
    held = undefined;
  }
}
held?.release();
process.exit(0);
