/**
 * test/support/private-postgres — a throwaway PostgreSQL cluster of a test's own, so a test can
 * restart or crash "the database server" without touching the shared server every other suite
 * uses. `initdb` into a fresh temp directory, a postmaster on 127.0.0.1 and a free port (its
 * unix socket inside the same directory), `pg_ctl` to stop, crash (`-m immediate`) and start it
 * again. initdb and postgres refuse to run as root, so as root they run as the `postgres` OS
 * user (runuser); otherwise as the current user.
 *
 * The binaries come from IRREVON_PG_BIN, else the newest /usr/lib/postgresql/<n>/bin. When they
 * are absent, `privatePostgresUnavailable` says why and the suite skips. A process-exit hook
 * crashes any cluster still running, so an aborted test run leaves no postmaster behind.
 */
import { execFile, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How `pg_ctl stop` ends the server: `fast` rolls back and checkpoints, `immediate` crashes. */
export type StopMode = "fast" | "immediate";

/** Options of {@link PrivatePostgres.restart}. */
export interface RestartOptions {
  /** Default `immediate`: every backend dies at once, the next start replays the WAL. */
  readonly mode?: StopMode;
  /** Runs while the server is down (connections refused); the server starts after it settles. */
  readonly whileDown?: () => Promise<void>;
}

/** A running throwaway cluster. */
export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth). */
  readonly url: string;
  readonly port: number;
  /** The temp directory holding the data directory, the socket and the server log. */
  readonly dir: string;
  /** `url` with another database name. */
  urlFor(database: string): string;
  /** Stops the server (`-m immediate` by default) and starts it again on the same port. */
  restart(options?: RestartOptions): Promise<void>;
  /** Stops the server, keeping the cluster (start it again with `resume`). */
  halt(mode?: StopMode): Promise<void>;
  /** Starts a halted server again. */
  resume(): Promise<void>;
  /** Whether the postmaster is up (by `pg_ctl status`). */
  isRunning(): boolean;
  /** The server log so far (for failure messages). */
  log(): string;
  /** Crashes the server if it runs and deletes the directory. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startPrivatePostgres}. */
export interface StartOptions {
  /** Default: a free loopback port. */
  readonly port?: number;
}

const AS_ROOT = process.getuid?.() === 0;
const RUN_AS = "postgres";

function findBinDir(): string | undefined {
  const explicit = process.env["IRREVON_PG_BIN"];
  if (explicit !== undefined && explicit !== "") return explicit;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, "bin")).find((d) => existsSync(join(d, "pg_ctl")));
}

/** The PostgreSQL bin directory used (undefined when none is found). */
export const PG_BIN_DIR: string | undefined = findBinDir();

function unavailableReason(): string | undefined {
  if (PG_BIN_DIR === undefined)
    return "no PostgreSQL binaries (set IRREVON_PG_BIN or install postgresql under /usr/lib/postgresql)";
  for (const tool of ["initdb", "pg_ctl", "postgres"]) {
    if (!existsSync(join(PG_BIN_DIR, tool))) return `${tool} missing in ${PG_BIN_DIR}`;
  }
  if (AS_ROOT && spawnSync("id", ["-u", RUN_AS]).status !== 0)
    return `running as root and there is no '${RUN_AS}' OS user to run the server as`;
  return undefined;
}

/** Why a private cluster cannot be started here, or undefined when it can. */
export const privatePostgresUnavailable: string | undefined = unavailableReason();

/** argv for running a PostgreSQL tool as the right OS user. */
function command(tool: string, args: readonly string[]): [string, string[]] {
  const bin = join(PG_BIN_DIR ?? "", tool);
  return AS_ROOT ? ["runuser", ["-u", RUN_AS, "--", bin, ...args]] : [bin, [...args]];
}

function run(tool: string, args: readonly string[], timeoutMs = 60_000): Promise<string> {
  const [file, argv] = command(tool, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${tool} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
    });
  });
}

/** Clusters of this process still running: crashed on exit so none outlives the run. */
const live = new Set<string>();
process.on("exit", () => {
  for (const data of live) {
    const [file, argv] = command("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
    spawnSync(file, argv, { stdio: "ignore", timeout: 10_000 });
  }
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** initdb + start. Always `stop()` the result (afterAll), even when the test fails. */
export async function startPrivatePostgres(options: StartOptions = {}): Promise<PrivatePostgres> {
  if (privatePostgresUnavailable !== undefined) throw new Error(privatePostgresUnavailable);
  const dir = mkdtempSync(join(tmpdir(), "irrevon-private-pg-"));
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  if (AS_ROOT) {
    const { uid, gid } = userInfoOf(RUN_AS);
    chownSync(dir, uid, gid);
  }
  const port = options.port ?? (await freePort());
  // Server settings on the command line (pg_ctl start -o), so every start uses them.
  const serverOptions = [
    "-c listen_addresses=127.0.0.1",
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    // Only the server process dies in these tests, never the machine: the kernel keeps what
    // was written, so skipping fsync loses nothing a restart could observe and saves time.
    "-c fsync=off",
    "-c max_connections=60",
  ].join(" ");
  let stopped = false;

  const start = async (): Promise<void> => {
    await run("pg_ctl", [
      "start",
      "-D",
      data,
      "-l",
      logFile,
      "-w",
      "-t",
      "60",
      "-o",
      serverOptions,
    ]);
    live.add(data);
  };
  const halt = async (mode: StopMode = "immediate"): Promise<void> => {
    await run("pg_ctl", ["stop", "-D", data, "-m", mode, "-w", "-t", "60"]);
    live.delete(data);
  };
  const isRunning = (): boolean => {
    const [file, argv] = command("pg_ctl", ["status", "-D", data]);
    return spawnSync(file, argv, { stdio: "ignore" }).status === 0;
  };

  try {
    await run("initdb", [
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ]);
    await start();
  } catch (e) {
    if (isRunning()) await halt().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    dir,
    urlFor(database) {
      const u = new URL(url);
      u.pathname = `/${database}`;
      return u.toString();
    },
    async restart(restartOptions = {}) {
      await halt(restartOptions.mode ?? "immediate");
      try {
        await restartOptions.whileDown?.();
      } finally {
        await start();
      }
    },
    halt,
    resume: start,
    isRunning,
    log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        if (isRunning()) await halt("immediate");
      } finally {
        live.delete(data);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function userInfoOf(name: string): { uid: number; gid: number } {
  const uid = Number(spawnSync("id", ["-u", name], { encoding: "utf8" }).stdout.trim());
  const gid = Number(spawnSync("id", ["-g", name], { encoding: "utf8" }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error(`no OS user ${name}`);
  return { uid, gid };
}
