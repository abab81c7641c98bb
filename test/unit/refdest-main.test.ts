/** runRefdestMain in-process: argument handling, the ready line, the token, clean stop, exit codes. */
import { describe, expect, it } from "vitest";
import { REFDEST_TOKEN_ENV, runRefdestMain } from "../../src/refdest/main.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  let onLine: ((line: string) => void) | null = null;
  return {
    out,
    err,
    io: (signal: AbortSignal, env: Record<string, string> = {}) => ({
      stdout: { write: (t: string) => (out.push(t), onLine?.(t)) },
      stderr: { write: (t: string) => err.push(t) },
      signal,
      env,
    }),
    nextLine: () => new Promise<string>((resolve) => (onLine = resolve)),
  };
}

describe("runRefdestMain", () => {
  it.each([
    [["--tier", "C4"]],
    [["--seed", "-1"]],
    [["--seed", "abc"]],
    [["--port", "70000"]],
    [["--lag-seconds", "1.5"]],
    [["--unknown"]],
    [["positional"]],
  ])("exits 2 on usage error %j", async (argv) => {
    const c = capture();
    expect(await runRefdestMain(argv, c.io(new AbortController().signal))).toBe(2);
    expect(c.err.join("")).toContain("usage:");
    expect(c.out).toEqual([]);
  });

  it("exits 2 for a malformed token in the environment", async () => {
    const c = capture();
    expect(
      await runRefdestMain(
        [],
        c.io(new AbortController().signal, { [REFDEST_TOKEN_ENV]: "short" }),
      ),
    ).toBe(2);
  });

  it("prints exactly one ready line, serves, and stops with 0 on abort", async () => {
    const c = capture();
    const stop = new AbortController();
    const line = c.nextLine();
    const done = runRefdestMain(["--tier", "C2", "--seed", "7", "--port", "0"], c.io(stop.signal));
    const ready = await line;
    const m = /^REFDEST READY (\d+)\n$/.exec(ready);
    expect(m).not.toBeNull();
    const res = await fetch(`http://127.0.0.1:${m?.[1]}/effects?client_ref=x`);
    expect(res.status).toBe(200);
    stop.abort();
    expect(await done).toBe(0);
    expect(c.out).toEqual([ready]);
  });

  it("--json prints one object with the port and the control token (the env token when given)", async () => {
    const c = capture();
    const stop = new AbortController();
    const token = "t".repeat(40);
    const line = c.nextLine();
    const done = runRefdestMain(
      ["--tier", "C1", "--json", "--lag-seconds", "5"],
      c.io(stop.signal, { [REFDEST_TOKEN_ENV]: token }),
    );
    const ready = JSON.parse(await line) as Record<string, unknown>;
    expect(ready).toMatchObject({
      event: "refdest_ready",
      tier: "C1",
      seed: 42,
      lag_seconds: 5,
      control_token: token,
    });
    const state = await fetch(`${String(ready["url"])}/control/state`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await state.json()) as Record<string, unknown>)["lag_seconds"]).toBe(5);
    stop.abort();
    expect(await done).toBe(0);
  });

  it("exits 1 when the port is taken", async () => {
    const first = capture();
    const stop = new AbortController();
    const line = first.nextLine();
    const done = runRefdestMain(["--port", "0"], first.io(stop.signal));
    const port = /(\d+)/.exec(await line)?.[1] ?? "0";
    const second = capture();
    expect(await runRefdestMain(["--port", port], second.io(new AbortController().signal))).toBe(1);
    expect(second.err.join("")).toContain("EADDRINUSE");
    stop.abort();
    expect(await done).toBe(0);
  });
});
