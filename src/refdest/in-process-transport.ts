/**
 * refdest/in-process-transport — lets an adapter talk to an in-memory Refdest without sockets.
 * It has the shape of adapters/http-kit's `HttpTransport` (declared again here because refdest
 * may not import adapters; the compiler checks the two agree wherever they meet). Requests go
 * through the same router as the HTTP server, so only public routes answer without the control
 * token. A drop becomes a transport error after the request was sent; a reply slower than the
 * deadline, or than the caller's AbortSignal, becomes a timeout (the destination still finishes
 * its work, as a real one would).
 * Imports: core.
 */
import { canonicalJson } from "./destination-ref.js";
import type { Refdest } from "./refdest.js";
import { routeRefdestRequest } from "./router.js";

export interface InProcessRequest {
  readonly method: "GET" | "POST";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  readonly deadlineMs: number;
  readonly maxResponseBytes: number;
  readonly signal?: AbortSignal;
}

export type InProcessExchange =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly bodyText: string | null;
    }
  | { readonly kind: "response_too_large"; readonly status: number }
  | { readonly kind: "timeout"; readonly sendState: "sent_no_response" }
  | {
      readonly kind: "transport_error";
      readonly sendState: "sent_no_response";
      readonly errorCode: string;
    };

/** A transport function bound to one in-process destination. */
export function createInProcessTransport(
  refdest: Refdest,
): (req: InProcessRequest) => Promise<InProcessExchange> {
  return async (req) => {
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
    const replyPromise = routeRefdestRequest(refdest, {
      method: req.method,
      target: url.pathname + url.search,
      headers,
      body: req.body ?? "",
    });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const deadline = new Promise<"deadline">((resolve) => {
      timer = setTimeout(() => resolve("deadline"), req.deadlineMs);
      onAbort = () => resolve("deadline");
      if (req.signal?.aborted === true) onAbort();
      req.signal?.addEventListener("abort", onAbort, { once: true });
    });
    const reply = await Promise.race([replyPromise, deadline]);
    clearTimeout(timer);
    if (onAbort !== undefined) req.signal?.removeEventListener("abort", onAbort);
    if (reply === "deadline") return { kind: "timeout", sendState: "sent_no_response" };
    if (reply.kind === "drop")
      return { kind: "transport_error", sendState: "sent_no_response", errorCode: "ECONNRESET" };
    const bodyText = canonicalJson(reply.body);
    if (Buffer.byteLength(bodyText, "utf8") > req.maxResponseBytes)
      return { kind: "response_too_large", status: reply.status };
    const outHeaders: Record<string, string> = {
      "content-type": "application/json; charset=utf-8",
    };
    for (const [k, v] of Object.entries(reply.headers ?? {})) outHeaders[k] = v;
    return { kind: "response", status: reply.status, headers: outHeaders, bodyText };
  };
}
