/**
 * db/data-dir-lock — one process owns an embedded data directory. PGlite is a single Postgres
 * backend; two processes opening the same directory would corrupt it. The lock is a file
 * created with O_EXCL holding the owner's pid; a lock whose pid is dead is stale and taken
 * over. Imports: core.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { ErrorCode, IrrevonError } from "../core/errors.js";

/** Name of the lock file inside the data directory. */
export const LOCK_FILE_NAME = "irrevon.lock";

/** A held lock; `release` is idempotent. */
export interface DataDirLock {
  readonly path: string;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readPid(path: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock on `dataDir` (creating the directory), or throws `ledger_locked`. */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          if (readPid(path) === process.pid) unlinkSync(path);
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = readPid(path);
      // A lock file that is empty may be a writer between open and write: treat as held.
      if (pid === undefined || isAlive(pid)) {
        throw new IrrevonError(
          ErrorCode.ledger_locked,
          `the ledger data directory ${dir} is in use by another process${pid === undefined ? "" : ` (pid ${pid})`}`,
          {
            details: { data_dir: dir, lock_file: path, pid: pid ?? null },
          },
        );
      }
      try {
        unlinkSync(path); // stale: its owner is dead
      } catch (unlinkError) {
        if ((unlinkError as NodeJS.ErrnoException).code !== "ENOENT") throw unlinkError;
      }
    }
  }
  throw new IrrevonError(ErrorCode.ledger_locked, `could not take the lock on ${dir}`, {
    details: { data_dir: dir, lock_file: path },
  });
}
