/**
 * The migrated PGlite image (src/db/pglite-image): a clone has the same roles, ACLs and
 * migration journal as a database migrated from initdb, and the migrator finds nothing to do;
 * an image file is used only if its bytes hash to the SHA-256 in its name (a tampered cached
 * copy is reported, deleted and rebuilt; a tampered shipped copy is reported and skipped); an
 * image of another key is never used; a file-backed ledger is seeded on disk and reopens
 * without the image; a seed interrupted half-way is wiped and redone; a corrupt tarball is
 * `storage_error` (on disk and in memory); in-memory clones never share bytes with the image. Concurrent builders in real processes: test/process/pglite-image-cache.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrivilegedDb } from "../../src/db/db.js";
import { JOURNAL_TABLE, migrate } from "../../src/db/migrator.js";
import { MIGRATIONS } from "../../src/db/migrations.generated.js";
import { openPglite, SEEDING_MARKER } from "../../src/db/pglite-driver.js";
import {
  findImage,
  imageFileName,
  imageKey,
  ImageSource,
  resolvePgliteImage,
  writeImageFile,
  type PgliteImage,
} from "../../src/db/pglite-image.js";
import { extractTar } from "../../src/db/ustar.js";
import { expectDbError } from "../support/expect-db-error.js";

const sha256 = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");

/** Roles, table/view/sequence ACLs, function ACLs and owners, and the journal, as one text. */
async function catalog(db: PrivilegedDb): Promise<string> {
  const parts = await Promise.all([
    db.query(
      "SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcanlogin, rolbypassrls FROM pg_roles WHERE rolname LIKE 'irrevon%' ORDER BY 1",
    ),
    db.query(
      "SELECT m.roleid::regrole::text AS role, m.member::regrole::text AS member FROM pg_auth_members m WHERE m.roleid::regrole::text LIKE 'irrevon%' OR m.member::regrole::text LIKE 'irrevon%' ORDER BY 1, 2",
    ),
    db.query(
      "SELECT c.relname, c.relkind, c.relowner::regrole::text AS owner, c.relacl::text AS acl FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1",
    ),
    db.query(
      "SELECT p.oid::regprocedure::text AS fn, p.proowner::regrole::text AS owner, p.prosecdef, p.proconfig::text AS config, p.proacl::text AS acl FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1",
    ),
    db.query(
      "SELECT tgname, tgrelid::regclass::text AS rel FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2",
    ),
    db.query(`SELECT filename, sha256 FROM ${JOURNAL_TABLE} ORDER BY filename`),
  ]);
  return JSON.stringify(parts.map((p) => p.rows));
}

function captureWarnings(): { codes: string[]; stop(): void } {
  const codes: string[] = [];
  const listener = (w: Error & { code?: string }): void => {
    codes.push(w.code ?? w.name);
  };
  process.on("warning", listener);
  return { codes, stop: () => process.off("warning", listener) };
}

