/**
 * adapters/http-kit — the one wire call an adapter makes, reduced to a value.
 * `nodeHttpTransport` performs exactly one request (no redirects followed, no retries, no
 * connection reuse, so a stale keep-alive socket can never be mistaken for a lost response)
 * and reports a response, an oversized response, a deadline expiry (its own timer, or the
 * engine's AbortSignal) or a transport error, each with how far the request got
 * (`sendState`). It never throws for network trouble. Ending our side of the exchange does not
 * end the destination's work on a request it already received: that is why the engine counts
 * read lag from the deadline of an abandoned call, not from the moment it was sent.
 * Adapters take an `HttpTransport` so tests and the in-process reference destination can stand
 * in for the network. Imports: core.
 */
import { createHash } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import canonicalize from "canonicalize";
import { IrrevonError } from "../core/errors.js";

/** One request an adapter wants sent. */
export interface HttpRequestSpec {
  readonly method: "GET" | "POST";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  readonly deadlineMs: number;
  readonly maxResponseBytes: number;
  /** Aborted by the engine at its deadline: the exchange ends at once as a timeout. */
  readonly signal?: AbortSignal;
}

/** How far the exchange got before it ended abnormally. */
export type SendState = "not_sent" | "sent_no_response" | "partial_response";

/** The outcome of one wire call, as data. `bodyText` is null when the body is not valid UTF-8. */
export type HttpExchange =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly bodyText: string | null;
    }
  | { readonly kind: "response_too_large"; readonly status: number }
  | { readonly kind: "timeout"; readonly sendState: SendState }
  | { readonly kind: "transport_error"; readonly sendState: SendState; readonly errorCode: string };

/** Sends one request; must resolve (never reject) for any network outcome. */
export type HttpTransport = (spec: HttpRequestSpec) => Promise<HttpExchange>;

/** Default response size cap for adapters. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_RESPONSE_DEPTH = 64;
const MAX_RESPONSE_NODES = 50_000;

function headerRecord(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** Throws `usage` unless the deadline is a finite positive number of milliseconds. */
export function checkDeadlineMs(deadlineMs: number): void {
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) {
    throw new IrrevonError("usage", "deadlineMs must be a finite number > 0", {
      details: { field: "deadlineMs" },
    });
  }
}

/** The node:http(s) transport: one connection per call, deadline over the whole exchange. */
export const nodeHttpTransport: HttpTransport = (spec) =>
  new Promise<HttpExchange>((resolve) => {
    let settled = false;
    let sendState: SendState = "not_sent";
    const url = new URL(spec.url);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...spec.headers, accept: "application/json" };
    if (spec.body !== null)
      headers["content-length"] = String(Buffer.byteLength(spec.body, "utf8"));
    const req = send(url, { method: spec.method, headers, agent: false });
    const finish = (x: HttpExchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(x);
    };
    const abandon = (): void => {
      finish({ kind: "timeout", sendState });
      req.destroy();
    };
    const timer = setTimeout(abandon, spec.deadlineMs);
    if (spec.signal?.aborted === true) abandon();
    spec.signal?.addEventListener("abort", abandon, { once: true });
    req.on("close", () => spec.signal?.removeEventListener("abort", abandon));
    req.on("finish", () => {
      sendState = "sent_no_response";
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      finish({ kind: "transport_error", sendState, errorCode: err.code ?? "ERR_TRANSPORT" });
    });
    req.on("response", (res) => {
      sendState = "partial_response";
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > spec.maxResponseBytes) {
          finish({ kind: "response_too_large", status });
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on("error", () =>
        finish({ kind: "transport_error", sendState, errorCode: "ERR_TRUNCATED" }),
      );
      res.on("close", () => {
        if (!res.complete) {
          finish({ kind: "transport_error", sendState, errorCode: "ERR_TRUNCATED" });
          return;
        }
        let bodyText: string | null;
        try {
          bodyText = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
        } catch {
          bodyText = null;
        }
        finish({ kind: "response", status, headers: headerRecord(res), bodyText });
      });
    });
    req.end(spec.body ?? undefined);
  });

/** Parse a response body defensively: JSON, within depth and node limits, or a reason. */
export function parseJsonBody(
  text: string | null,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (text === null) return { ok: false, reason: "bad_utf8" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "not_json" };
  }
  let nodes = 0;
  const stack: Array<{ readonly v: unknown; readonly d: number }> = [{ v: value, d: 1 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop() as { readonly v: unknown; readonly d: number };
    nodes += 1;
    if (nodes > MAX_RESPONSE_NODES) return { ok: false, reason: "too_many_nodes" };
    // JSON.parse turns 1e999 into Infinity: no canonical form, so refuse it as unparseable.
    if (typeof v === "number" && !Number.isFinite(v)) return { ok: false, reason: "non_finite_number" };
    if (typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v))
      return { ok: false, reason: "unsafe_integer" };
    if (v === null || typeof v !== "object") continue;
    if (d > MAX_RESPONSE_DEPTH) return { ok: false, reason: "too_deep" };
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: child, d: d + 1 });
  }
  return { ok: true, value };
}

/** `sha256:<hex>` over the RFC 8785 bytes of a JSON value (for response digests). */
export function jsonDigest(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new IrrevonError("internal", "value has no canonical JSON form");
  return "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where a payload breaks the JSON body rules, or null when it is sendable unchanged. */
export interface PayloadProblem {
  readonly path: string;
  readonly reason: string;
}

/**
 * Check that a value survives JSON unchanged and within limits: a plain object at the top,
 * only null/boolean/string/finite numbers (safe integers)/arrays/plain objects inside, no
 * `undefined` members (JSON.stringify would silently drop them), nesting ≤ maxDepth and
 * compact JSON ≤ maxBytes.
 */
export function jsonPayloadProblem(
  payload: unknown,
  maxBytes: number,
  maxDepth = 64,
): PayloadProblem | null {
  const plain = (v: object): boolean => {
    const proto: unknown = Object.getPrototypeOf(v);
    return proto === Object.prototype || proto === null;
  };
  if (!isRecord(payload) || !plain(payload))
    return { path: "payload", reason: "must be a plain JSON object" };
  const stack: Array<{ readonly v: unknown; readonly path: string; readonly d: number }> = [
    { v: payload, path: "payload", d: 1 },
  ];
  while (stack.length > 0) {
    const { v, path, d } = stack.pop() as {
      readonly v: unknown;
      readonly path: string;
      readonly d: number;
    };
    switch (typeof v) {
      case "string":
      case "boolean":
        continue;
      case "number":
        if (!Number.isFinite(v)) return { path, reason: "non-finite number" };
        if (Number.isInteger(v) && !Number.isSafeInteger(v))
          return { path, reason: "integer outside the safe range" };
        continue;
      case "object":
        if (v === null) continue;
        if (d > maxDepth) return { path, reason: `nested deeper than ${maxDepth}` };
        if (Array.isArray(v)) {
          v.forEach((c: unknown, i) => stack.push({ v: c, path: `${path}[${i}]`, d: d + 1 }));
        } else {
          if (!plain(v)) return { path, reason: "not a plain object" };
          for (const [k, c] of Object.entries(v))
            stack.push({ v: c, path: `${path}.${k}`, d: d + 1 });
        }
        continue;
      case "undefined":
      case "bigint":
      case "function":
      case "symbol":
        return { path, reason: `${typeof v} is not JSON` };
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(payload), "utf8");
  return bytes > maxBytes
    ? { path: "payload", reason: `${bytes} bytes of compact JSON exceed ${maxBytes}` }
    : null;
}
