/**
 * workbench/api-routes — the JSON API under /api/v1 (reference §10.1): effects (filters,
 * keyset cursor), one effect, its inspect document (the exact document `irrevon inspect
 * --json` prints), findings, adapters with their declarations, health, and the always-empty
 * bench-runs list. Lists use the envelope `{schema_version, data, has_more, next_cursor,
 * as_of}`. Every body has passed the stable-id digest. Imports: workbench.
 */
import type { Hono } from "hono";
import type { WorkbenchEnv } from "./app-env.js";
import { API_SCHEMA_VERSION, workbenchError, WorkbenchErrorCode } from "./http-errors.js";
import { parseEffectsQuery, parseFindingsQuery, parseNoQuery } from "./query-params.js";
import {
  adaptersView,
  effectItem,
  effectsPage,
  findingsPage,
  healthChecks,
  inspection,
  type Reader,
} from "./read-model.js";
import { errorJsonResponse, jsonResponse } from "./responses.js";
import type { HealthCheck } from "./queries/health.js";

/** Health answers are cached this long (reference §10.1), so a polling tab costs nothing. */
export const HEALTH_CACHE_MS = 5_000;

const EFFECT_ID = "{[0-9a-f]{64}}";

const notFound = (): Response =>
  errorJsonResponse(workbenchError(WorkbenchErrorCode.not_found, "no effect record with this id"));

/** Registers the API routes on `app`. */
export function registerApiRoutes(
  app: Hono<WorkbenchEnv>,
  read: Reader,
  now: () => number = Date.now,
): void {
  app.get("/api/v1/effects", async (c) => {
    const query = parseEffectsQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return errorJsonResponse(query.error);
    const { value, asOf } = await effectsPage(read, query.value);
    return jsonResponse(200, {
      schema_version: API_SCHEMA_VERSION,
      data: value.items,
      has_more: value.hasMore,
      next_cursor: value.nextCursor,
      as_of: asOf,
    });
  });

  app.get(`/api/v1/effects/:id${EFFECT_ID}`, async (c) => {
    const query = parseNoQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return errorJsonResponse(query.error);
    const { value, asOf } = await effectItem(read, c.req.param("id"));
    return value === null
      ? notFound()
      : jsonResponse(200, { schema_version: API_SCHEMA_VERSION, data: value, as_of: asOf });
  });

  app.get(`/api/v1/effects/:id${EFFECT_ID}/inspect`, async (c) => {
    const query = parseNoQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return errorJsonResponse(query.error);
    const { value } = await inspection(read, c.req.param("id"));
    return value === null ? notFound() : jsonResponse(200, value);
  });

  app.get("/api/v1/findings", async (c) => {
    const query = parseFindingsQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return errorJsonResponse(query.error);
    const { value, asOf } = await findingsPage(read, query.value);
    return jsonResponse(200, {
      schema_version: API_SCHEMA_VERSION,
      data: value.items,
      has_more: value.hasMore,
      next_cursor: value.nextCursor,
      as_of: asOf,
    });
  });

  app.get("/api/v1/adapters", async (c) => {
    const query = parseNoQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return errorJsonResponse(query.error);
    const { value, asOf } = await adaptersView(read);
    return jsonResponse(200, {
      schema_version: API_SCHEMA_VERSION,
      data: value.declarations,
      ledger: value.ledger,
      as_of: asOf,
    });
  });

  app.get("/api/v1/bench-runs", (c) => {
    const query = parseNoQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return errorJsonResponse(query.error);
    return jsonResponse(200, {
      schema_version: API_SCHEMA_VERSION,
      data: [],
      has_more: false,
      next_cursor: null,
      as_of: new Date(now()).toISOString(),
    });
  });

  let cached:
    { readonly atMs: number; readonly checks: HealthCheck[]; readonly asOf: string } | undefined;
  app.get("/api/v1/health", async (c) => {
    const query = parseNoQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return errorJsonResponse(query.error);
    if (cached === undefined || now() - cached.atMs >= HEALTH_CACHE_MS) {
      const { value, asOf } = await healthChecks(read);
      cached = { atMs: now(), checks: value, asOf };
    }
    const healthy = cached.checks.every((ch) => ch.status === "ok");
    return jsonResponse(healthy ? 200 : 503, {
      schema_version: API_SCHEMA_VERSION,
      status: healthy ? "ok" : "unavailable",
      checks: cached.checks,
      as_of: cached.asOf,
    });
  });
}
