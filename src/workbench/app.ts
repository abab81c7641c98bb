/**
 * workbench/app — the read-only workbench as a Hono app, independent of any socket: tests
 * call `app.request(...)`, and workbench/server binds it to 127.0.0.1. Order of work for
 * every request: time it; refuse any method but GET/HEAD (405, body unread) and any Host but
 * our own loopback address (421) before the database is touched; route; turn thrown errors
 * into the error envelope (or an error page); add the security headers to whatever goes
 * out; log one `serve.request` line. The database handle must act as `irrevon_read`: the
 * factory refuses any other, so a wiring mistake cannot give the web surface write rights.
 * Imports: core, db, workbench.
 */
import { Hono } from "hono";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { DbRole, isPrivilegedDb, type Db } from "../db/db.js";
import { registerApiRoutes } from "./api-routes.js";
import type { NodeBindings, WorkbenchEnv } from "./app-env.js";
import { fromThrown, STATUS_OF, workbenchError, WorkbenchErrorCode } from "./http-errors.js";
import { registerHtmlRoutes } from "./html-routes.js";
import { readerFor } from "./read-model.js";
import { logRequest, silentLogger, type WorkbenchLogger } from "./request-log.js";
import { checkRequest, rawHeaderValues, SECURITY_HEADERS } from "./request-guards.js";
import { errorJsonResponse, htmlResponse } from "./responses.js";
import { errorPage } from "./views/error-page.js";

/** Options of {@link createWorkbenchApp}. */
export interface WorkbenchAppOptions {
  /** The ledger, acting as irrevon_read (a role handle, not the privileged login). */
  readonly db: Db;
  /** The port the app is served on: the only Host values accepted are 127.0.0.1:<port> and localhost:<port>. */
  readonly port: number;
  /** Shows the permanent demo/fixture banner on every page. */
  readonly isDemo?: boolean;
  /** Receives one `serve.request` line per request (a pino logger fits). */
  readonly logger?: WorkbenchLogger;
  /** Clock for the health cache (tests). */
  readonly nowMs?: () => number;
}

/** Builds the app. */
export function createWorkbenchApp(options: WorkbenchAppOptions): Hono<WorkbenchEnv> {
  const { db, port } = options;
  if (db.role !== DbRole.read || isPrivilegedDb(db)) {
    throw new IrrevonError(
      ErrorCode.usage,
      "the workbench must be given a database handle acting as irrevon_read",
      {
        details: { role: db.role },
      },
    );
  }
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new IrrevonError(
      ErrorCode.usage,
      "the workbench port must be an integer from 1 to 65535",
      { details: { port } },
    );
  }
  const isDemo = options.isDemo ?? false;
  const logger = options.logger ?? silentLogger;
  const read = readerFor(db);
  const app = new Hono<WorkbenchEnv>();

  app.use("*", async (c, next) => {
    const started = performance.now();
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    logRequest(logger, {
      method: c.req.method,
      pathname: c.req.path,
      status: c.res.status,
      durationMs: performance.now() - started,
    });
  });

  app.use("*", async (c, next) => {
    const incoming = (c.env as NodeBindings | undefined)?.incoming;
    const host = c.req.header("host");
    const hosts =
      incoming !== undefined
        ? rawHeaderValues(incoming.rawHeaders, "host")
        : host === undefined
          ? []
          : [host];
    const refusal = checkRequest(c.req.method, hosts, port);
    if (refusal !== null) return errorJsonResponse(refusal.error, refusal.headers);
    await next();
  });

  registerApiRoutes(app, read, options.nowMs);
  registerHtmlRoutes(app, read, isDemo);

  const isApi = (path: string): boolean => path === "/api" || path.startsWith("/api/");
  app.notFound((c) => {
    const error = workbenchError(WorkbenchErrorCode.not_found, "no such page or route");
    return isApi(c.req.path)
      ? errorJsonResponse(error)
      : htmlResponse(STATUS_OF[error.code], errorPage(error, isDemo));
  });
  app.onError((e, c) => {
    const error = fromThrown(e);
    if (error.code === WorkbenchErrorCode.internal) {
      logger.error(
        {
          event: "serve.error",
          error_name: e.name,
          code: e instanceof IrrevonError ? e.code : null,
        },
        "serve.error",
      );
    }
    return isApi(c.req.path)
      ? errorJsonResponse(error)
      : htmlResponse(STATUS_OF[error.code], errorPage(error, isDemo));
  });
  return app;
}
