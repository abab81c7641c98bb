/**
 * db/pglite-image — a migrated PGlite data directory, built once and cloned for every new
 * embedded ledger (file-backed, in memory, tests, the demo's engine processes). Running initdb
 * and the migrations costs 5–10 s and ~900 MB of memory; cloning the image costs one PGlite
 * start. See docs/decisions/0006-embedded-image.md.
 *
 * The image is PGlite's own `dumpDataDir("none")` of a database that the real migrator
 * migrated, so the roles, grants and the migration journal are in it. It is kept uncompressed:
 * gunzip cost ~0.35 s of CPU at every new ledger, hashing the plain bytes ~0.03 s (the npm
 * tarball compresses it in transit anyway). Its file name carries the key it was built for
 * (format, PGlite version, hash of the compiled migration set) and the SHA-256 of its bytes:
 * `pglite-<key>.<sha256>.tar`. Reading an image re-hashes the bytes;
 * a mismatch is never used (a warning names the file; a cached copy is deleted and rebuilt).
 * Images are looked up in the package (`dist/pglite-image/`, written by `npm run build`), then
 * in the user cache (`$IRREVON_IMAGE_CACHE_DIR`, else `$XDG_CACHE_HOME/irrevon`, else
 * `~/.cache/irrevon`); a miss builds one and writes it to the cache under a temporary name,
 * renamed into place, so concurrent builders never expose a partial file. Imports: core, db.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { DbRole } from "./db.js";
import { JOURNAL_TABLE, migrate, migrationsHash } from "./migrator.js";
import { MIGRATIONS } from "./migrations.generated.js";
import { openPglite, type PgliteSeed } from "./pglite-driver.js";

/** Where an image came from (for reports and tests). */
export const ImageSource = { shipped: "shipped", cache: "cache", built: "built" } as const;
export type ImageSource = (typeof ImageSource)[keyof typeof ImageSource];

/** A verified image: its bytes hash to `sha256`, and it was built for `key`. */
export interface PgliteImage extends PgliteSeed {
  readonly key: string;
  readonly sha256: string;
  readonly source: ImageSource;
  /** The file it was read from or written to; null when it could not be cached. */
  readonly path: string | null;
}

/** Where to look for and keep images; `null` skips that place. */
export interface ImageLocations {
  readonly shippedDir: string | null;
  readonly cacheDir: string | null;
}

const FORMAT = "v2";

