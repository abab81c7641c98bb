/**
 * The workbench's guards, on both backends, over a real loopback socket: every method but
 * GET/HEAD (standard, WebDAV, invented, lower-case) is 405 with `Allow: GET, HEAD` without
 * the body being read; a Host that is not our own loopback address is 421; every response
 * carries the security headers; no response body carries a raw stable-id value; a barrage of
 * crafted requests changes no row in any table; and the database session the app uses cannot
 * write at all.
 */
import { METHODS } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { stableIdValueDigest } from "../../src/core/value-digest.js";
import { createWorkbenchApp } from "../../src/workbench/app.js";
import { CONTENT_SECURITY_POLICY } from "../../src/workbench/request-guards.js";
import { startWorkbench, type RunningWorkbench } from "../../src/workbench/server.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import {
  countRows,
  seedWorkbenchLedger,
  type SeededLedger,
} from "../support/workbench-fixtures.js";
import { rawRequest } from "../support/workbench-http.js";

const INVENTED_METHODS = ["FOO", "BREW", "get", "Head", "GETS", "HEADX", "X-PURGE-ALL"];
const REFUSED_METHODS = [
  ...METHODS.filter((m) => m !== "GET" && m !== "HEAD"),
  ...INVENTED_METHODS,
];

const EXPECTED_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store",
  "content-security-policy": CONTENT_SECURITY_POLICY,
};

function expectSecurityHeaders(get: (name: string) => string | null | undefined): void {
  for (const [name, value] of Object.entries(EXPECTED_HEADERS)) expect(get(name), name).toBe(value);
  const permissions = get("permissions-policy") ?? "";
  for (const feature of ["camera=()", "geolocation=()", "microphone=()", "payment=()", "usb=()"])
    expect(permissions).toContain(feature);
}

