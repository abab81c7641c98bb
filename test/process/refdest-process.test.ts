/**
 * The refdest as a real child process (`tsx src/refdest/main.ts --tier C2 --seed 7 --port 0`):
 * it prints one ready line, survives a bounded burst of hostile loopback traffic, then serves a
 * correct create and status query with exactly one effect in its truth log, and exits 0 on
 * SIGTERM. The tsx loader is imported into one node process (`node --import tsx`, not `npx tsx`,
 * which adds wrapper processes) so SIGTERM — and the SIGKILL cleanup — reach the server itself.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REFDEST_C2_DECLARATION } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { REFDEST_TOKEN_ENV, RefdestControlClient } from "../../src/refdest/index.js";

const ROOT = join(import.meta.dirname, "..", "..");
const TOKEN = "proc-test-token-0123456789abcdef0123456789";
let child: ChildProcess | null = null;

afterAll(() => {
  if (child !== null && child.exitCode === null) child.kill("SIGKILL");
});

function waitForReady(
  proc: ChildProcess,
  timeoutMs: number,
): Promise<{ port: number; lines: string[] }> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const lines: string[] = [];
    const timer = setTimeout(
      () => reject(new Error(`no ready line within ${timeoutMs} ms: ${buffer}`)),
      timeoutMs,
    );
    proc.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const m = /^REFDEST READY (\d+)\n/.exec(buffer);
      if (m !== null) {
        clearTimeout(timer);
        lines.push(m[0]);
        resolve({ port: Number(m[1]), lines });
      }
    });
    proc.on("exit", (code) => reject(new Error(`exited early with ${code}`)));
  });
}

/** One hostile request; resolves with the status (0 when the connection was cut). */
function hostile(port: number, i: number): Promise<number> {
  const kind = i % 12;
  if (kind === 10 || kind === 11) {
    // Not HTTP at all, or headers that never finish: the socket is abandoned.
    return new Promise((resolve) => {
      const s = connect(port, "127.0.0.1", () => {
        s.write(
          kind === 10
            ? "\x16\x03\x01 garbage\r\n\r\n"
            : "POST /effects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n",
        );
        if (kind === 11) setTimeout(() => s.destroy(), 20);
      });
      s.on("data", () => undefined);
      s.on("error", () => resolve(0));
      s.on("close", () => resolve(0));
    });
  }
  const big = i % 60 === 1 ? "x".repeat(300 * 1024) : "x"; // every 60th request is oversized (kind 1)
  const specs: ReadonlyArray<readonly [string, string, Record<string, string>, string]> = [
    ["POST", "/effects", { "content-type": "application/json" }, "{not json"],
    [
      "POST",
      "/effects",
      { "content-type": "application/json" },
      JSON.stringify({ effect_type: "t", payload: { big }, reject: 1 }),
    ],
    ["POST", "/effects", { "content-type": "text/plain" }, "{}"],
    ["GET", `/nope/${i}`, {}, ""],
    ["DELETE", "/effects", {}, ""],
    ["GET", "/control/truth", { authorization: `Bearer wrong-${i}` }, ""],
    ["POST", "/control/oob", {}, JSON.stringify({ effect_type: "t", payload: {} })],
    ["GET", "/effects?from=nope&to=nope", {}, ""],
    ["POST", "/effects", { "content-type": "application/json" }, "[".repeat(2000)],
    [
      "POST",
      "/notify",
      { "content-type": "application/json" },
      JSON.stringify({ effect_type: "t", payload: {} }),
    ],
  ];
  const [method, path, headers, body] = specs[kind] as (typeof specs)[number];
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

describe("refdest child process", () => {
  it("survives a hostile burst, then serves a correct create/status, and exits 0 on SIGTERM", async () => {
    child = spawn(
      process.execPath,
      ["--import", "tsx", "src/refdest/main.ts", "--tier", "C2", "--seed", "7", "--port", "0"],
      {
        cwd: ROOT,
        env: { ...process.env, [REFDEST_TOKEN_ENV]: TOKEN },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const proc = child;
    let stdout = "";
    proc.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    const { port } = await waitForReady(proc, 30_000);
    const url = `http://127.0.0.1:${port}`;

    // A bounded burst: 300 requests, 16 in flight at a time, loopback only.
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 300) statuses.push(await hostile(port, next++));
      }),
    );
    expect(statuses).toHaveLength(300);
    expect(statuses.every((s) => s === 0 || (s >= 400 && s < 500))).toBe(true); // never a 2xx, never a 5xx
    expect(statuses.filter((s) => s === 413).length).toBeGreaterThan(0);
    expect(proc.exitCode).toBeNull();

    const adapter = new RefdestAdapter({ baseUrl: url, declaration: REFDEST_C2_DECLARATION });
    const order = {
      operationId: "i:1",
      effectType: "order.create",
      payload: { sku: "A1" },
      clientRef: "i:1",
      idempotencyKey: "i:1",
      stableIds: {},
    };
    const created = await adapter.dispatch(order, 5_000);
    expect(created).toMatchObject({
      transportOutcome: "OK",
      destinationRef: "dest_" + (await sha32("7:1")),
    });
    expect(
      (
        await adapter.statusQuery(
          { kind: "destination_ref", value: created.destinationRef ?? "" },
          5_000,
        )
      ).result,
    ).toBe("PRESENT");
    expect(await adapter.statusQuery({ kind: "client_ref", value: "i:1" }, 5_000)).toMatchObject({
      result: "PRESENT",
      nFound: 1,
    });
    const control = new RefdestControlClient(url, TOKEN);
    const truth = await control.truth();
    expect(truth.effects).toHaveLength(1);
    expect(truth.effects[0]).toMatchObject({ client_ref: "i:1", request_seq: 1, via: "api" });
    expect(Number((await control.state())["rejected_count"])).toBeGreaterThanOrEqual(280);

    const exited = new Promise<number | null>((resolve) =>
      proc.on("exit", (code) => resolve(code)),
    );
    proc.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toBe(`REFDEST READY ${port}\n`);
  });
});

async function sha32(text: string): Promise<string> {
  const { createHash } = await import("node:crypto");
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
