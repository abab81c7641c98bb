/**
 * Hostile requests against the reference destination's HTTP surface (loopback only, a
 * bounded number of requests): arbitrary methods, paths, query strings, Host and content-type
 * headers, and bodies (random bytes, bad UTF-8, near-valid JSON, oversized). Every answer is
 * a JSON document in the destination's own shape (a success body, or `{error:{code,message}}`
 * with a code from its closed set); no request reaches the catch-all `internal_error`; control
 * routes refuse without the token; only an accepted POST /effects (201) adds to the truth log;
 * the server keeps serving. Control: a naive server is caught by the same property.
 */
import { request as httpRequest, createServer, type Server } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRefdest,
  MAX_BODY_BYTES,
  RefdestErrorCode,
  startRefdestServer,
  type RefdestServer,
} from "../../src/refdest/index.js";

const RUNS = process.env["IRREVON_PROOF_SCALE"] === "full" ? 3_000 : 300;
const ERROR_CODES = new Set<string>(Object.values(RefdestErrorCode));

interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly host: "right" | "wrong" | "localhost";
  readonly contentType: string | null;
  readonly body: Body | null;
}

/** A request body that prints as a short label in counterexamples (some are 270 KB). */
class Body {
  readonly bytes: Buffer;
  readonly label: string;
  constructor(label: string, bytes: Buffer) {
    this.label = label;
    this.bytes = bytes;
  }
  [fc.toStringMethod](): string {
    return `<${this.label}: ${this.bytes.length} bytes: ${JSON.stringify(this.bytes.subarray(0, 60).toString("latin1"))}>`;
  }
}

interface RawResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

const validCreate = { effect_type: "order.create", payload: { sku: "SKU-1" }, client_ref: "c-1" };

const body: fc.Arbitrary<Body | null> = fc.oneof(
  fc.constant(null),
  fc.uint8Array({ maxLength: 64 }).map((a) => new Body("random", Buffer.from(a))),
  fc.constant(new Body("bad-utf8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))),
  fc.json().map((j) => new Body("json", Buffer.from(j))),
  fc
    .record({ key: fc.constantFrom(...Object.keys(validCreate), "extra"), value: fc.anything() })
    .map(
      ({ key, value }) =>
        new Body("near-valid", Buffer.from(JSON.stringify({ ...validCreate, [key]: value }) ?? "")),
    ),
  fc.constant(new Body("valid-create", Buffer.from(JSON.stringify(validCreate)))),
  fc.constant(new Body("oversized", Buffer.alloc(MAX_BODY_BYTES + 1, 0x61))),
  fc.constant(
    new Body(
      "deep",
      Buffer.from(`{"effect_type":"t","payload":${"[".repeat(5_000)}${"]".repeat(5_000)}}`),
    ),
  ),
);

const path: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "/effects",
    "/effects?client_ref=c-1",
    "/effects?from=2026-07-21T00:00:00Z&to=2026-07-22T00:00:00Z&include_all=true",
    "/effects?from=yesterday&to=now",
    "/effects?limit=0&from=2026-07-21T00:00:00Z&to=2026-07-22T00:00:00Z",
    "/effects/dest_nope",
    "/effects/%00",
    "/notify",
    "/control/schedule",
    "/control/reset",
    "/control/state",
    "/control/log",
    "/control/oob",
    "/",
    "/../../etc/passwd",
    "/effects?client_ref=%FF%FE",
  ),
  fc.webPath(),
  fc.string({ maxLength: 30 }).map((s) => `/${encodeURIComponent(s)}`),
);

const rawRequest: fc.Arbitrary<RawRequest> = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "BREW"),
  path,
  host: fc.constantFrom("right", "right", "right", "wrong", "localhost"),
  contentType: fc.constantFrom(
    null,
    "application/json",
    "text/plain",
    "application/json; charset=latin1",
    "multipart/form-data",
  ),
  body,
});

function send(port: number, r: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host:
        r.host === "wrong"
          ? "evil.example:80"
          : `${r.host === "right" ? "127.0.0.1" : "localhost"}:${port}`,
    };
    if (r.contentType !== null) headers["content-type"] = r.contentType;
    if (r.body !== null) headers["content-length"] = String(r.body.bytes.length);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: r.method,
        path: r.path,
        headers,
        setHost: false,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers["content-type"],
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(r.body?.bytes ?? undefined);
  });
}

/** The property over one server: a JSON answer in the destination's shape, never internal. */
function surfaceProperty(
  port: () => number,
  effectCount: () => number,
): fc.IAsyncPropertyWithHooks<[RawRequest]> {
  return fc.asyncProperty(rawRequest, async (r) => {
    const before = effectCount();
    let res: RawResponse;
    try {
      res = await send(port(), r);
    } catch (e) {
      // A socket cut is an answer only for bodies past the discard cap (none here).
      throw new Error(`connection failed: ${String(e)}`);
    }
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(600);
    if (r.method !== "HEAD") {
      expect(res.contentType ?? "").toMatch(/^application\/json/);
      const parsed = JSON.parse(res.text) as { error?: { code?: unknown; message?: unknown } };
      if (res.status >= 400) {
        expect(ERROR_CODES.has(String(parsed.error?.code))).toBe(true);
        expect(typeof parsed.error?.message).toBe("string");
        expect(parsed.error?.code).not.toBe("internal_error");
      }
    }
    // Node's HTTP parser refuses an unknown method (BREW) before any header is looked at.
    if (r.host === "wrong" && r.method !== "BREW") expect(res.status).toBe(421);
    // Without the bearer token a control route never succeeds (401, or refused even earlier).
    if (r.path.startsWith("/control/")) expect(res.status).toBeGreaterThanOrEqual(400);
    const route = r.path.split("?")[0];
    const created = res.status === 201 && r.method === "POST" && route === "/effects" ? 1 : 0;
    expect(effectCount()).toBe(before + created);
  });
}

describe("fuzz: the reference destination's HTTP surface", () => {
  let server: RefdestServer;

  beforeAll(async () => {
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 9 }));
  });
  afterAll(async () => {
    await server.close();
  });

  it("listens on loopback only", () => {
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
  });

  it("every hostile request gets a JSON answer in the destination's shape; nothing internal", async () => {
    await fc.assert(
      surfaceProperty(
        () => server.port,
        () => server.refdest.truthDump().effects.length,
      ),
      { numRuns: RUNS },
    );
    // Still serving, and the clock only moved for requests that reached an operation.
    const after = await send(server.port, {
      method: "GET",
      path: "/effects?client_ref=c-1",
      host: "right",
      contentType: null,
      body: null,
    });
    expect(after.status).toBe(200);
  });

  describe("control: a naive server is caught", () => {
    let naive: Server;
    let naivePort = 0;
    beforeAll(async () => {
      naive = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          try {
            const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
            res.writeHead(201, { "content-type": "application/json" });
            res.end(JSON.stringify({ ok: parsed !== null }));
          } catch {
            res.writeHead(500, { "content-type": "text/html" });
            res.end("<h1>oops</h1>");
          }
        });
      });
      await new Promise<void>((resolve) => naive.listen(0, "127.0.0.1", resolve));
      const address = naive.address();
      naivePort = typeof address === "object" && address !== null ? address.port : 0;
    });
    afterAll(async () => {
      naive.closeAllConnections();
      await new Promise<void>((resolve) => naive.close(() => resolve()));
    });

    it("fails the same property", async () => {
      const outcome = await fc.check(
        surfaceProperty(
          () => naivePort,
          () => 0,
        ),
        { numRuns: RUNS },
      );
      expect(outcome.failed).toBe(true);
    });
  });
});