describeEachBackend("workbench guards", (backend) => {
  let ledger: TestLedger;
  let seeded: SeededLedger;
  let wb: RunningWorkbench;
  let logLines: Record<string, unknown>[];

  beforeAll(async () => {
    ledger = await openTestLedger(backend);
    seeded = await seedWorkbenchLedger(ledger);
    logLines = [];
    const logger = {
      info: (fields: Record<string, unknown>) => void logLines.push(fields),
      error: () => undefined,
    };
    wb = await startWorkbench({ db: ledger.read, port: 0, logger });
  });
  afterAll(async () => {
    await wb.close();
    await ledger.close();
  });

  const url = (path: string): string => `http://127.0.0.1:${wb.port}${path}`;

  it("binds 127.0.0.1 only", () => {
    expect(wb.url).toBe(`http://127.0.0.1:${wb.port}/`);
  });

  it.each(REFUSED_METHODS)(
    "%s ⇒ 405 with Allow: GET, HEAD, without waiting for the announced body",
    async (method) => {
      const target = method === "CONNECT" ? `127.0.0.1:${wb.port}` : "/api/v1/effects";
      // The request announces a 1 MiB body and sends none: a server that tried to read it would
      // wait until our timeout instead of answering at once.
      const res = await rawRequest(
        wb.port,
        `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${wb.port}\r\nContent-Type: application/json\r\nContent-Length: 1048576`,
        {
          timeoutMs: 4_000,
        },
      );
      expect(res.status).toBe(405);
      expect(res.headers["allow"]).toBe("GET, HEAD");
      expect(res.closedAfterMs).toBeLessThan(3_000);
      expect(JSON.parse(res.body)).toMatchObject({
        schema_version: "1",
        error: { code: "method_not_allowed" },
      });
      expectSecurityHeaders((n) => res.headers[n]);
    },
  );

  it("refuses other methods in the app itself too, never pulling the request body", async () => {
    const app = createWorkbenchApp({ db: ledger.read, port: 5180 });
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "FOO"]) {
      let pulled = false;
      const body = new ReadableStream<Uint8Array>(
        { pull: () => void (pulled = true) },
        { highWaterMark: 0 },
      );
      const res = await app.request("/api/v1/effects", {
        method,
        body,
        duplex: "half",
        headers: { host: "127.0.0.1:5180" },
      } as RequestInit);
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        "method_not_allowed",
      );
      expect(pulled, method).toBe(false);
    }
  });

  it.each([
    ["another name", "evil.example"],
    ["another name on our port", "evil.example:PORT"],
    ["our address without the port", "127.0.0.1"],
    ["our address on another port", "127.0.0.1:1"],
    ["a look-alike", "127.0.0.1.evil.example:PORT"],
    ["an IPv6 loopback", "[::1]:PORT"],
  ])("Host %s ⇒ 421", async (_label, host) => {
    const res = await rawRequest(
      wb.port,
      `GET /effects HTTP/1.1\r\nHost: ${host.replace("PORT", String(wb.port))}\r\nConnection: close`,
    );
    expect(res.status).toBe(421);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "host_rejected" } });
    expectSecurityHeaders((n) => res.headers[n]);
  });

  it("a missing Host or two Host headers ⇒ 421; our own address by IP or localhost ⇒ 200", async () => {
    const missing = await rawRequest(wb.port, "GET /effects HTTP/1.0");
    expect(missing.status).toBe(421);
    const twice = await rawRequest(
      wb.port,
      `GET /effects HTTP/1.1\r\nHost: 127.0.0.1:${wb.port}\r\nHost: evil.example\r\nConnection: close`,
    );
    expect(twice.status).toBe(421);
    for (const host of [`127.0.0.1:${wb.port}`, `localhost:${wb.port}`]) {
      const ok = await rawRequest(
        wb.port,
        `GET /api/v1/health HTTP/1.1\r\nHost: ${host}\r\nConnection: close`,
      );
      expect(ok.status, host).toBe(200);
    }
    const app = createWorkbenchApp({ db: ledger.read, port: 5180 });
    expect((await app.request("/effects", { headers: { host: "evil.example:5180" } })).status).toBe(
      421,
    );
  });

  it("sends the security headers on pages, API, assets, redirects and errors", async () => {
    const paths = [
      "/effects",
      `/effects/${seeded.flagship}`,
      "/api/v1/effects",
      "/assets/app.css",
      "/",
      "/nope",
      "/api/v1/nope",
      "/api/v1/effects?limit=0",
    ];
    for (const path of paths) {
      const res = await fetch(url(path), { redirect: "manual" });
      expectSecurityHeaders((n) => res.headers.get(n));
      await res.arrayBuffer();
    }
    const api = await fetch(url("/api/v1/effects"));
    expect(api.headers.get("irrevon-schema-version")).toBe("1");
    expect(api.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("no response body carries a raw stable-id value; the digests are there instead", async () => {
    const effectIds = [
      seeded.flagship,
      seeded.settled,
      seeded.persisted,
      seeded.ambiguous,
      seeded.lost,
    ];
    const paths = [
      "/",
      "/effects",
      "/effects?lifecycle=SETTLED_COMMITTED",
      "/effects?classification=UNRECONCILED",
      "/findings",
      "/findings?resolution_status=OPEN",
      "/adapters",
      "/api/v1/effects",
      "/api/v1/findings",
      `/api/v1/findings?subject_effect_id=${seeded.flagship}`,
      "/api/v1/adapters",
      "/api/v1/health",
      "/api/v1/bench-runs",
      "/api/v1/effects?limit=0",
      "/api/v1/effects/" + "0".repeat(64),
      "/nope",
      ...effectIds.flatMap((id) => [
        `/effects/${id}`,
        `/api/v1/effects/${id}`,
        `/api/v1/effects/${id}/inspect`,
      ]),
    ];
    // Follow every page of the effects list one item at a time.
    let cursor: string | null = "";
    while (cursor !== null) {
      const path = `/api/v1/effects?limit=1${cursor === "" ? "" : `&cursor=${cursor}`}`;
      paths.push(path, path.replace("/api/v1/effects", "/effects"));
      const page = (await (await fetch(url(path))).json()) as { next_cursor: string | null };
      cursor = page.next_cursor;
    }
    const bodies: string[] = [];
    for (const path of paths) {
      for (const method of ["GET", "HEAD"]) {
        const res = await fetch(url(path), { method, redirect: "manual" });
        const body = await res.text();
        bodies.push(body);
        for (const raw of seeded.rawStableIdValues)
          expect(body.includes(raw), `${method} ${path} contains ${raw}`).toBe(false);
      }
    }
    const all = bodies.join("\n");
    for (const raw of seeded.rawStableIdValues) expect(all).toContain(stableIdValueDigest(raw));
  });

  it("a barrage of crafted requests changes no row in any table", async () => {
    const before = await countRows(ledger);
    expect(before["effect_records"]).toBe(5);
    const sql =
      "'); DELETE FROM effect_records; INSERT INTO deny_entries(scope, reason) VALUES ('x','y'); --";
    const requests: Array<Promise<unknown>> = [];
    for (const method of REFUSED_METHODS.filter((m) => m !== "CONNECT")) {
      for (const path of [
        "/api/v1/effects",
        `/api/v1/effects/${seeded.flagship}`,
        "/effects",
        "/api/v1/findings",
      ]) {
        const body = JSON.stringify({
          sql,
          lifecycle: "SETTLED_FAILED",
          effect_id: seeded.flagship,
        });
        requests.push(
          rawRequest(
            wb.port,
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${wb.port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`,
            { body },
          ),
        );
      }
    }
    const q = encodeURIComponent(sql);
    for (const path of [
      `/api/v1/effects?scope=${q}`,
      `/api/v1/effects?effect_type=${q}&scope=${q}`,
      `/api/v1/findings?adapter=${q}&destination_ref=${q}`,
      `/api/v1/effects?cursor=${Buffer.from(JSON.stringify({ c: sql, id: sql })).toString("base64url")}`,
      `/effects?lifecycle=${q}`,
      `/api/v1/effects/${seeded.flagship}?${q}=1`,
      "/assets/../../etc/passwd",
      "/api/v1/effects/%2e%2e%2f",
      `/effects/${seeded.flagship}/../../api/v1/health`,
    ]) {
      requests.push(fetch(url(path)).then((r) => r.arrayBuffer()));
    }
    await Promise.all(requests);
    expect(await countRows(ledger)).toEqual(before);
  });

  it("the database session the app uses cannot write", async () => {
    // The very handle the workbench was given.
    await expect(
      ledger.read.query("INSERT INTO deny_entries (scope, reason) VALUES ('s', 'r')"),
    ).rejects.toMatchObject({ code: "privilege_denied" });
    await expect(
      ledger.read.transaction(
        (tx) =>
          tx.query(
            "INSERT INTO authorities (authority_ref, scope, stamped_at) VALUES ('a', 's', now())",
          ),
        { readOnly: true },
      ),
    ).rejects.toMatchObject({ code: "privilege_denied" });
    await expect(
      ledger.read.query("SELECT ledger_open_execution($1, 'register')", [seeded.persisted]),
    ).rejects.toMatchObject({ code: "privilege_denied" });
    await expect(ledger.read.query("CREATE TABLE planted (x int)")).rejects.toMatchObject({
      code: "privilege_denied",
    });
    const { rows } = await ledger.read.transaction(
      (tx) =>
        tx.query<{ role: string; ro: string }>(
          "SELECT current_user AS role, current_setting('transaction_read_only') AS ro",
        ),
      {
        readOnly: true,
      },
    );
    expect(rows[0]).toEqual({ role: "irrevon_read", ro: "on" });
  });

  it("refuses to be built on a handle that is not irrevon_read", () => {
    expect(() => createWorkbenchApp({ db: ledger.app, port: 5180 })).toThrow(
      expect.objectContaining({ code: "usage" }) as Error,
    );
    expect(() => createWorkbenchApp({ db: ledger.superuser, port: 5180 })).toThrow(
      expect.objectContaining({ code: "usage" }) as Error,
    );
  });

  it("logs one serve.request line per request with the normalised path, never an id or query", async () => {
    logLines.length = 0;
    await (await fetch(url(`/effects/${seeded.flagship}?x=1`))).arrayBuffer();
    await (await fetch(url(`/api/v1/effects/${seeded.flagship}/inspect`))).arrayBuffer();
    await (await fetch(url("/api/v1/secret-path"))).arrayBuffer();
    await rawRequest(wb.port, `FOO /x HTTP/1.1\r\nHost: 127.0.0.1:${wb.port}`);
    await rawRequest(wb.port, `DELETE /api/v1/effects HTTP/1.1\r\nHost: 127.0.0.1:${wb.port}`);
    const lines = logLines.map((l) => ({
      event: l["event"],
      method: l["method"],
      path: l["path"],
      status: l["status"],
    }));
    expect(lines).toEqual([
      { event: "serve.request", method: "GET", path: "/effects/:effect_id", status: 400 },
      {
        event: "serve.request",
        method: "GET",
        path: "/api/v1/effects/:effect_id/inspect",
        status: 200,
      },
      { event: "serve.request", method: "GET", path: "/api/unknown", status: 404 },
      { event: "serve.request", method: "INVALID", path: "/unknown", status: 405 },
      { event: "serve.request", method: "DELETE", path: "/api/v1/effects", status: 405 },
    ]);
    for (const l of logLines) expect(typeof l["duration_ms"]).toBe("number");
    expect(JSON.stringify(logLines)).not.toContain(seeded.flagship);
  });
});