/** process.emitWarning delivers on the next tick. */
const nextTick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("the migrated PGlite image", () => {
  let cacheDir: string;
  let image: PgliteImage;

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), "irrevon-image-cache-"));
    image = await resolvePgliteImage({ shippedDir: null, cacheDir });
  }, 180_000);

  it("is built once into the cache under its key and content hash, then read back verified", async () => {
    expect(image.source).toBe(ImageSource.built);
    expect(image.key).toBe(imageKey());
    expect(image.path).toBe(join(cacheDir, imageFileName(image.key, image.sha256)));
    expect(sha256(readFileSync(image.path ?? ""))).toBe(image.sha256);
    expect(readdirSync(cacheDir)).toEqual([imageFileName(image.key, image.sha256)]);
    const again = await resolvePgliteImage({ shippedDir: null, cacheDir });
    expect(again.source).toBe(ImageSource.cache);
    expect(again.sha256).toBe(image.sha256);
  });

  it("a clone has the roles, grants, owners, triggers and journal of a freshly migrated database; migrate applies nothing", async () => {
    const fresh = await openPglite();
    const clone = await openPglite({ seed: () => Promise.resolve(image) });
    try {
      await migrate(fresh);
      const result = await migrate(clone);
      expect(result.applied).toEqual([]);
      expect(result.alreadyApplied).toEqual(MIGRATIONS.map((m) => m.filename));
      const cloned = await catalog(clone);
      expect(cloned).toContain("irrevon_app");
      expect(cloned).toBe(await catalog(fresh));
    } finally {
      await Promise.all([fresh.close(), clone.close()]);
    }
  }, 180_000);

  it("a tampered cached image is reported, deleted and never used", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-image-tamper-"));
    const path = writeImageFile(dir, image.key, image.tar);
    const bytes = readFileSync(path);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0xff;
    writeFileSync(path, bytes);
    const warnings = captureWarnings();
    try {
      expect(findImage(dir, image.key, ImageSource.cache, true)).toBeUndefined();
      await nextTick();
    } finally {
      warnings.stop();
    }
    expect(warnings.codes).toContain("IRREVON_IMAGE_REJECTED");
    expect(existsSync(path)).toBe(false);
  });

  it("a tampered shipped image is reported and skipped (never deleted); the cache is used instead", async () => {
    const shipped = mkdtempSync(join(tmpdir(), "irrevon-image-shipped-"));
    const path = join(shipped, imageFileName(image.key, image.sha256));
    writeFileSync(path, Buffer.from("not the image"));
    const warnings = captureWarnings();
    let resolved: PgliteImage;
    try {
      resolved = await resolvePgliteImage({ shippedDir: shipped, cacheDir });
      await nextTick();
    } finally {
      warnings.stop();
    }
    expect(warnings.codes).toContain("IRREVON_IMAGE_REJECTED");
    expect(resolved.source).toBe(ImageSource.cache);
    expect(existsSync(path)).toBe(true);
  });

  it("an image built for another key (other migrations or PGlite) is not used", () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-image-stale-"));
    writeImageFile(dir, "v1-pglite0.0.0-0000000000000000", image.tar);
    expect(findImage(dir, image.key, ImageSource.cache, true)).toBeUndefined();
    expect(readdirSync(dir)).toHaveLength(1); // left alone: it belongs to another install
  });

  it("seeds a new file-backed ledger on disk; it reopens without the image", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "irrevon-image-file-")), "ledger");
    let seeds = 0;
    const seed = (): Promise<PgliteImage> => {
      seeds += 1;
      return Promise.resolve(image);
    };
    const first = await openPglite({ dataDir, seed });
    try {
      expect((await migrate(first)).applied).toEqual([]);
      await first.query("CREATE TABLE kept_row AS SELECT 1 AS x");
    } finally {
      await first.close();
    }
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true);
    expect(existsSync(join(dataDir, SEEDING_MARKER))).toBe(false);
    const again = await openPglite({ dataDir, seed });
    try {
      expect(seeds).toBe(1); // an existing ledger is never re-seeded
      expect((await again.query("SELECT x FROM kept_row")).rows).toEqual([{ x: 1 }]);
    } finally {
      await again.close();
    }
  }, 180_000);

  it("a seed interrupted half-way (marker left behind) is wiped and redone", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "irrevon-image-interrupted-")), "ledger");
    mkdirSync(join(dataDir, "base"), { recursive: true });
    writeFileSync(join(dataDir, "PG_VERSION"), "18\n");
    writeFileSync(join(dataDir, "base", "half-written"), "x");
    writeFileSync(join(dataDir, SEEDING_MARKER), "12345\n");
    const db = await openPglite({ dataDir, seed: () => Promise.resolve(image) });
    try {
      expect((await migrate(db)).applied).toEqual([]);
    } finally {
      await db.close();
    }
    expect(existsSync(join(dataDir, "base", "half-written"))).toBe(false);
    expect(existsSync(join(dataDir, SEEDING_MARKER))).toBe(false);
  }, 180_000);

  it("a corrupt tarball is storage_error and writes nothing outside the target", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-image-corrupt-"));
    expect(() => extractTar(new Uint8Array(1024).fill(7), dir)).toThrow(
      expect.objectContaining({ code: "storage_error" }),
    );
    const dataDir = join(dir, "ledger");
    const bad = (): Promise<{ tar: Uint8Array }> => Promise.resolve({ tar: Buffer.alloc(2048, 1) });
    await expectDbError(openPglite({ dataDir, seed: bad }), "storage_error");
    await expectDbError(openPglite({ seed: bad }), "storage_error"); // in memory too
  });

  it("in-memory clones of one image share no bytes: a write to one is not in the next, the image is unchanged", async () => {
    // Read back from the cache, as every process after the first gets it (a Node Buffer).
    const cached = await resolvePgliteImage({ shippedDir: null, cacheDir });
    expect(cached.source).toBe(ImageSource.cache);
    const first = await openPglite({ seed: () => Promise.resolve(cached) });
    try {
      await first.query("CREATE TABLE written_in_first AS SELECT 1 AS x");
      await first.query("CHECKPOINT"); // push the pages into the memory file system
    } finally {
      await first.close();
    }
    expect(sha256(cached.tar)).toBe(cached.sha256);
    const second = await openPglite({ seed: () => Promise.resolve(cached) });
    try {
      const { rows } = await second.query("SELECT to_regclass('written_in_first') AS t");
      expect(rows).toEqual([{ t: null }]);
      expect((await migrate(second)).applied).toEqual([]);
    } finally {
      await second.close();
    }
  }, 180_000);

  afterAll(() => undefined);
});
