/**
 * db/process-identity — who a process is, precisely enough to tell a live lock owner from an
 * unrelated process that was later given the same pid. A pid alone is not an identity: pids
 * are reused, so a lock naming a pid that now belongs to some other program would lock the
 * ledger out forever. The identity adds the machine's boot id and the process's start time:
 * on Linux `/proc/sys/kernel/random/boot_id` and field 22 of `/proc/<pid>/stat`; on other
 * POSIX systems the start time `ps -o lstart=` prints; elsewhere (Windows) neither, and a
 * reused pid keeps the lock until that process exits (docs/decisions/0005-data-dir-lock.md).
 * Imports: nothing of ours.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** What a lock records about its owner (null where the platform cannot say). */
export interface ProcessIdentity {
  readonly pid: number;
  readonly bootId: string | null;
  readonly startTime: string | null;
}

let cachedBootId: string | null | undefined;

/** This machine's boot id (Linux), or null. */
export function currentBootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

/**
 * The start time of `pid` as an opaque string that is equal for the same process and (with
 * overwhelming likelihood) different for a later process given the same pid; null when the
 * process does not exist or the platform cannot say.
 */
export function processStartTime(pid: number): string | null {
  if (process.platform === "win32") return null;
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Field 2 (the command name) may hold spaces and parentheses: count from the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return fields[19] ?? null; // field 22: starttime, in clock ticks since boot
    } catch {
      return null;
    }
  }
  try {
    const out = execFileSync("ps", ["-o", "lstart=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5_000,
    }).trim();
    return out === "" ? null : out;
  } catch {
    return null;
  }
}

/** This process's identity. */
export function ownIdentity(): ProcessIdentity {
  return { pid: process.pid, bootId: currentBootId(), startTime: processStartTime(process.pid) };
}

/** Whether a process with this pid exists (EPERM: it does, but belongs to another user). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Why a recorded owner is, or is not, still running. */
export type OwnerVerdict = "alive" | "dead" | "pid_reused" | "previous_boot";

/**
 * Judges a recorded owner on this machine: `previous_boot` if the boot id changed, `dead` if no
 * process has its pid, `pid_reused` if the process with that pid started at another time,
 * otherwise `alive` (also when the platform cannot tell: a live pid is never taken from).
 */
export function judgeOwner(owner: ProcessIdentity): OwnerVerdict {
  const boot = currentBootId();
  if (owner.bootId !== null && boot !== null && owner.bootId !== boot) return "previous_boot";
  if (!pidExists(owner.pid)) return "dead";
  if (owner.startTime === null) return "alive";
  const start = processStartTime(owner.pid);
  if (start === null) return pidExists(owner.pid) ? "alive" : "dead";
  return start === owner.startTime ? "alive" : "pid_reused";
}
