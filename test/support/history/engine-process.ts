/**
 * test/support/history/engine-process — one engine in its own OS process
 * (src/testing/engine-child.ts under `node --import tsx`, never npx, which swallows
 * signals), driven over its line protocol. Lines are kept in order; `waitFor` consumes the
 * first unconsumed line that matches, so a `HOOK <seam> REACHED` line can be awaited while
 * RESULT lines keep their FIFO order. `post` writes a command without waiting, which is how a
 * barrier releases many processes in the same instant.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
/** The engine child every suite uses. */
export const ENGINE_CHILD_ENTRY = "src/testing/engine-child.ts";
/** A sweeping engine child (the engine child has no SWEEP verb yet). */
export const SWEEP_CHILD_ENTRY = "test/support/history/sweep-child.ts";

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export type EngineReply =
  | { readonly kind: "result"; readonly value: Record<string, unknown> }
  | { readonly kind: "exited"; readonly exit: ProcessExit };

export class EngineProcess {
  readonly label: string;
  readonly stderr: string[] = [];
  recovery: Record<string, unknown> | null = null;
  readonly #proc: ChildProcess;
  readonly #lines: string[] = [];
  #exit: ProcessExit | null = null;
  readonly #exited: Promise<ProcessExit>;
  #wake: Array<() => void> = [];

  private constructor(label: string, env: Readonly<Record<string, string>>, entry: string) {
    this.label = label;
    this.#proc = spawn(process.execPath, ["--import", "tsx", entry], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    createInterface({ input: this.#proc.stdout! }).on("line", (line) => {
      this.#lines.push(line);
      this.#notify();
    });
    createInterface({ input: this.#proc.stderr! }).on("line", (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 200) this.stderr.shift();
    });
    // A write to a child that died must not crash the test process.
    this.#proc.stdin!.on("error", () => undefined);
    this.#exited = new Promise((resolve) => {
      this.#proc.on("exit", (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
        this.#notify();
      });
    });
  }

  #notify(): void {
    for (const w of this.#wake.splice(0)) w();
  }

  /** Spawns a child without waiting for it. */
  static spawn(
    label: string,
    env: Readonly<Record<string, string>>,
    entry = ENGINE_CHILD_ENTRY,
  ): EngineProcess {
    return new EngineProcess(label, env, entry);
  }

  /** Spawns a child and waits for READY (throws if it dies or refuses first). */
  static async start(
    label: string,
    env: Readonly<Record<string, string>>,
    timeoutMs = 60_000,
  ): Promise<EngineProcess> {
    const child = new EngineProcess(label, env, ENGINE_CHILD_ENTRY);
    await child.ready(timeoutMs);
    return child;
  }

  /** Waits for READY; records the recovery report. Throws if the child dies first. */
  async ready(timeoutMs = 60_000): Promise<void> {
    const line = await this.waitFor(
      (l) => l === "READY" || l.startsWith("REFUSED ") || l.startsWith("RECOVERY DONE "),
      timeoutMs,
    );
    if (line === null) throw new Error(`${this.label} died before READY: ${this.stderrTail()}`);
    if (line.startsWith("REFUSED ")) throw new Error(`${this.label} refused: ${line}`);
    if (line.startsWith("RECOVERY DONE ")) {
      this.recovery = JSON.parse(line.slice("RECOVERY DONE ".length)) as Record<string, unknown>;
      const ready = await this.waitFor((l) => l === "READY", timeoutMs);
      if (ready === null) throw new Error(`${this.label} died before READY: ${this.stderrTail()}`);
    }
  }

  stderrTail(): string {
    return this.stderr.slice(-30).join("\n");
  }

  /** Consumes and returns the first unconsumed line matching `match`; null once the child is gone. */
  async waitFor(match: (line: string) => boolean, timeoutMs = 30_000): Promise<string | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.#lines.findIndex(match);
      if (index >= 0) return this.#lines.splice(index, 1)[0] ?? null;
      if (this.#exit !== null) return null;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new Error(
          `${this.label}: no matching line within ${timeoutMs} ms: ${this.stderrTail()}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Writes one command line without waiting for its answer. */
  post(line: string): void {
    if (this.#exit === null) this.#proc.stdin!.write(`${line}\n`);
  }

  /** The next RESULT (in order), or how the child ended. */
  async nextReply(timeoutMs = 60_000): Promise<EngineReply> {
    const line = await this.waitFor((l) => l.startsWith("RESULT "), timeoutMs);
    if (line === null) return { kind: "exited", exit: await this.#exited };
    return {
      kind: "result",
      value: JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>,
    };
  }

  /** Sends a command and waits for its RESULT or the child's death. */
  async send(line: string, timeoutMs = 60_000): Promise<EngineReply> {
    this.post(line);
    return this.nextReply(timeoutMs);
  }

  /** Sends a command that must answer (throws if the child dies). */
  async call(line: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
    const reply = await this.send(line, timeoutMs);
    if (reply.kind !== "result") {
      throw new Error(
        `${this.label} exited ${JSON.stringify(reply.exit)} on ${line.slice(0, 80)}: ${this.stderrTail()}`,
      );
    }
    return reply.value;
  }

  get pid(): number | undefined {
    return this.#proc.pid;
  }

  get exited(): Promise<ProcessExit> {
    return this.#exited;
  }

  get isAlive(): boolean {
    return this.#exit === null;
  }

  /** SIGKILL (the crash under test) and wait for the exit. */
  async kill(): Promise<ProcessExit> {
    if (this.#exit === null) this.#proc.kill("SIGKILL");
    return this.#exited;
  }

  /** Asks the child to exit cleanly; SIGKILLs it if it does not within `timeoutMs`. */
  async exit(timeoutMs = 15_000): Promise<ProcessExit> {
    if (this.#exit !== null) return this.#exit;
    this.post("EXIT");
    this.#proc.stdin!.end();
    const timer = setTimeout(() => this.#proc.kill("SIGKILL"), timeoutMs);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
