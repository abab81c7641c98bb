/**
 * workbench/request-guards — what every response carries and what every request must pass
 * before anything reads the database: GET or HEAD only (405 with `Allow`, the body never
 * read), and exactly one Host header naming this server's own loopback address (421), which
 * defeats DNS rebinding: a page on another origin that resolves its name to 127.0.0.1 still
 * sends its own name as Host. Shared by the Hono app and the raw Node server in front of it,
 * so the two layers cannot disagree. Imports: workbench.
 */
import { workbenchError, WorkbenchErrorCode, type WorkbenchError } from "./http-errors.js";

/** The only methods the workbench implements. */
export const ALLOWED_METHODS = ["GET", "HEAD"] as const;
export const ALLOW_HEADER = ALLOWED_METHODS.join(", ");

/** No inline script or style, no external origin; GET filter forms submit to ourselves. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "script-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const PERMISSIONS_POLICY = [
  "camera=()",
  "display-capture=()",
  "fullscreen=()",
  "geolocation=()",
  "microphone=()",
  "payment=()",
  "usb=()",
].join(", ");

/** Headers on every response, errors and assets included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": PERMISSIONS_POLICY,
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "Cache-Control": "no-store",
};

/** A refused request: the error to send, plus headers it needs (`Allow`, `Connection`). */
export interface GuardRefusal {
  readonly error: WorkbenchError;
  readonly headers: Readonly<Record<string, string>>;
}

/** The Host values this server answers to. */
export function acceptedHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/**
 * Checks one request. `hostValues` holds every Host header value as received (a request with
 * two Host headers is refused, whatever they say). Null = pass.
 */
export function checkRequest(
  method: string,
  hostValues: readonly string[],
  port: number,
): GuardRefusal | null {
  if (!(ALLOWED_METHODS as readonly string[]).includes(method)) {
    return {
      error: workbenchError(
        WorkbenchErrorCode.method_not_allowed,
        "only GET and HEAD are implemented",
        { allow: [...ALLOWED_METHODS] },
      ),
      // Closing the connection is what lets us leave an announced body unread.
      headers: { Allow: ALLOW_HEADER, Connection: "close" },
    };
  }
  const [host, ...more] = hostValues;
  if (host === undefined || more.length > 0 || !acceptedHosts(port).includes(host.toLowerCase())) {
    return {
      error: workbenchError(
        WorkbenchErrorCode.host_rejected,
        "the Host header must name this server's loopback address",
      ),
      headers: {},
    };
  }
  return null;
}

/** Every value of `name` in Node's flat `rawHeaders` list (duplicates kept). */
export function rawHeaderValues(rawHeaders: readonly string[], name: string): string[] {
  const wanted = name.toLowerCase();
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === wanted) out.push(rawHeaders[i + 1] ?? "");
  }
  return out;
}
