/**
 * db/ustar — unpacks the tarball PGlite's `dumpDataDir()` writes (POSIX ustar: regular files
 * and directories) onto disk. A new file-backed ledger is seeded this way rather than through
 * PGlite's `loadDataDir`, which copies the whole archive through the WASM file system: about
 * twice the time and ~150 MB more peak memory for the same result. {@link walkTar} checks and
 * visits the entries without copying them (the in-memory clone writes them into PGlite's
 * memory file system with it). Strict on purpose: any
 * other entry type, an absolute or `..` path after normalisation, or a checksum mismatch is
 * `storage_error` (a corrupt image must never half-seed a ledger silently). Imports: core.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { ErrorCode, IrrevonError } from "../core/errors.js";

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return Buffer.from(end < 0 ? bytes : bytes.subarray(0, end)).toString("utf8");
}

function octal(header: Uint8Array, offset: number, length: number): number {
  const text = field(header, offset, length).trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function corrupt(reason: string, entry?: string): IrrevonError {
  return new IrrevonError(
    ErrorCode.storage_error,
    `the ledger image is not a valid tarball: ${reason}`,
    {
      retryable: false,
      details: { reason, ...(entry === undefined ? {} : { entry }) },
    },
  );
}

function checksumOk(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  return sum === octal(header, 148, 8);
}

/** The entry's path relative to the archive root ("" for the root), or a refusal for an escape. */
function relativePath(name: string): string {
  const relative = posix.normalize(name.replace(/^\/+/, ""));
  if (relative === "." || relative === "" || relative === "./") return "";
  if (relative.startsWith("../") || relative === "..")
    throw corrupt("entry escapes the data directory", name);
  return relative.replace(/\/+$/, "");
}

/** What {@link walkTar} hands each entry to; `path` is relative to the archive root. */
export interface TarVisitor {
  directory(path: string, mode: number): void;
  /** `data` is a view into the archive (no copy). */
  file(path: string, data: Uint8Array, mode: number): void;
}

/**
 * Checks every entry of the (uncompressed) tarball `tar` and hands it to `visit`, in archive
 * order; returns the file count. Throws `storage_error` at the first bad entry.
 */
export function walkTar(tar: Uint8Array, visit: TarVisitor): number {
  let files = 0;
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) return files; // end-of-archive marker
    if (!checksumOk(header)) throw corrupt("header checksum mismatch", `block ${offset / BLOCK}`);
    const prefix = field(header, 345, 155);
    const name = prefix === "" ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const mode = octal(header, 100, 8) & 0o777;
    offset += BLOCK;
    if (type === "5") {
      visit.directory(relativePath(name), mode);
    } else if (type === "0" || type === "\0") {
      if (offset + size > tar.length) throw corrupt("truncated entry", name);
      visit.file(relativePath(name), tar.subarray(offset, offset + size), mode);
      files += 1;
    } else {
      throw corrupt(`unsupported entry type '${type}'`, name);
    }
    offset += Math.ceil(size / BLOCK) * BLOCK;
  }
  throw corrupt("no end-of-archive marker");
}

/** Writes every entry of the (uncompressed) tarball `tar` under `root`; returns the file count. */
export function extractTar(tar: Uint8Array, root: string): number {
  mkdirSync(root, { recursive: true });
  return walkTar(tar, {
    directory(path, mode) {
      mkdirSync(join(root, path), { recursive: true, mode: mode | 0o700 });
    },
    file(path, data, mode) {
      const target = join(root, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data, { mode: mode | 0o600 });
    },
  });
}
