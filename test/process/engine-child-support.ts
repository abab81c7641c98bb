/**
 * test/process/engine-child-support — spawns src/testing/engine-child.ts as a real child
 * process (node --import tsx), speaks its line protocol, and reports how it ended (a SIGKILL
 * at a crash point shows as signal SIGKILL). Not a test file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRY = "src/testing/engine-child.ts";

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export type ChildReply =
  | { readonly kind: "result"; readonly value: Record<string, unknown> }
  | { readonly kind: "exited"; readonly exit: ChildExit };

export class EngineChild {
  readonly lines: string[] = [];
  readonly stderr: string[] = [];
  recovery: Record<string, unknown> | null = null;
  readonly #proc: ChildProcess;
  readonly #exited: Promise<ChildExit>;
  #waiters: Array<(line: string | null) => void> = [];
  #buffer: string[] = [];

  private constructor(env: Record<string, string>) {
    this.#proc = spawn(process.execPath, ["--import", "tsx", ENTRY], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    createInterface({ input: this.#proc.stdout! }).on("line", (line) => {
      this.lines.push(line);
      const waiter = this.#waiters.shift();
      if (waiter !== undefined) waiter(line);
      else this.#buffer.push(line);
    });
    createInterface({ input: this.#proc.stderr! }).on("line", (line) => this.stderr.push(line));
    this.#exited = new Promise((resolve) => {
      this.#proc.on("exit", (code, signal) => {
        for (const w of this.#waiters.splice(0)) w(null);
        resolve({ code, signal });
      });
    });
  }

  /** Starts a child and waits for READY (or its death). */
  static async start(env: Record<string, string>): Promise<EngineChild> {
    const child = new EngineChild(env);
    for (;;) {
      const line = await child.nextLine(60_000);
      if (line === null)
        throw new Error(`engine child died before READY: ${child.stderr.join("\n")}`);
      if (line.startsWith("RECOVERY DONE "))
        child.recovery = JSON.parse(line.slice("RECOVERY DONE ".length)) as Record<string, unknown>;
      if (line.startsWith("REFUSED ")) throw new Error(`engine child refused: ${line}`);
      if (line === "READY") return child;
    }
  }

  /**
   * Starts a child that reuses a worker id whose previous holder was SIGKILLed: while the dead
   * holder's lease is live the engine refuses with `worker_id_in_use` (one live engine per worker
   * id on a server ledger), so wait until the reported `live_until` and start again.
   */
  static async startAfterLease(
    env: Record<string, string>,
    timeoutMs = 120_000,
  ): Promise<EngineChild> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await EngineChild.start(env);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const refused = /^engine child refused: REFUSED (.*)$/s.exec(message);
        if (refused === null) throw error;
        const body = JSON.parse(refused[1] ?? "{}") as {
          error?: { code?: string; details?: { live_until?: string } };
        };
        if (body.error?.code !== "worker_id_in_use" || Date.now() > until) throw error;
        const liveUntil = Date.parse(body.error.details?.live_until ?? "");
        const waitMs = Number.isNaN(liveUntil) ? 1_000 : Math.max(liveUntil - Date.now(), 0) + 500;
        await new Promise((r) => setTimeout(r, waitMs));
      }
    }
  }

  /** The next stdout line, or null when the process ended. */
  nextLine(timeoutMs = 30_000): Promise<string | null> {
    const buffered = this.#buffer.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `engine child: no line within ${timeoutMs} ms; stderr: ${this.stderr.join("\n")}`,
            ),
          ),
        timeoutMs,
      );
      this.#waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  }

  /** Sends one command; resolves with its RESULT, or with the exit if the child died first. */
  async send(command: string): Promise<ChildReply> {
    this.#proc.stdin!.write(`${command}\n`);
    for (;;) {
      const line = await this.nextLine();
      if (line === null) return { kind: "exited", exit: await this.#exited };
      if (line.startsWith("RESULT "))
        return {
          kind: "result",
          value: JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>,
        };
    }
  }

  /** Writes every command at once, then collects one RESULT per command, in order. */
  async pipeline(
    commands: readonly string[],
    timeoutMs = 240_000,
  ): Promise<Array<Record<string, unknown>>> {
    this.#proc.stdin!.write(commands.map((c) => `${c}\n`).join(""));
    const results: Array<Record<string, unknown>> = [];
    while (results.length < commands.length) {
      const line = await this.nextLine(timeoutMs);
      if (line === null)
        throw new Error(`engine child exited mid-pipeline: ${this.stderr.join("\n")}`);
      if (line.startsWith("RESULT "))
        results.push(JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>);
    }
    return results;
  }

  /** Sends a command that must answer; throws otherwise. */
  async call(command: string): Promise<Record<string, unknown>> {
    const reply = await this.send(command);
    if (reply.kind !== "result")
      throw new Error(
        `engine child exited (${JSON.stringify(reply.exit)}) on ${command}: ${this.stderr.join("\n")}`,
      );
    return reply.value;
  }

  kill(): Promise<ChildExit> {
    this.#proc.kill("SIGKILL");
    return this.#exited;
  }

  async exit(): Promise<ChildExit> {
    this.#proc.stdin!.write("EXIT\n");
    return this.#exited;
  }

  get exited(): Promise<ChildExit> {
    return this.#exited;
  }
}
