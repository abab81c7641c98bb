/**
 * db/data-dir-lock — one process owns an embedded data directory. PGlite is a single Postgres
 * backend; two processes opening the same directory would corrupt it. The design, and why each
 * step is needed, is in docs/decisions/0005-data-dir-lock.md; in short:
 *
 * - The lock file `irrevon.lock` names its owner: pid, boot id, process start time, host and a
 *   random nonce. It only ever appears whole: the opener writes a private candidate file and
 *   `link()`s it into place (atomic create-if-absent), so no reader sees a half-written lock.
 * - An owner is stale when it ran in an earlier boot, its pid is gone, or its pid now belongs
 *   to a process that started at another time (pid reuse). Anything else on this host is held.
 * - Taking over a stale lock never deletes it (delete-then-create lets a third opener delete a
 *   fresh lock). The taker first wins a claim — `link()` of its candidate to a name derived
 *   from the stale lock's nonce, so exactly one process can claim one stale lock — then checks
 *   the lock still holds that nonce and `rename()`s its candidate over it (atomic replace).
 *   A claim whose claimer died is superseded by the next claim number.
 *
 * Imports: core, db.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { judgeOwner, ownIdentity, type OwnerVerdict } from "./process-identity.js";

/** Name of the lock file inside the data directory. */
export const LOCK_FILE_NAME = "irrevon.lock";

/** A lock file nobody can parse (written by an older version, or by hand) is stale after this. */
const UNREADABLE_STALE_MS = 10_000;
/** Leftover candidate and claim files older than this are removed by the next owner. */
const LEFTOVER_MS = 60_000;
/** Rounds of create / judge / claim before giving up with ledger_locked (each round is a lost race). */
const MAX_ROUNDS = 50;

/** A held lock; `release` is idempotent. */
export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** The owner a lock file names (format version 1; a bare pid is the format before it). */
export interface LockRecord {
  readonly v: 1;
  readonly pid: number;
  readonly bootId: string | null;
  readonly startTime: string | null;
  readonly host: string;
  readonly nonce: string;
  readonly since: string;
}

interface SeenLock {
  /** Unique per lock file ever written: its nonce (or, for a legacy file, its content and inode). */
  readonly key: string;
  readonly record: LockRecord | null;
  readonly legacyPid: number | null;
  readonly mtimeMs: number;
}

/** Test seam: with IRREVON_TEST_HOOKS=1, IRREVON_LOCK_JITTER_MS=n pauses up to n ms at each step. */
function jitter(): void {
  if (process.env["IRREVON_TEST_HOOKS"] !== "1") return;
  const maxMs = Number(process.env["IRREVON_LOCK_JITTER_MS"] ?? "0");
  if (maxMs > 0)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.random() * maxMs);
}

function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

function parseRecord(text: string): LockRecord | null {
  try {
    const r = JSON.parse(text) as Partial<LockRecord>;
    if (r.v !== 1 || !Number.isSafeInteger(r.pid) || typeof r.nonce !== "string") return null;
    return r as LockRecord;
  } catch {
    return null;
  }
}

/** Reads the lock at `path`; null if there is none. */
function readLock(path: string): SeenLock | null {
  let text: string;
  let st: { ino: number; mtimeMs: number };
  try {
    st = statSync(path);
    text = readFileSync(path, "utf8");
  } catch (e) {
    if (errnoOf(e) === "ENOENT") return null;
    throw e;
  }
  const record = parseRecord(text);
  if (record !== null) return { key: record.nonce, record, legacyPid: null, mtimeMs: st.mtimeMs };
  const pid = Number.parseInt(text.trim(), 10);
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
  return {
    key: `legacy-${digest}-${st.ino}`,
    record: null,
    legacyPid: /^\d+\s*$/.test(text) && Number.isSafeInteger(pid) && pid > 0 ? pid : null,
    mtimeMs: st.mtimeMs,
  };
}

/** Why `seen` is (not) stale; "alive" and "other_host" and "unreadable" hold the lock. */
function verdictOf(seen: SeenLock): OwnerVerdict | "other_host" | "unreadable" {
  if (seen.record !== null) {
    if (seen.record.host !== hostname()) return "other_host"; // its processes are not ours to judge
    return judgeOwner(seen.record);
  }
  if (seen.legacyPid !== null)
    return judgeOwner({ pid: seen.legacyPid, bootId: null, startTime: null });
  // Unparseable: an older version between open() and write(), unless it has been like this a while.
  return Date.now() - seen.mtimeMs > UNREADABLE_STALE_MS ? "dead" : "unreadable";
}

