/**
 * examples/define-adapter — a complete C2 adapter written with `defineAdapter` for a made-up
 * ticket API ("Acme Tickets": POST /tickets, GET /tickets/{id}, GET /tickets?client_ref=,
 * GET /tickets?created_from&created_to&cursor). Quoted by docs/adapters.md; type-checked, not
 * run (there is no Acme). Run the conformance suite against it with a harness of your own.
 */
import { defineAdapter, type CallContext, type FindResult } from "../src/index.js";

const ORIGIN = "https://api.acme.example";

/** One request with the call's deadline and the engine's abort signal; never throws. */
async function call(
  method: "GET" | "POST",
  path: string,
  ctx: CallContext,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> | null } | "timeout" | "lost"> {
  const signals = [AbortSignal.timeout(ctx.deadlineMs), ...(ctx.signal ? [ctx.signal] : [])];
  try {
    const res = await fetch(ORIGIN + path, {
      method,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${process.env["ACME_TOKEN"] ?? ""}`,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.any(signals),
      redirect: "manual",
    });
    const text = await res.text();
    let json: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      json =
        typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  } catch (e) {
    return e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")
      ? "timeout"
      : "lost";
  }
}

/** A status answer: 200 = PRESENT, 404 = ABSENT (authoritative), anything else INDETERMINATE. */
function found(
  r: Awaited<ReturnType<typeof call>>,
  refs: (json: Record<string, unknown>) => string[],
): FindResult {
  if (typeof r === "string") return { result: "INDETERMINATE", evidence: { transport: r } };
  if (r.status === 404) return { result: "ABSENT", evidence: { http_status: 404 } };
  if (r.status !== 200 || r.json === null)
    return { result: "INDETERMINATE", evidence: { http_status: r.status } };
  const list = refs(r.json);
  return list.length > 0
    ? { result: "PRESENT", destinationRefs: list, evidence: { http_status: 200 } }
    : { result: "ABSENT", evidence: { http_status: 200, matches: 0 } };
}

export const acmeTickets = defineAdapter({
  declaration: {
    adapter: "acme-tickets-c2",
    destination: "acme-tickets",
    api_version: "2026-01-01",
    tier: "C2",
    client_ref_field: "metadata.irrevon_ref",
    consistency: { status_settlement_lag: "PT5S", listing_lag: "PT1M" },
    citations: [
      "https://docs.acme.example/tickets#create",
      "https://docs.acme.example/tickets#search",
    ],
    // evidence_quality defaults to "EI" (from the documentation); queryable.by and
    // list_queryable are derived from the functions below.
  },
  effectTypes: ["ticket.create"],
  validatePayload: (_type, payload) =>
    typeof payload["title"] === "string" && payload["title"].length > 0
      ? null
      : { path: "payload.title", reason: "must be a non-empty string" },

  async create(order, ctx) {
    const r = await call("POST", "/tickets", ctx, {
      ...order.payload,
      metadata: { irrevon_ref: order.clientRef },
    });
    if (r === "timeout") return { transportOutcome: "TIMEOUT", evidence: {} };
    if (r === "lost") return { transportOutcome: "LOST", evidence: {} };
    const evidence = { http_status: r.status };
    if (r.status === 201 && typeof r.json?.["id"] === "string") {
      return { transportOutcome: "OK", destinationRef: r.json["id"], evidence };
    }
    // Documented as creating nothing (cite it in the declaration): a validation refusal.
    if (r.status === 422) return { transportOutcome: "FAILED", failureKind: "TERMINAL", evidence };
    return { transportOutcome: "LOST", evidence }; // 5xx, 409, unknown: the outcome is unknown
  },

  findByDestinationRef: async (ref, ctx) =>
    found(await call("GET", `/tickets/${encodeURIComponent(ref)}`, ctx), (j) =>
      typeof j["id"] === "string" ? [j["id"]] : [],
    ),

  findByClientRef: async (clientRef, ctx) =>
    found(await call("GET", `/tickets?client_ref=${encodeURIComponent(clientRef)}`, ctx), (j) =>
      Array.isArray(j["data"]) ? (j["data"] as Array<{ id: string }>).map((t) => t.id) : [],
    ),

  async list(window, cursor, ctx) {
    const q = new URLSearchParams({
      created_from: window.from,
      created_to: window.to,
      limit: "100",
    });
    if (cursor !== null) q.set("cursor", cursor);
    const r = await call("GET", `/tickets?${q.toString()}`, ctx);
    if (
      typeof r === "string" ||
      r.status !== 200 ||
      r.json === null ||
      !Array.isArray(r.json["data"])
    ) {
      throw new Error("acme list failed"); // reported to the sweep as destination_unavailable
    }
    const data = r.json["data"] as Array<{
      id: string;
      created_at: string;
      status: string;
      metadata?: { irrevon_ref?: string };
    }>;
    return {
      effects: data.map((t) => ({
        destinationRef: t.id,
        effectType: "ticket.create",
        clientRef: t.metadata?.irrevon_ref ?? null,
        createdAt: t.created_at,
        status: t.status,
      })),
      nextCursor: typeof r.json["next_cursor"] === "string" ? r.json["next_cursor"] : null,
    };
  },
});
