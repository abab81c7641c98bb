/**
 * db/ustar — unpacks the tarball PGlite's `dumpDataDir()` writes (POSIX ustar: regular files
 * and directories) onto disk. A new file-backed ledger is seeded this way rather than through
 * PGlite's `loadDataDir`, which copies the whole archive through the WASM file system: about
 * twice the time and ~150 MB more peak memory for the same result. Strict on purpose: any
 * other entry type, an absolute or `..` path after normalisation, or a checksum mismatch is
 * `storage_error` (a corrupt image must never half-seed a ledger silently). Imports: core.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
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

/** A path inside `root` for the entry name, or a refusal for anything that escapes it. */
function target(root: string, name: string): string {
  const relative = normalize(name.replace(/^\/+/, ""));
  if (relative === "." || relative === "") return root;
  if (relative.startsWith(`..${sep}`) || relative === "..")
    throw corrupt("entry escapes the data directory", name);
  return join(root, relative);
}

/** Writes every entry of the (uncompressed) tarball `tar` under `root`; returns the file count. */
export function extractTar(tar: Uint8Array, root: string): number {
  mkdirSync(root, { recursive: true });
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
      mkdirSync(target(root, name), { recursive: true, mode: mode | 0o700 });
    } else if (type === "0" || type === "\0") {
      if (offset + size > tar.length) throw corrupt("truncated entry", name);
      const path = target(root, name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, tar.subarray(offset, offset + size), { mode: mode | 0o600 });
      files += 1;
    } else {
      throw corrupt(`unsupported entry type '${type}'`, name);
    }
    offset += Math.ceil(size / BLOCK) * BLOCK;
  }
  throw corrupt("no end-of-archive marker");
}
