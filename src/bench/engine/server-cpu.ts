/**
 * bench/engine/server-cpu — the CPU time the local Postgres server's processes have used, read
 * from /proc (Linux): the sum of user + system time of every process named `postgres`, in
 * milliseconds (/proc reports clock ticks of USER_HZ = 100 per second). A run compares two
 * readings to know how much of the server's CPU an interval took. Null where it cannot be
 * read (not Linux, or the server runs elsewhere: no such process is visible). Processes that
 * start and end inside the interval are missed; the throughput run opens its connections
 * before the first reading and closes them after the last. Imports: none.
 */
import { readFileSync, readdirSync } from "node:fs";

const USER_HZ = 100;

/** CPU milliseconds used so far by the visible `postgres` processes, or null. */
export function serverCpuMs(): number | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  let ticks = 0;
  let seen = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile, or not ours to read
    }
    // pid (comm) state ppid … : comm may hold spaces, so split after its closing parenthesis.
    const open = stat.indexOf("(");
    const close = stat.lastIndexOf(")");
    if (open < 0 || close < open || stat.slice(open + 1, close) !== "postgres") continue;
    const fields = stat.slice(close + 2).split(" ");
    // Fields after comm start at field 3 (state); utime and stime are fields 14 and 15.
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) continue;
    ticks += utime + stime;
    seen += 1;
  }
  return seen === 0 ? null : (ticks * 1000) / USER_HZ;
}