function installedPgliteVersion(): string {
  try {
    // The package does not export ./package.json; its entry point lives in dist/.
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
    const pkg = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** What an image must have been built for: the dump format belongs to the PGlite build. */
export function imageKey(): string {
  return `${FORMAT}-pglite${installedPgliteVersion()}-${migrationsHash()}`;
}

const EXTENSION = ".tar";

/** `pglite-<key>.<sha256>.tar` */
export function imageFileName(key: string, sha256: string): string {
  return `pglite-${key}.${sha256}${EXTENSION}`;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The package's image directory: dist/pglite-image (from dist/src/db or from src/db under tsx). */
export function shippedImageDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = import.meta.url.endsWith(".ts")
    ? join(here, "..", "..")
    : join(here, "..", "..", "..");
  return join(root, "dist", "pglite-image");
}

/** The per-user cache directory for images. */
export function imageCacheDir(): string {
  const explicit = process.env["IRREVON_IMAGE_CACHE_DIR"];
  if (explicit !== undefined && explicit !== "") return explicit;
  const xdg = process.env["XDG_CACHE_HOME"];
  return join(xdg !== undefined && xdg !== "" ? xdg : join(homedir(), ".cache"), "irrevon");
}

/** The default places: the package first, then the user cache. */
export function defaultImageLocations(): ImageLocations {
  return { shippedDir: shippedImageDir(), cacheDir: imageCacheDir() };
}

function reject(path: string, reason: string, mayDelete: boolean): void {
  process.emitWarning(
    `irrevon: not using the PGlite image ${path}: ${reason}${mayDelete ? " (deleted; a new one is built)" : ""}`,
    {
      code: "IRREVON_IMAGE_REJECTED",
    },
  );
  if (mayDelete) rmSync(path, { force: true });
}

/**
 * The first image in `dir` built for `key` whose bytes hash to the name's SHA-256. Files that
 * fail the check are reported (and deleted when `mayDelete`); none is ever returned.
 */
export function findImage(
  dir: string,
  key: string,
  source: ImageSource,
  mayDelete: boolean,
): PgliteImage | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const prefix = `pglite-${key}.`;
  for (const name of names.filter((n) => n.startsWith(prefix) && n.endsWith(EXTENSION)).sort()) {
    const path = join(dir, name);
    const expected = name.slice(prefix.length, -EXTENSION.length);
    let tar: Uint8Array;
    try {
      tar = readFileSync(path);
    } catch {
      continue; // removed by a concurrent process between listing and reading
    }
    const actual = sha256Hex(tar);
    if (!/^[0-9a-f]{64}$/.test(expected) || actual !== expected) {
      reject(path, `content hash ${actual} does not match its name`, mayDelete);
      continue;
    }
    return { key, sha256: actual, tar, source, path };
  }
  return undefined;
}

/** Writes `tar` into `dir` atomically (temporary name, then rename); returns the path. */
export function writeImageFile(dir: string, key: string, tar: Uint8Array): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, imageFileName(key, sha256Hex(tar)));
  const tmp = join(dir, `.tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
  try {
    writeFileSync(tmp, tar);
    renameSync(tmp, path); // atomic: a reader sees the whole file or none
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
    throw e;
  }
  return path;
}

/**
 * What a new ledger is cloned from, cut to what it uses (every byte is read, hashed and written
 * again at each new ledger): 1 MB WAL segments instead of 16 MB (the first segment is otherwise
 * 16 MB of zeros; the segment size is fixed at initdb), and one database — the ledger's — since
 * the templates (2 × ~8 MB, two thirds of the files) only serve CREATE DATABASE, which an
 * embedded ledger never runs. 42.5 MB and 1159 files become ~16 MB and ~560.
 */
const IMAGE_INITDB_ARGS = ["--wal-segsize=1"] as const;
const UNUSED_DATABASES = ["template0", "template1"] as const;

/**
 * Builds an image: initdb, the compiled migrations through the real migrator, a check that the
 * journal holds exactly the compiled set and that the three roles exist, the unused template
 * databases dropped, then a tarball dump.
 */
export async function buildPgliteImageBytes(): Promise<Uint8Array> {
  const root = await openPglite({ initdbArgs: IMAGE_INITDB_ARGS });
  try {
    await migrate(root);
    const { rows } = await root.query<{ filename: string; sha256: string }>(
      `SELECT filename, sha256 FROM ${JOURNAL_TABLE} ORDER BY filename`,
    );
    const journal = rows.map((r) => `${r.filename}:${r.sha256}`).join("\n");
    const compiled = MIGRATIONS.map((m) => `${m.filename}:${m.sha256}`).join("\n");
    const roles = await root.query("SELECT 1 FROM pg_roles WHERE rolname = ANY($1::text[])", [
      Object.values(DbRole),
    ]);
    if (journal !== compiled || roles.rowCount !== Object.values(DbRole).length) {
      throw new IrrevonError(
        ErrorCode.internal,
        "the freshly migrated image does not hold the compiled migrations and roles",
        {
          details: {
            journal_entries: rows.length,
            compiled: MIGRATIONS.length,
            roles: roles.rowCount,
          },
        },
      );
    }
    for (const name of UNUSED_DATABASES) {
      await root.query(`ALTER DATABASE ${name} IS_TEMPLATE false`);
      await root.query(`DROP DATABASE ${name}`);
    }
    await root.query("CHECKPOINT");
    return new Uint8Array(await (await root.pglite.dumpDataDir("none")).arrayBuffer());
  } finally {
    await root.close();
  }
}

/**
 * Finds a verified image for the current key, or builds one and caches it (a cache that cannot
 * be written is not an error: the image is then used from memory).
 */
export async function resolvePgliteImage(
  locations: ImageLocations = defaultImageLocations(),
): Promise<PgliteImage> {
  const key = imageKey();
  if (locations.shippedDir !== null) {
    const shipped = findImage(locations.shippedDir, key, ImageSource.shipped, false);
    if (shipped !== undefined) return shipped;
  }
  if (locations.cacheDir !== null) {
    const cached = findImage(locations.cacheDir, key, ImageSource.cache, true);
    if (cached !== undefined) return cached;
  }
  const tar = await buildPgliteImageBytes();
  let path: string | null = null;
  if (locations.cacheDir !== null) {
    try {
      path = writeImageFile(locations.cacheDir, key, tar);
    } catch {
      path = null; // read-only home, full disk: still usable from memory
    }
  }
  return { key, sha256: sha256Hex(tar), tar, source: ImageSource.built, path };
}

let processImage: Promise<PgliteImage> | undefined;

/** {@link resolvePgliteImage} at the default locations, once per process. */
export function loadPgliteImage(): Promise<PgliteImage> {
  processImage ??= resolvePgliteImage().catch((e: unknown) => {
    processImage = undefined;
    throw e;
  });
  return processImage;
}
