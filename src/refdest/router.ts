/**
 * refdest/router — maps one request (method, target, headers, body text) to a destination
 * operation and returns its reply. Shared by the HTTP server and the in-process transport, so
 * both answer identically. Anything refused before an operation runs (unknown route, wrong
 * method, bad media type, oversized or malformed body, missing control token) is counted as
 * rejected and never ticks the clock or touches the truth log.
 *
 * Public routes: POST /effects · GET /effects?client_ref= · GET /effects?from&to… ·
 * GET /effects/{ref} · POST /effects/status (batch status lookup, ≤ 1000 keys) · POST /notify. Control routes live under /control/ and need
 * `Authorization: Bearer <controlToken>`; the token is checked before anything else there.
 * Imports: core.
 */
import { timingSafeEqual } from "node:crypto";
import { isIrrevonError } from "../core/errors.js";
import { MAX_BODY_BYTES } from "./json-limits.js";
import type { Refdest } from "./refdest.js";
import {
  advanceBodySchema,
  createBodySchema,
  notifyBodySchema,
  oobBodySchema,
  parseBody,
  parseEffectsQuery,
  resetBodySchema,
  scheduleBodySchema,
  statusBatchBodySchema,
} from "./request-parsing.js";
import { errorReply, type RefdestReply } from "./wire-types.js";

/** One request as the router sees it. Header names are lower-case. */
export interface RefdestHttpRequest {
  readonly method: string;
  /** Path plus query, as on the request line. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body text; "" when there is none. */
  readonly body: string;
}

type Handler = (
  refdest: Refdest,
  url: URL,
  req: RefdestHttpRequest,
) => Promise<RefdestReply> | RefdestReply;
interface Route {
  readonly methods: Readonly<Record<string, Handler>>;
  /** Tiers that offer the route; absent = every tier (control routes). */
  readonly tiers?: readonly Refdest["tier"][];
}

const ok = (status: number, body: unknown): RefdestReply => ({ kind: "response", status, body });

const PUBLIC: ReadonlyArray<readonly [RegExp, Route]> = [
  [
    /^\/effects$/,
    {
      methods: {
        POST: (d, _u, r) => {
          const p = parseBody(createBodySchema, r.body);
          return p.ok ? d.create(p.value) : p.reply;
        },
        GET: (d, u) => {
          const p = parseEffectsQuery(u.searchParams);
          if (!p.ok) return p.reply;
          const q = p.value;
          return q.kind === "query"
            ? d.query(q.clientRef)
            : d.list({
                from: q.from,
                to: q.to,
                include_all: q.includeAll,
                cursor: q.cursor,
                ...(q.limit === undefined ? {} : { limit: q.limit }),
              });
        },
      },
      tiers: ["C1", "C2"],
    },
  ],
  [
    // Before the ref route: POST is the batch status lookup. GET still asks for an effect
    // whose ref is "status" (none ever is: refs are "dest_…"), exactly as before the route.
    /^\/effects\/status$/,
    {
      methods: {
        POST: (d, _u, r) => {
          const p = parseBody(statusBatchBodySchema, r.body);
          return p.ok ? d.statusBatch(p.value) : p.reply;
        },
        GET: (d) => d.get("status"),
      },
      tiers: ["C1", "C2"],
    },
  ],
  [
    /^\/effects\/[^/]+$/,
    {
      methods: { GET: (d, u) => d.get(decodeURIComponent(u.pathname.slice("/effects/".length))) },
      tiers: ["C1", "C2"],
    },
  ],
  [
    /^\/notify$/,
    {
      methods: {
        POST: (d, _u, r) => {
          const p = parseBody(notifyBodySchema, r.body);
          return p.ok ? d.notify(p.value) : p.reply;
        },
      },
      tiers: ["C3"],
    },
  ],
];