const isStale = (v: ReturnType<typeof verdictOf>): boolean =>
  v === "dead" || v === "pid_reused" || v === "previous_boot";

function lockedError(
  dir: string,
  path: string,
  seen: SeenLock | null,
  reason: string,
): IrrevonError {
  const pid = seen?.record?.pid ?? seen?.legacyPid ?? null;
  return new IrrevonError(
    ErrorCode.ledger_locked,
    `the ledger data directory ${dir} is in use by another process${pid === null ? "" : ` (pid ${pid})`}`,
    {
      // Retryable: the directory is free again once its owner stops (a dead owner is taken over at once).
      retryable: true,
      details: {
        data_dir: dir,
        lock_file: path,
        pid,
        host: seen?.record?.host ?? null,
        since: seen?.record?.since ?? null,
        reason,
      },
    },
  );
}

/** Creates `to` as a hard link of `from`; false if `to` exists. */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (e) {
    if (errnoOf(e) === "EEXIST") return false;
    throw e;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if (errnoOf(e) !== "ENOENT") throw e;
  }
}

const claimPrefix = (key: string): string => `${LOCK_FILE_NAME}.${key}.claim.`;

/** The claim files on the stale lock `key`, highest number first. */
function claimsOn(dir: string, key: string): Array<{ n: number; path: string }> {
  const prefix = claimPrefix(key);
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
    .map((f) => ({ n: Number(f.slice(prefix.length)), path: join(dir, f) }))
    .sort((a, b) => b.n - a.n);
}

/** Removes candidate and claim files that crashed openers left behind long ago. */
function removeLeftovers(dir: string): void {
  const now = Date.now();
  for (const f of readdirSync(dir)) {
    if (!f.startsWith(`${LOCK_FILE_NAME}.`)) continue;
    if (!f.endsWith(".new") && !f.includes(".claim.")) continue;
    try {
      if (now - statSync(join(dir, f)).mtimeMs > LEFTOVER_MS) unlinkQuietly(join(dir, f));
    } catch (e) {
      if (errnoOf(e) !== "ENOENT") throw e;
    }
  }
}

function heldLock(path: string, nonce: string): DataDirLock {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      // Only our own lock: after a takeover of this (then stale) process the file is not ours.
      if (readLock(path)?.key === nonce) unlinkQuietly(path);
    },
  };
}

/** Takes the lock on `dataDir` (creating the directory), or throws `ledger_locked`. */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE_NAME);
  const me: LockRecord = {
    v: 1,
    ...ownIdentity(),
    host: hostname(),
    nonce: randomBytes(16).toString("hex"),
    since: new Date().toISOString(),
  };
  const candidate = join(dir, `${LOCK_FILE_NAME}.${me.nonce}.new`);
  const writeCandidate = (): void =>
    writeFileSync(candidate, `${JSON.stringify(me)}\n`, { flag: "wx", mode: 0o600 });
  writeCandidate();
  let last: SeenLock | null = null;
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      jitter();
      try {
        if (tryLink(candidate, path)) {
          removeLeftovers(dir);
          return heldLock(path, me.nonce);
        }
      } catch (e) {
        // A slow round's candidate may have been tidied away by an owner: write it again.
        if (errnoOf(e) !== "ENOENT") throw e;
        writeCandidate();
        continue;
      }
      const seen = readLock(path);
      if (seen === null) continue; // released between our link and our read
      last = seen;
      const verdict = verdictOf(seen);
      if (!isStale(verdict)) throw lockedError(dir, path, seen, verdict);
      jitter();
      const claims = claimsOn(dir, seen.key);
      const top = claims[0];
      if (top !== undefined) {
        const claimer = readLock(top.path);
        if (claimer !== null && !isStale(verdictOf(claimer)))
          throw lockedError(dir, path, seen, "takeover_in_progress");
      }
      const claim = join(dir, `${claimPrefix(seen.key)}${(top?.n ?? 0) + 1}`);
      if (!tryLink(candidate, claim)) continue; // another process claimed this stale lock first
      jitter();
      // The compare step: is the stale lock we claimed still the one in place?
      if (readLock(path)?.key !== seen.key) {
        unlinkQuietly(claim);
        continue;
      }
      jitter();
      renameSync(candidate, path);
      for (const c of claimsOn(dir, seen.key)) unlinkQuietly(c.path);
      if (readLock(path)?.key !== me.nonce)
        throw lockedError(dir, path, readLock(path), "taken_over_concurrently");
      removeLeftovers(dir);
      return heldLock(path, me.nonce);
    }
    throw lockedError(dir, path, last, "contended");
  } finally {
    unlinkQuietly(candidate);
  }
}
