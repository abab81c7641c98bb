/**
 * cli/demo/engine-child-client — drives one engine child process (src/testing/engine-child)
 * over its line protocol: it prints `RECOVERY DONE {json}` then `READY` (a standby child first
 * prints `STANDBY` and waits for `START`), and answers each
 * `REGISTER <json>` / `DISPATCH <id>` / `RECONCILE <id>` / `INSPECT <id>` / `EXIT` line with
 * `RESULT <json>`. Used by the flagship demo, which must crash a real process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { IrrevonError } from "../../core/errors.js";

/** Path of the engine child next to this module, as .ts under tsx and .js when built. */
export function engineChildEntry(): string {
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return fileURLToPath(new URL(`../../testing/engine-child${extension}`, import.meta.url));
}

export class EngineChildClient {
  readonly #child: ChildProcess;
  readonly #lines: string[] = [];
  readonly #waiters: Array<() => void> = [];
  #exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  readonly stderrTail: string[] = [];

  private constructor(child: ChildProcess) {
    this.#child = child;
    const stdout = child.stdout;
    if (stdout === null) throw new IrrevonError("internal", "engine child has no stdout");
    createInterface({ input: stdout }).on("line", (line) => {
      this.#lines.push(line);
      this.#wake();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail.push(chunk.toString("utf8"));
      if (this.stderrTail.length > 50) this.stderrTail.shift();
    });
    child.on("exit", (code, signal) => {
      this.#exited = { code, signal };
      this.#wake();
    });
    // A child that could not be spawned emits only 'error': it counts as exited.
    child.on("error", () => {
      this.#exited ??= { code: null, signal: null };
      this.#wake();
    });
    // A write to a child that already died (EPIPE) is not an error of the demo: the exit is.
    child.stdin?.on("error", () => undefined);
  }

  /** Spawns the child with the same Node flags as this process (so it works under tsx too). */
  static start(env: Readonly<Record<string, string>>): EngineChildClient {
    const child = spawn(process.execPath, [...process.execArgv, engineChildEntry()], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    return new EngineChildClient(child);
  }

  /**
   * Spawns a warm spare: the child loads its code and database driver, prints `STANDBY` and
   * opens nothing until {@link takeOver} — so a replacement for a process about to be killed
   * starts without a cold start, yet touches the ledger only once that process is gone.
   */
  static standby(env: Readonly<Record<string, string>>): EngineChildClient {
    return EngineChildClient.start({ ...env, IRREVON_STANDBY: "1" });
  }

  /** Lets a standby child boot: it opens the ledger and runs recovery from here on. */
  async takeOver(): Promise<void> {
    await this.expectLine("STANDBY");
    this.#child.stdin?.write("START\n");
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Waits for the next stdout line starting with `prefix`; returns the rest of the line. */
  async expectLine(prefix: string, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.#lines.findIndex((l) => l.startsWith(prefix));
      if (index >= 0) {
        const [line] = this.#lines.splice(0, index + 1).slice(-1);
        return (line ?? "").slice(prefix.length).trim();
      }
      if (this.#exited !== null) {
        // A child that refused to start (e.g. a ledger whose schema is not current) said why.
        const refused = this.#lines.find((l) => l.startsWith("REFUSED "));
        throw new IrrevonError(
          "internal",
          `engine child exited (code ${String(this.#exited.code)}, signal ${String(this.#exited.signal)}) before printing '${prefix}'${refused === undefined ? "" : `: ${refused}`}`,
          {
            details: {
              stderr: this.stderrTail.join("").slice(-2000),
              ...(refused === undefined ? {} : { refused: refused.slice("REFUSED ".length) }),
            },
          },
        );
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new IrrevonError(
          "internal",
          `engine child did not print '${prefix}' within ${timeoutMs} ms`,
        );
      await new Promise<void>((resolveWait) => {
        const timer = setTimeout(resolveWait, remaining);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolveWait();
        });
      });
    }
  }

  /** Sends one command line and returns the parsed RESULT object. */
  async command(line: string): Promise<Record<string, unknown>> {
    this.#child.stdin?.write(`${line}\n`);
    const text = await this.expectLine("RESULT ");
    return JSON.parse(text) as Record<string, unknown>;
  }

  /** SIGKILL: the crash the demo is about. Resolves with the exit signal. */
  async kill(): Promise<NodeJS.Signals | null> {
    this.#child.kill("SIGKILL");
    await this.waitExit();
    return this.#exited?.signal ?? null;
  }

  async waitExit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    while (this.#exited === null) {
      await new Promise<void>((r) => this.#waiters.push(r));
    }
    return this.#exited;
  }

  /** Asks the child to exit and waits for it. */
  async exit(): Promise<void> {
    if (this.#exited !== null) return;
    this.#child.stdin?.write("EXIT\n");
    this.#child.stdin?.end();
    await this.waitExit();
  }
}
