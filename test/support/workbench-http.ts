/**
 * test/support/workbench-http — a raw HTTP/1.1 client for the workbench guard tests. fetch
 * cannot send invented methods, CONNECT or TRACE, duplicate Host headers or a Host that
 * differs from the URL, so these tests write the request bytes themselves and parse the
 * status line and headers of whatever comes back.
 */
import { connect } from "node:net";

/** A parsed response. */
export interface RawResponse {
  readonly status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Milliseconds until the server closed the connection (or the timeout hit). */
  readonly closedAfterMs: number;
}

/**
 * Sends `head` (request line and headers, without the blank line) and, if given, `body`;
 * collects the answer until the server closes the socket or `timeoutMs` passes.
 */
export function rawRequest(
  port: number,
  head: string,
  options: { body?: string; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`${head}\r\n\r\n${options.body ?? ""}`);
    });
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const headLines = (split < 0 ? all : all.subarray(0, split)).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headLines[0] ?? "")?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of headLines.slice(1)) {
        const colon = line.indexOf(":");
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      const rawBody = split < 0 ? Buffer.alloc(0) : all.subarray(split + 4);
      const body = headers["transfer-encoding"] === "chunked" ? dechunk(rawBody) : rawBody;
      resolve({
        status,
        headers,
        body: body.toString("utf8"),
        closedAfterMs: Date.now() - started,
      });
    });
  });
}

/** Decodes a chunked body at the byte level. */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
