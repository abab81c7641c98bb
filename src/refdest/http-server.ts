/**
 * refdest/http-server — serves a Refdest over HTTP on 127.0.0.1 only.
 *
 * Why node:http and not Hono: the drop faults must cut the TCP connection without a response
 * (`socket.resetAndDestroy()`), the size limit must be enforced while the body streams in, and
 * malformed HTTP must get a JSON answer from `clientError`; all three need the raw socket, which
 * node:http hands us directly. Routing itself is tiny and lives in router.ts.
 *
 * Guards, in order: Host header must name this loopback listener (else 421, a DNS-rebinding
 * guard); bodies over MAX_BODY_BYTES get 413 (read and discarded up to a hard cap, beyond which
 * the socket is destroyed); invalid UTF-8 gets 400. Every body is canonical JSON (RFC 8785), so a
 * truth dump fetched over HTTP is byte-identical to the in-process one. Imports: core.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { canonicalJson } from "./destination-ref.js";
import { MAX_BODY_BYTES } from "./json-limits.js";
import type { Refdest } from "./refdest.js";
import { routeRefdestRequest } from "./router.js";
import { errorReply, type RefdestReply } from "./wire-types.js";

/** Bodies between MAX_BODY_BYTES and this are drained so the 413 can be read; larger ones are cut. */
const DISCARD_CAP_BYTES = 4 * 1024 * 1024;

export interface RefdestServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
}

/** A running server. `close()` ends in-flight delays, drops open connections and stops listening. */
export interface RefdestServer {
  readonly port: number;
  readonly url: string;
  readonly controlToken: string;
  readonly refdest: Refdest;
  close(): Promise<void>;
}

type ReadBody =
  | { readonly kind: "ok"; readonly text: string }
  | { readonly kind: "too_large" }
  | { readonly kind: "bad_utf8" }
  | { readonly kind: "aborted" };

async function readBody(req: IncomingMessage): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > DISCARD_CAP_BYTES) {
        req.socket.destroy();
        return { kind: "aborted" };
      }
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    }
  } catch {
    return { kind: "aborted" };
  }
  if (size > MAX_BODY_BYTES) return { kind: "too_large" };
  try {
    return {
      kind: "ok",
      text: new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)),
    };
  } catch {
    return { kind: "bad_utf8" };
  }
}

function send(req: IncomingMessage, res: ServerResponse, reply: RefdestReply): void {
  if (res.destroyed || req.socket.destroyed) return; // the client gave up (e.g. its deadline passed)
  if (reply.kind === "drop") {
    req.socket.resetAndDestroy();
    return;
  }
  const text = canonicalJson(reply.body);
  res.writeHead(reply.status, {
    ...reply.headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text, "utf8"),
    "cache-control": "no-store",
  });
  res.end(text);
}

function lowerHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers))
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function clientErrorResponse(status: 400 | 431): string {
  const body = JSON.stringify({
    error: { code: "invalid_request", message: "malformed HTTP request" },
  });
  const reason = status === 431 ? "Request Header Fields Too Large" : "Bad Request";
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Start serving `refdest` on 127.0.0.1. Resolves once listening. */
export async function startRefdestServer(
  refdest: Refdest,
  options: RefdestServerOptions = {},
): Promise<RefdestServer> {
  let port = 0;
  const allowedHosts = (): readonly string[] => [`127.0.0.1:${port}`, `localhost:${port}`];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    if (body.kind === "aborted") return;
    const host = req.headers.host;
    let reply: RefdestReply;
    if (host === undefined || !allowedHosts().includes(host.toLowerCase())) {
      refdest.noteRejected();
      reply = errorReply(
        421,
        "misdirected_request",
        "the Host header must name this loopback listener",
        { field: "host" },
      );
    } else if (body.kind === "too_large") {
      refdest.noteRejected();
      reply = errorReply(
        413,
        "payload_too_large",
        `request bodies are limited to ${MAX_BODY_BYTES} bytes`,
      );
    } else if (body.kind === "bad_utf8") {
      refdest.noteRejected();
      reply = errorReply(400, "malformed_json", "body is not valid UTF-8", { field: "body" });
    } else {
      reply = await routeRefdestRequest(refdest, {
        method: req.method ?? "GET",
        target: req.url ?? "/",
        headers: lowerHeaders(req),
        body: body.text,
      });
    }
    send(req, res, reply);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed)
        send(req, res, errorReply(500, "internal_error", "unexpected destination failure"));
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 20_000;
  // Idle keep-alive sockets live longer than any client's own idle timeout (undici keeps one
  // for the advertised timeout minus 1 s): a client whose event loop was blocked for a few
  // seconds (an embedded database opening) must not reuse a socket this side already closed
  // ("fetch failed: other side closed"). close() still ends idle sockets at once (Node ≥ 19).
  server.keepAliveTimeout = 65_000;
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    refdest.noteRejected();
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(err.code === "HPE_HEADER_OVERFLOW" ? 431 : 400));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port ?? 0, host: "127.0.0.1" }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  port = typeof address === "object" && address !== null ? address.port : 0;

  let closing: Promise<void> | null = null;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    controlToken: refdest.controlToken,
    refdest,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        refdest.cancelPendingDelays();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