const CONTROL: ReadonlyArray<readonly [RegExp, Route]> = [
  [
    /^\/control\/schedule$/,
    {
      methods: {
        GET: (d) => ok(200, { entries: d.scheduleSnapshot() }),
        POST: (d, _u, r) => {
          const p = parseBody(scheduleBodySchema, r.body);
          if (!p.ok) return p.reply;
          try {
            return ok(200, {
              pending: d.schedule(p.value.entries, { replace: p.value.replace ?? false }),
            });
          } catch (e) {
            if (!isIrrevonError(e)) throw e;
            const field = typeof e.details["field"] === "string" ? e.details["field"] : "entries";
            return errorReply(400, "schedule_invalid", e.message, { field });
          }
        },
      },
    },
  ],
  [
    /^\/control\/reset$/,
    {
      methods: {
        POST: (d, _u, r) => {
          const p = parseBody(resetBodySchema, r.body, true);
          if (!p.ok) return p.reply;
          d.reset(p.value.seed === undefined ? {} : { seed: p.value.seed });
          return ok(200, { tier: d.tier, seed: d.seed });
        },
      },
    },
  ],
  [
    /^\/control\/oob$/,
    {
      methods: {
        POST: (d, _u, r) => {
          const p = parseBody(oobBodySchema, r.body);
          return p.ok ? ok(201, { effects: d.createOutOfBand(p.value) }) : p.reply;
        },
      },
    },
  ],
  [
    /^\/control\/advance$/,
    {
      methods: {
        POST: (d, _u, r) => {
          const p = parseBody(advanceBodySchema, r.body);
          return p.ok ? ok(200, { now: d.advanceClock(p.value.seconds) }) : p.reply;
        },
      },
    },
  ],
  [/^\/control\/truth$/, { methods: { GET: (d) => ok(200, d.truthDump()) } }],
  [/^\/control\/log$/, { methods: { GET: (d) => ok(200, { entries: d.requestLog() }) } }],
  [/^\/control\/state$/, { methods: { GET: (d) => ok(200, d.state()) } }],
];

/** Paths that exist only in another tier's API: answered 404 route_not_supported, not route_not_found. */
const OTHER_TIER_PATHS = [/^\/effects$/, /^\/effects\/[^/]+$/, /^\/notify$/];

function tokenMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice("Bearer ".length), "utf8");
  const expected = Buffer.from(token, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function isJsonMediaType(value: string | undefined): boolean {
  return value !== undefined && /^application\/json\s*(;.*)?$/i.test(value.trim());
}

function dispatchRoute(
  refdest: Refdest,
  table: ReadonlyArray<readonly [RegExp, Route]>,
  url: URL,
  req: RefdestHttpRequest,
  requireJson: boolean,
): Promise<RefdestReply> | RefdestReply | null {
  const route = table.find(
    ([re, r]) => re.test(url.pathname) && (r.tiers?.includes(refdest.tier) ?? true),
  )?.[1];
  if (route === undefined) return null;
  const handler = route.methods[req.method];
  if (handler === undefined) {
    const allow = Object.keys(route.methods).join(", ");
    return errorReply(405, "method_not_allowed", `use ${allow}`, { headers: { allow } });
  }
  if (req.method === "POST" && requireJson && !isJsonMediaType(req.headers["content-type"])) {
    return errorReply(415, "unsupported_media_type", "send Content-Type: application/json", {
      field: "content-type",
    });
  }
  return handler(refdest, url, req);
}

/** Route one request to the destination. Never throws: an unexpected error is a 500. */
export async function routeRefdestRequest(
  refdest: Refdest,
  req: RefdestHttpRequest,
): Promise<RefdestReply> {
  const rejected = (reply: RefdestReply): RefdestReply => {
    refdest.noteRejected();
    return reply;
  };
  try {
    if (Buffer.byteLength(req.body, "utf8") > MAX_BODY_BYTES) {
      return rejected(
        errorReply(
          413,
          "payload_too_large",
          `request bodies are limited to ${MAX_BODY_BYTES} bytes`,
        ),
      );
    }
    let url: URL;
    try {
      url = new URL(req.target, "http://refdest.invalid");
      decodeURIComponent(url.pathname);
    } catch {
      return rejected(
        errorReply(400, "invalid_request", "unparseable request target", { field: "target" }),
      );
    }
    const isControl = url.pathname === "/control" || url.pathname.startsWith("/control/");
    if (isControl && !tokenMatches(req.headers["authorization"], refdest.controlToken)) {
      return rejected(
        errorReply(401, "unauthorized", "control routes need the instance's bearer token", {
          headers: { "www-authenticate": "Bearer" },
        }),
      );
    }
    // The synchronous part of an operation ticks the clock before its first await, so comparing
    // the request count right after the call tells a refusal (no tick) from an operation that ran.
    const before = refdest.requestCount;
    const pending = dispatchRoute(
      refdest,
      isControl ? CONTROL : PUBLIC,
      url,
      req,
      !isControl || req.body.trim() !== "",
    );
    const ran = refdest.requestCount !== before;
    const reply = await pending;
    if (reply !== null) {
      return !ran && !isControl && reply.kind === "response" && reply.status >= 400
        ? rejected(reply)
        : reply;
    }
    if (!isControl && OTHER_TIER_PATHS.some((re) => re.test(url.pathname))) {
      return rejected(
        errorReply(
          404,
          "route_not_supported",
          `a ${refdest.tier} destination does not offer ${url.pathname}`,
        ),
      );
    }
    return rejected(errorReply(404, "route_not_found", "no such route"));
  } catch {
    return errorReply(500, "internal_error", "unexpected destination failure");
  }
}
