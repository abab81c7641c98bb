/**
 * bench/engine/server-cpu — the CPU time the bench's Postgres server used over an interval,
 * read from /proc (Linux): user + system time of the server's postmaster and its children
 * (backends, walwriter, checkpointer, autovacuum), per process, in milliseconds (/proc counts
 * clock ticks of USER_HZ = 100 per second). Two snapshots are compared process by process: one
 * that started in between counts whole; one that ended in between is left out (its time since
 * the first snapshot is lost, so the figure errs low) and counted, so the report can say so.
 * The postmaster is found from a backend's parent process. Null where it cannot be read (not
 * Linux, or the server runs elsewhere). Other servers on the host are not counted; other
 * sessions on this server are (run the bench on a quiet server).
 * Imports: none.
 */
import { readFileSync, readdirSync } from "node:fs";

const USER_HZ = 100;

interface ProcStat {
  readonly ppid: number;
  readonly ticks: number;
}

function readStat(pid: number | string): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null; // ended meanwhile, not ours to read, or no /proc
  }
  // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const fields = stat.slice(close + 2).split(" ");
  // After comm, fields count from 3 (state): ppid is field 4, utime 14, stime 15.
  const ppid = Number(fields[1]);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ppid) && Number.isFinite(ticks) ? { ppid, ticks } : null;
}

/** The postmaster of a server whose backend has process id `backendPid`, or null. */
function postmasterOf(backendPid: number): number | null {
  return readStat(backendPid)?.ppid ?? null;
}

/** Something that runs one statement (a pg Client, a Db handle). */
interface Session {
  query(sql: string): Promise<{ readonly rows: ReadonlyArray<{ readonly pid?: unknown }> }>;
}

/** The postmaster of the server `session` is connected to; null when /proc cannot show it. */
export async function postmasterOfSession(session: Session): Promise<number | null> {
  const { rows } = await session.query("SELECT pg_backend_pid() AS pid");
  const pid = rows[0]?.pid;
  return typeof pid === "number" ? postmasterOf(pid) : null;
}

/** CPU ticks per process of the postmaster `postmasterPid` and its children; null if unreadable. */
export function serverCpuSnapshot(postmasterPid: number): Map<number, number> | null {
  const own = readStat(postmasterPid);
  if (own === null) return null;
  const out = new Map<number, number>([[postmasterPid, own.ticks]]);
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  for (const pid of pids) {
    const s = readStat(pid);
    if (s !== null && s.ppid === postmasterPid) out.set(Number(pid), s.ticks);
  }
  return out;
}

/** CPU milliseconds between two snapshots, and how many processes ended in between. */
export function serverCpuMsBetween(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): { readonly cpuMs: number; readonly endedProcesses: number } {
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  let ended = 0;
  for (const pid of before.keys()) if (!after.has(pid)) ended += 1;
  return { cpuMs: (ticks * 1000) / USER_HZ, endedProcesses: ended };
}
