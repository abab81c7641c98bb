/**
 * workbench/server — binds the workbench to 127.0.0.1 and nothing else (there is no host
 * option, and the bound address is checked after listen). A thin Node layer sits in front of
 * the Hono app for what never reaches it: methods the HTTP parser rejects (an invented `FOO`
 * or a lowercase `get`), CONNECT, and methods the Fetch API cannot represent (TRACE) all get
 * the same 405 with `Allow: GET, HEAD`; every other non-GET/HEAD request and every bad Host is
 * refused here too, before a Request object exists, so no body is ever read (the connection
 * is closed instead). Imports: db, workbench.
 */
import { getRequestListener } from "@hono/node-server";
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Db } from "../db/db.js";
import { createWorkbenchApp } from "./app.js";
import {
  API_SCHEMA_VERSION,
  errorEnvelope,
  STATUS_OF,
  workbenchError,
  WorkbenchErrorCode,
} from "./http-errors.js";
import { logRequest, silentLogger, type WorkbenchLogger } from "./request-log.js";
import {
  ALLOW_HEADER,
  checkRequest,
  rawHeaderValues,
  SECURITY_HEADERS,
  type GuardRefusal,
} from "./request-guards.js";

/** The workbench's default port (reference §10.1). */
export const DEFAULT_WORKBENCH_PORT = 5180;
/** The only address the workbench ever binds. */
export const WORKBENCH_HOST = "127.0.0.1";

/** Options of {@link startWorkbench}. */
export interface StartWorkbenchOptions {
  /** The ledger acting as irrevon_read; the caller keeps ownership (close it after `close()`). */
  readonly db: Db;
  /** Port; 0 = ephemeral; default 5180. */
  readonly port?: number;
  readonly isDemo?: boolean;
  readonly logger?: WorkbenchLogger;
}

/** A running workbench. */
export interface RunningWorkbench {
  readonly url: string;
  readonly port: number;
  /** Stops listening and drops open connections; does not close the database. */
  close(): Promise<void>;
}

const JSON_TYPE = "application/json; charset=utf-8";

function refusalHeaders(refusal: GuardRefusal, bodyBytes: number): Record<string, string> {
  return {
    ...SECURITY_HEADERS,
    ...refusal.headers,
    "Content-Type": JSON_TYPE,
    "Irrevon-Schema-Version": API_SCHEMA_VERSION,
    "Content-Length": String(bodyBytes),
  };
}

function refusalBody(refusal: GuardRefusal): string {
  return `${JSON.stringify(errorEnvelope(refusal.error))}\n`;
}

/** A 405 for requests the parser refused: nothing about them can be trusted, so close. */
const METHOD_REFUSAL: GuardRefusal = {
  error: workbenchError(
    WorkbenchErrorCode.method_not_allowed,
    "only GET and HEAD are implemented",
    { allow: ["GET", "HEAD"] },
  ),
  headers: { Allow: ALLOW_HEADER, Connection: "close" },
};

/** Writes a complete response on a raw socket (no ServerResponse exists for it). */
function writeRaw(socket: Duplex, status: number, refusal: GuardRefusal | null): void {
  if (!socket.writable) return;
  const body = refusal === null ? "" : refusalBody(refusal);
  const headers =
    refusal === null
      ? { ...SECURITY_HEADERS, Connection: "close", "Content-Length": "0" }
      : { ...refusalHeaders(refusal, Buffer.byteLength(body)), Connection: "close" };
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/** Status for a request the HTTP parser refused, by Node's error code (default 400). */
const CLIENT_ERROR_STATUS: Readonly<Record<string, number>> = {
  HPE_INVALID_METHOD: 405,
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

function clientErrorStatus(code: string | undefined): number {
  return (code === undefined ? undefined : CLIENT_ERROR_STATUS[code]) ?? 400;
}

function pathnameOf(url: string | undefined): string {
  try {
    return new URL(url ?? "/", "http://127.0.0.1").pathname;
  } catch {
    return "/unknown";
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host: WORKBENCH_HOST, exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Binds the workbench on 127.0.0.1:`port` and starts serving. */
export async function startWorkbench(options: StartWorkbenchOptions): Promise<RunningWorkbench> {
  const logger = options.logger ?? silentLogger;
  const server = createServer({ requireHostHeader: false });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    const status = clientErrorStatus(err.code);
    logRequest(logger, { method: "INVALID", pathname: "/unknown", status, durationMs: 0 });
    writeRaw(socket, status, status === 405 ? METHOD_REFUSAL : null);
  });
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    logRequest(logger, {
      method: req.method ?? "CONNECT",
      pathname: "/unknown",
      status: 405,
      durationMs: 0,
    });
    writeRaw(socket, 405, METHOD_REFUSAL);
  });

  try {
    await listen(server, options.port ?? DEFAULT_WORKBENCH_PORT);
  } catch (e) {
    throw new IrrevonError(
      ErrorCode.usage,
      `cannot listen on ${WORKBENCH_HOST}:${options.port ?? DEFAULT_WORKBENCH_PORT}`,
      {
        details: {
          port: options.port ?? DEFAULT_WORKBENCH_PORT,
          errno: (e as NodeJS.ErrnoException).code ?? null,
        },
        cause: e,
      },
    );
  }
  const address = server.address() as AddressInfo;
  if (address.address !== WORKBENCH_HOST) {
    // Unreachable with a literal host; checked because a non-loopback bind must be impossible.
    server.close();
    throw new IrrevonError(ErrorCode.internal, "the workbench bound a non-loopback address", {
      details: { address: address.address },
    });
  }
  const port = address.port;
  const app = createWorkbenchApp({ db: options.db, port, isDemo: options.isDemo ?? false, logger });
  const forward = getRequestListener(app.fetch, {
    overrideGlobalObjects: false,
    autoCleanupIncoming: false,
  });

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const refusal = checkRequest(req.method ?? "", rawHeaderValues(req.rawHeaders, "host"), port);
    if (refusal !== null) {
      const body = refusalBody(refusal);
      res.writeHead(
        STATUS_OF[refusal.error.code],
        refusalHeaders(refusal, Buffer.byteLength(body)),
      );
      res.end(body);
      logRequest(logger, {
        method: req.method ?? "",
        pathname: pathnameOf(req.url),
        status: res.statusCode,
        durationMs: performance.now() - started,
      });
      return;
    }
    forward(req, res).catch((e: unknown) => {
      logger.error(
        { event: "serve.error", error_name: e instanceof Error ? e.name : typeof e },
        "serve.error",
      );
      if (!res.headersSent) res.writeHead(500, SECURITY_HEADERS);
      res.end();
    });
  });

  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  return {
    url: `http://${WORKBENCH_HOST}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
