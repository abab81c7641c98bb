/**
 * engine/crash-points — named seams where a test can kill the process (SIGKILL) or pause it,
 * so crash windows are reproduced in real child processes instead of with mocks (§8).
 * Inert unless IRREVON_TEST_HOOKS=1; a benchmark or production process with hooks armed
 * refuses to start (crash_hooks_forbidden). Imports: core.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode, IrrevonError } from "../core/errors.js";

/** Every seam the engine exposes. Names are stable: process tests and docs cite them. */
export const CrashSeam = {
  persist_pre_commit: "persist.pre_commit",
  persist_post_commit: "persist.post_commit",
  gate_post_allow: "gate.post_allow",
  adapter_pre_call: "adapter.pre_call",
  adapter_post_call: "adapter.post_call",
  receipt_pre_commit: "receipt.pre_commit",
  receipt_post_commit: "receipt.post_commit",
  settle_pre_commit: "settle.pre_commit",
  reconcile_pre_settle: "reconcile.pre_settle",
  sweep_pre_finding: "sweep.pre_finding",
  recovery_after_record: "recovery.after_record",
} as const;
/** One named seam. */
export type CrashSeam = (typeof CrashSeam)[keyof typeof CrashSeam];
/** Every seam, in declaration order. */
export const CRASH_SEAMS: readonly CrashSeam[] = Object.values(CrashSeam);

/** What the engine calls at each seam. `hit` resolves at once when nothing is armed. */
export interface CrashPoints {
  readonly armed: boolean;
  hit(seam: CrashSeam): Promise<void>;
}

/** A no-op set of crash points (the default outside tests). */
export const NO_CRASH_POINTS: CrashPoints = { armed: false, hit: () => Promise.resolve() };

/** How long a paused seam waits for its release file before giving up. */
const SYNC_TIMEOUT_MS = 30_000;
const SYNC_POLL_MS = 20;

function parseSeam(name: string, variable: string): CrashSeam {
  const seam = CRASH_SEAMS.find((s) => s === name);
  if (seam === undefined) {
    throw new IrrevonError(ErrorCode.config_invalid, `${variable} names an unknown seam`, {
      details: { variable, seam: name, known: CRASH_SEAMS },
    });
  }
  return seam;
}

/** Parses `IRREVON_CRASH_AT=<seam>[:n][,<seam>[:n]…]` into seam → n-th hit that kills. */
function parseCrashAt(raw: string | undefined): Map<CrashSeam, number> {
  const out = new Map<CrashSeam, number>();
  if (raw === undefined || raw.trim() === "") return out;
  for (const part of raw.split(",")) {
    const [name = "", nth] = part.trim().split(":");
    const n = nth === undefined ? 1 : Number(nth);
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new IrrevonError(
        ErrorCode.config_invalid,
        "IRREVON_CRASH_AT hit count must be a positive integer",
        {
          details: { variable: "IRREVON_CRASH_AT", value: part },
        },
      );
    }
    out.set(parseSeam(name, "IRREVON_CRASH_AT"), n);
  }
  return out;
}

function parseSyncAt(raw: string | undefined): Set<CrashSeam> {
  const out = new Set<CrashSeam>();
  if (raw === undefined || raw.trim() === "") return out;
  for (const part of raw.split(",")) out.add(parseSeam(part.trim(), "IRREVON_SYNC_AT"));
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Reads the hook variables. Throws `crash_hooks_forbidden` when hooks are armed in a
 * benchmark (IRREVON_BENCH=1) or production (NODE_ENV=production) process, because a
 * crash hook left armed there would turn a measurement or a real dispatch into a test.
 */
export function crashPointsFromEnv(env: NodeJS.ProcessEnv = process.env): CrashPoints {
  if (env["IRREVON_TEST_HOOKS"] !== "1") return NO_CRASH_POINTS;
  if (env["IRREVON_BENCH"] === "1" || env["NODE_ENV"] === "production") {
    throw new IrrevonError(
      ErrorCode.crash_hooks_forbidden,
      "test crash hooks are armed in a benchmark or production process",
      {
        details: { bench: env["IRREVON_BENCH"] === "1", node_env: env["NODE_ENV"] ?? null },
      },
    );
  }
  const crashAt = parseCrashAt(env["IRREVON_CRASH_AT"]);
  const syncAt = parseSyncAt(env["IRREVON_SYNC_AT"]);
  const syncDir = env["IRREVON_SYNC_DIR"];
  if (syncAt.size > 0 && (syncDir === undefined || syncDir === "")) {
    throw new IrrevonError(ErrorCode.config_invalid, "IRREVON_SYNC_AT needs IRREVON_SYNC_DIR", {
      details: { variable: "IRREVON_SYNC_DIR" },
    });
  }
  const hits = new Map<CrashSeam, number>();

  async function hit(seam: CrashSeam): Promise<void> {
    const count = (hits.get(seam) ?? 0) + 1;
    hits.set(seam, count);
    if (syncAt.has(seam) && syncDir !== undefined) {
      process.stdout.write(`HOOK ${seam} REACHED\n`);
      const releaseFile = join(syncDir, `${seam}.release`);
      const started = Date.now();
      while (!existsSync(releaseFile)) {
        if (Date.now() - started > SYNC_TIMEOUT_MS) {
          throw new IrrevonError(ErrorCode.internal, "sync hook was never released", {
            details: { seam },
          });
        }
        await sleep(SYNC_POLL_MS);
      }
    }
    if (crashAt.get(seam) === count) {
      // stderr is synchronous for pipes and files on POSIX, so the line survives the kill.
      process.stderr.write(`HOOK ${seam} CRASH\n`);
      process.kill(process.pid, "SIGKILL");
      // SIGKILL is delivered asynchronously; never run past the seam.
      await new Promise<never>(() => undefined);
    }
  }

  return { armed: true, hit };
}
