/**
 * `irrevon serve` in a real child process: it checks the ledger before binding (a missing
 * embedded ledger or a bad port is a clean exit 3 / 2), prints its loopback URL as JSON,
 * serves the read-only API on 127.0.0.1, logs `serve.request` lines on stderr, and exits 0
 * on SIGTERM. Runs against an embedded ledger directory and against the Postgres server.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { DbRole } from "../../src/db/db.js";
import { openDatabase } from "../../src/db/open.js";
import { CLI_ENTRY, REPO_ROOT } from "../support/cli.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";

/**
 * Each test starts `node --import tsx` children (tsx compiles the CLI on start) and the
 * embedded test also opens PGlite twice (the clone here, the child's reopen): ~10 s of CPU
 * unloaded, 40-65 s wall on a loaded machine (full suite, 2 workers), which overran 60 s.
 */
const PROCESS_TIMEOUT_MS = 120_000;

interface Served {
  readonly child: ChildProcess;
  readonly doc: { url: string; port: number; read_role: string };
  stderr(): string;
  exit(): Promise<number | null>;
}

function serve(args: readonly string[]): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...CLI_ENTRY, "serve", "--json", "--port", "0", ...args],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NO_COLOR: "1", DATABASE_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    child.on("exit", (code) =>
      reject(new Error(`serve exited early with ${String(code)}: ${stderr}`)),
    );
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => {
      resolve({
        child,
        doc: JSON.parse(line) as Served["doc"],
        stderr: () => stderr,
        exit: () => exited,
      });
    });
  });
}

async function exerciseAndStop(s: Served): Promise<void> {
  expect(s.doc.url).toBe(`http://127.0.0.1:${s.doc.port}/`);
  expect(s.doc.read_role).toBe("irrevon_read");
  const health = await fetch(`${s.doc.url}api/v1/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: "ok" });
  const effects = (await (await fetch(`${s.doc.url}api/v1/effects`)).json()) as { data: unknown[] };
  expect(effects.data).toEqual([]);
  expect((await fetch(`${s.doc.url}api/v1/effects`, { method: "POST", body: "{}" })).status).toBe(
    405,
  );
  s.child.kill("SIGTERM");
  expect(await s.exit()).toBe(0);
  const logged = s
    .stderr()
    .split("\n")
    .filter((l) => l.includes('"serve.request"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(logged.map((l) => [l["method"], l["path"], l["status"]])).toEqual([
    ["GET", "/api/v1/health", 200],
    ["GET", "/api/v1/effects", 200],
    ["POST", "/api/v1/effects", 405],
  ]);
}

describe("irrevon serve", () => {
  let running: Served | undefined;
  let ledger: TestLedger | undefined;
  afterEach(async () => {
    running?.child.kill("SIGKILL");
    running = undefined;
    await ledger?.close();
    ledger = undefined;
  });

  it("serves an embedded ledger read-only on 127.0.0.1 and stops on SIGTERM", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "irrevon-serve-")), "ledger");
    const app = await openDatabase({ dataDir, role: DbRole.app, autoMigrate: true });
    await app.close();
    running = await serve(["--data-dir", dataDir]);
    await exerciseAndStop(running);
  }, PROCESS_TIMEOUT_MS);

  it.skipIf(SKIP_POSTGRES)(
    "serves a Postgres ledger as irrevon_read",
    async () => {
      ledger = await openTestLedger("postgres");
      running = await serve(["--database-url", ledger.url ?? ""]);
      await exerciseAndStop(running);
    },
    PROCESS_TIMEOUT_MS,
  );

  it("refuses a missing embedded ledger (exit 3) and a bad port (exit 2) before binding", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((done) => {
        const child = spawn(process.execPath, [...CLI_ENTRY, ...args], {
          cwd: REPO_ROOT,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
        child.on("close", (code) => done({ code, stdout }));
      });
    // Independent refusals: the two children run side by side.
    const [absent, badPort] = await Promise.all([
      run(["serve", "--json", "--data-dir", join(tmpdir(), "irrevon-no-such-ledger")]),
      run(["serve", "--json", "--port", "70000"]),
    ]);
    expect(absent.code).toBe(3);
    expect(JSON.parse(absent.stdout)).toMatchObject({ error: { code: "not_found" } });
    expect(badPort.code).toBe(2);
    expect(JSON.parse(badPort.stdout)).toMatchObject({ error: { code: "usage" } });
  }, PROCESS_TIMEOUT_MS);
});
