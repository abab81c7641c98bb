/**
 * workbench/request-log — one structured `serve.request` line per request: method, the path
 * normalised to its route (ids, query strings and unknown paths never reach the log, so no
 * identifier a user typed is written down), status and duration. Imports: nothing.
 */

/** The logging surface the workbench needs; a pino logger satisfies it. */
export interface WorkbenchLogger {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A logger that drops everything. */
export const silentLogger: WorkbenchLogger = { info: () => undefined, error: () => undefined };

const EFFECT_ID = "[0-9a-f]{64}";
const KNOWN_PATHS: ReadonlySet<string> = new Set([
  "/",
  "/effects",
  "/findings",
  "/adapters",
  "/api/v1/effects",
  "/api/v1/findings",
  "/api/v1/adapters",
  "/api/v1/health",
  "/api/v1/bench-runs",
]);

/** The route a path belongs to, for the log. */
export function normalizePath(pathname: string): string {
  if (KNOWN_PATHS.has(pathname)) return pathname;
  if (new RegExp(`^/api/v1/effects/${EFFECT_ID}$`).test(pathname))
    return "/api/v1/effects/:effect_id";
  if (new RegExp(`^/api/v1/effects/${EFFECT_ID}/inspect$`).test(pathname))
    return "/api/v1/effects/:effect_id/inspect";
  if (new RegExp(`^/effects/${EFFECT_ID}$`).test(pathname)) return "/effects/:effect_id";
  if (pathname.startsWith("/api/")) return "/api/unknown";
  if (pathname.startsWith("/assets/")) return "/assets";
  return "/unknown";
}

/** A method as logged: known tokens verbatim, anything odd reduced to a marker. */
export function normalizeMethod(method: string): string {
  return /^[A-Z-]{1,16}$/.test(method) ? method : "INVALID";
}

/** Writes the `serve.request` line. */
export function logRequest(
  logger: WorkbenchLogger,
  entry: {
    readonly method: string;
    readonly pathname: string;
    readonly status: number;
    readonly durationMs: number;
  },
): void {
  logger.info(
    {
      event: "serve.request",
      method: normalizeMethod(entry.method),
      path: normalizePath(entry.pathname),
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 1000) / 1000,
    },
    "serve.request",
  );
}
