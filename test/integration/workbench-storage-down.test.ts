/**
 * When the database goes away under a running workbench, every data route answers 503
 * `storage_unavailable` (retryable), pages show the same code, health reports every check
 * failed, and nothing else breaks (the stylesheet still loads). PGlite: the embedded database
 * is closed. Postgres: the server becomes unreachable (the workbench connects through a TCP
 * relay that is then shut down).
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { DbRole, type Db } from "../../src/db/db.js";
import { openPostgres } from "../../src/db/pg-driver.js";
import { createWorkbenchApp } from "../../src/workbench/app.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";

interface Relay {
  readonly port: number;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<ephemeral> to the Postgres server until closed. */
async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

describeEachBackend("workbench with the database down", (backend) => {
  let ledger: TestLedger;
  let relay: Relay | undefined;
  let readDb: Db | undefined;

  afterEach(async () => {
    await readDb?.close();
    await relay?.close();
    await ledger.close().catch(() => undefined);
  });

  it("answers 503 storage_unavailable on every data route", async () => {
    ledger = await openTestLedger(backend);
    let takeDown: () => Promise<void>;
    if (backend === "pglite") {
      readDb = undefined;
      takeDown = () => ledger.superuser.close();
    } else {
      const target = new URL(ledger.url ?? "");
      relay = await startRelay(Number(target.port || 5432));
      target.port = String(relay.port);
      readDb = await openPostgres({ url: target.toString(), role: DbRole.read, poolMax: 2 });
      const r = relay;
      // No grace period: a connection that dies while checked out must fail the query,
      // not crash the process (the driver listens for the client's 'error').
      takeDown = () => r.close();
    }
    let clockMs = 0;
    const app = createWorkbenchApp({ db: readDb ?? ledger.read, port: 5180, nowMs: () => clockMs });
    const get = (path: string): Promise<Response> =>
      Promise.resolve(app.request(path, { headers: { host: "127.0.0.1:5180" } }));

    expect((await get("/api/v1/effects")).status).toBe(200);
    expect((await get("/api/v1/health")).status).toBe(200);
    await takeDown();
    clockMs += 10_000; // past the health cache

    for (const path of [
      "/api/v1/effects",
      `/api/v1/effects/${"a".repeat(64)}`,
      `/api/v1/effects/${"a".repeat(64)}/inspect`,
      "/api/v1/findings",
      "/api/v1/adapters",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(await res.json()).toMatchObject({
        schema_version: "1",
        error: { code: "storage_unavailable", retryable: true },
      });
    }
    for (const path of ["/effects", "/findings", "/adapters", `/effects/${"a".repeat(64)}`]) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(await res.text()).toContain('data-error-code="storage_unavailable"');
    }
    const health = await get("/api/v1/health");
    expect(health.status).toBe(503);
    const body = (await health.json()) as { status: string; checks: Array<{ status: string }> };
    expect(body.status).toBe("unavailable");
    expect(body.checks.every((c) => c.status === "fail")).toBe(true);
    expect((await get("/assets/app.css")).status).toBe(200);
  });
});
