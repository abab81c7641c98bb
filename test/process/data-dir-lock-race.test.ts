/**
 * One owner per embedded data directory (issue 14, item 5). Eight real processes leave a
 * time barrier together and race for a directory whose lock names a dead process, round after
 * round: exactly one may own it per round — never two (two PGlite instances on one directory
 * corrupt it), never none (a stale lock must not lock the ledger out). Control: the same
 * barrier with no lock file at all also yields exactly one owner. Then who counts as a live
 * owner: a pid reused by an unrelated process or a lock from an earlier boot is stale; a live
 * owner in another process is ledger_locked (retryable); a dead claimer's claim blocks nothing.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { IrrevonError } from "../../src/core/errors.js";
import { LOCK_FILE_NAME, lockDataDir } from "../../src/db/data-dir-lock.js";
import { currentBootId, processStartTime } from "../../src/db/process-identity.js";
import { EngineProcess } from "../support/history/engine-process.js";

const RACERS = 8;
const ROUNDS = 60;
const ENTRY = "test/support/lock-racer-child.ts";
/** Random pauses (up to 8 ms) at the lock's named seams widen every window a racer could hit. */
const JITTER = { IRREVON_TEST_HOOKS: "1", IRREVON_LOCK_JITTER_MS: "8" };

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

interface RoundResult {
  readonly owners: number;
  readonly codes: string[];
}

describe("data directory lock: racing processes", () => {
  let root: string;
  const racers: EngineProcess[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "irrevon-lock-race-"));
    for (let i = 0; i < RACERS; i++) racers.push(EngineProcess.spawn(`racer-${i}`, JITTER, ENTRY));
    for (const r of racers) {
      const ready = await r.waitFor((l) => l === "READY", 60_000);
      if (ready === null) throw new Error(`${r.label} died: ${r.stderrTail()}`);
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(racers.map((r) => r.exit()));
    rmSync(root, { recursive: true, force: true });
  });

  async function race(dir: string): Promise<RoundResult> {
    const startAt = Date.now() + 120;
    for (const r of racers) r.post(`ROUND ${dir} ${startAt}`);
    const replies = await Promise.all(racers.map((r) => r.nextReply()));
    const values = replies.map((r) => (r.kind === "result" ? r.value : { exited: true }));
    for (const r of racers) r.post("RELEASE");
    await Promise.all(racers.map((r) => r.nextReply()));
    return {
      owners: values.filter((v) => v["owner"] === true).length,
      codes: values.filter((v) => v["owner"] !== true).map((v) => String(v["code"])),
    };
  }

  it(
    `a stale lock (dead pid), ${RACERS} processes, ${ROUNDS} rounds: exactly one owner each round`,
    { timeout: 120_000 },
    async () => {
      const ownersPerRound: number[] = [];
      const codes = new Set<string>();
      const dead = deadPid();
      for (let round = 0; round < ROUNDS; round++) {
        const dir = join(root, `stale-${round}`);
        mkdirSync(dir);
        writeFileSync(join(dir, LOCK_FILE_NAME), `${dead}\n`);
        const result = await race(dir);
        ownersPerRound.push(result.owners);
        for (const c of result.codes) codes.add(c);
      }
      expect(ownersPerRound.filter((n) => n !== 1)).toEqual([]);
      expect([...codes]).toEqual(["ledger_locked"]);
    },
  );

  it("control: no lock file at all, 20 rounds: exactly one owner each round", async () => {
    const ownersPerRound: number[] = [];
    for (let round = 0; round < 20; round++) {
      const dir = join(root, `fresh-${round}`);
      ownersPerRound.push((await race(dir)).owners);
    }
    expect(ownersPerRound.filter((n) => n !== 1)).toEqual([]);
  });
});

/** A v1 lock record, as src/db/data-dir-lock.ts writes it. */
function lockRecord(fields: {
  pid: number;
  bootId: string | null;
  startTime: string | null;
  nonce: string;
}): string {
  return `${JSON.stringify({ v: 1, host: hostname(), since: new Date().toISOString(), ...fields })}\n`;
}

describe("data directory lock: who counts as the owner", () => {
  let dir: string;
  let bystander: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-lock-owner-"));
  });
  afterEach(() => {
    bystander?.kill("SIGKILL");
    bystander = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** An unrelated live process (its pid stands in for a reused one). */
  async function unrelatedProcess(): Promise<number> {
    bystander = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    await new Promise((r) => bystander!.once("spawn", r));
    return bystander.pid!;
  }

  it("a lock naming a pid now reused by an unrelated live process is taken over", async () => {
    const pid = await unrelatedProcess();
    expect(processStartTime(pid)).not.toBeNull();
    // Same boot, same pid, but that pid's process started at another time than the owner did.
    writeFileSync(
      join(dir, LOCK_FILE_NAME),
      lockRecord({ pid, bootId: currentBootId(), startTime: "1", nonce: "reused" }),
    );
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toMatchObject({ pid: process.pid });
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it("a lock written in an earlier boot is taken over, even if its pid is alive now", async () => {
    const pid = await unrelatedProcess();
    writeFileSync(
      join(dir, LOCK_FILE_NAME),
      lockRecord({
        pid,
        bootId: "an-earlier-boot",
        startTime: processStartTime(pid),
        nonce: "boot",
      }),
    );
    const boot = currentBootId();
    if (boot === null) return; // no boot id on this platform: nothing to compare
    lockDataDir(dir).release();
  });

  it("a live owner in another process: ledger_locked, retryable, naming its pid; free once it lets go", async () => {
    const owner = EngineProcess.spawn("owner", {}, ENTRY);
    try {
      expect(await owner.waitFor((l) => l === "READY", 60_000)).toBe("READY");
      owner.post(`ROUND ${dir} 0`);
      expect(await owner.nextReply()).toMatchObject({ kind: "result", value: { owner: true } });
      let refused: unknown;
      try {
        lockDataDir(dir).release();
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(IrrevonError);
      expect(refused).toMatchObject({
        code: "ledger_locked",
        retryable: true,
        details: { pid: owner.pid, reason: "alive" },
      });
      owner.post("RELEASE");
      expect(await owner.nextReply()).toMatchObject({ value: { released: true } });
      lockDataDir(dir).release();
    } finally {
      await owner.exit();
    }
  });

  it("a takeover claim left by a claimer that died does not block the next one", () => {
    const dead = deadPid();
    writeFileSync(
      join(dir, LOCK_FILE_NAME),
      lockRecord({ pid: dead, bootId: currentBootId(), startTime: null, nonce: "stale" }),
    );
    writeFileSync(
      join(dir, `${LOCK_FILE_NAME}.stale.claim.1`),
      lockRecord({ pid: dead, bootId: currentBootId(), startTime: null, nonce: "claimer" }),
    );
    const lock = lockDataDir(dir);
    expect(readdirSync(dir).filter((f) => f.startsWith(LOCK_FILE_NAME))).toEqual([LOCK_FILE_NAME]);
    lock.release();
  });
});
