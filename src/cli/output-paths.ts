/**
 * cli/output-paths — where a command is about to write, checked before it does anything: a
 * directory it will create or fill, a file it will write. A path that cannot take the output
 * (a file where a folder is needed, a folder where a file is, a read-only or missing parent)
 * is a usage error (exit 2) naming the flag, the path and the fix — never an `internal` error
 * after the work is done, and nothing is created to find out. Imports: core.
 */
import { accessSync, constants, statSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { ErrorCode, IrrevonError } from "../core/errors.js";

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function refuse(flag: string, path: string, problem: string, fix: string): never {
  throw new IrrevonError(ErrorCode.usage, `${flag} ${JSON.stringify(path)}: ${problem}; ${fix}`, {
    details: { flag, path, problem },
  });
}

/** The nearest existing ancestor of `path` must be a folder this process may write into. */
function checkCreatable(path: string, flag: string, original: string): void {
  for (let at = dirname(path); ; at = dirname(at)) {
    const stat = statOrNull(at);
    if (stat === null) {
      if (dirname(at) === at) break;
      continue;
    }
    if (!stat.isDirectory())
      refuse(flag, original, `${at} is a file, not a folder`, "pass a path under a folder");
    try {
      accessSync(at, constants.W_OK);
    } catch {
      refuse(flag, original, `the folder ${at} is not writable`, "pass a path you can write to");
    }
    return;
  }
}

/** A folder the command will create (with its parents) or write into. */
export function checkOutputDir(path: string, flag: string): void {
  const full = resolve(path);
  const stat = statOrNull(full);
  if (stat === null) return checkCreatable(full, flag, path);
  if (!stat.isDirectory())
    refuse(flag, path, "this is a file, not a folder", "pass a folder (it is created if missing)");
  try {
    accessSync(full, constants.W_OK);
  } catch {
    refuse(flag, path, "this folder is not writable", "pass a folder you can write to");
  }
}

/**
 * A file the command will write (replacing it if it exists). Its folder must exist, unless the
 * command creates it (`createFolder`).
 */
export function checkOutputFile(
  path: string,
  flag: string,
  options: { readonly createFolder?: boolean } = {},
): void {
  const full = resolve(path);
  const stat = statOrNull(full);
  if (stat === null) {
    if (options.createFolder !== true && statOrNull(dirname(full)) === null)
      refuse(
        flag,
        path,
        `its folder ${dirname(full)} does not exist`,
        "create it or pass another path",
      );
    return checkCreatable(full, flag, path);
  }
  if (stat.isDirectory()) refuse(flag, path, "this is a folder, not a file", "pass a file path");
  try {
    accessSync(full, constants.W_OK);
  } catch {
    refuse(flag, path, "this file is not writable", "pass a file you can write");
  }
}
