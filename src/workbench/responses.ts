/**
 * workbench/responses — how a body becomes a Response: JSON (one compact document plus a
 * newline, `Irrevon-Schema-Version: 1`, refused above 4 MiB with `response_too_large`), HTML,
 * CSS, and the error envelope. The security headers are added by the app's outer middleware
 * to every response, so they are not repeated here. Imports: workbench.
 */
import {
  API_SCHEMA_VERSION,
  errorEnvelope,
  STATUS_OF,
  workbenchError,
  WorkbenchErrorCode,
  type WorkbenchError,
} from "./http-errors.js";
import type { SafeHtml } from "./views/html.js";

/** Largest JSON body the API sends (reference §10.1). */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;

const JSON_HEADERS = {
  "Content-Type": "application/json; charset=utf-8",
  "Irrevon-Schema-Version": API_SCHEMA_VERSION,
} as const;

/** A JSON response; an oversized body becomes a `response_too_large` error instead. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const text = `${JSON.stringify(body)}\n`;
  if (Buffer.byteLength(text, "utf8") > MAX_JSON_BYTES) {
    return errorJsonResponse(
      workbenchError(
        WorkbenchErrorCode.response_too_large,
        "the response would exceed 4 MiB; narrow the query or lower limit",
        {
          max_bytes: MAX_JSON_BYTES,
        },
      ),
    );
  }
  return new Response(text, { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** The error envelope with the code's status. */
export function errorJsonResponse(
  error: WorkbenchError,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(`${JSON.stringify(errorEnvelope(error))}\n`, {
    status: STATUS_OF[error.code],
    headers: { ...JSON_HEADERS, ...headers },
  });
}

/** An HTML page. */
export function htmlResponse(status: number, page: SafeHtml): Response {
  return new Response(page.text, {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8" },
  });
}

/** The stylesheet. */
export function cssResponse(css: string): Response {
  return new Response(css, { status: 200, headers: { "Content-Type": "text/css; charset=utf-8" } });
}
