/**
 * test/support/defined-refdest-adapter — a C2 adapter for the reference destination written
 * with `defineAdapter` (not the RefdestAdapter class), reaching it through the in-process
 * transport. Used by the conformance suite test and the engine integration test to show a
 * defined adapter needs no engine change. Not a test file.
 */
import type { Adapter } from "../../src/adapters/contract.js";
import { defineAdapter } from "../../src/adapters/define-adapter.js";
import { createInProcessTransport, type Refdest } from "../../src/refdest/index.js";

const BASE = "http://127.0.0.1:4100";
const MAX = 1 << 20;

/** A defineAdapter-built C2 adapter (`refdest-defined-c2`) for `destination`. */
export function definedRefdestAdapter(destination: Refdest): Adapter {
  const send = createInProcessTransport(destination);
  const get = async (path: string, deadlineMs: number) => {
    const x = await send({
      method: "GET",
      url: BASE + path,
      headers: {},
      body: null,
      deadlineMs,
      maxResponseBytes: MAX,
    });
    return x.kind === "response" && x.bodyText !== null
      ? { status: x.status, body: JSON.parse(x.bodyText) as Record<string, unknown> }
      : null;
  };
  return defineAdapter({
    declaration: {
      adapter: "refdest-defined-c2",
      destination: "refdest",
      api_version: "refdest-v1",
      tier: "C2",
      client_ref_field: "client_ref",
      consistency: { status_settlement_lag: "PT0S", listing_lag: "PT0S" },
      citations: ["urn:irrevon:docs:refdest#tier-c2"],
    },
    async create(order, ctx) {
      const x = await send({
        method: "POST",
        url: `${BASE}/effects`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          effect_type: order.effectType,
          payload: order.payload,
          client_ref: order.clientRef,
        }),
        deadlineMs: ctx.deadlineMs,
        maxResponseBytes: MAX,
        ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      });
      if (x.kind === "timeout") return { transportOutcome: "TIMEOUT", evidence: {} };
      if (x.kind !== "response" || x.status !== 201 || x.bodyText === null) {
        return { transportOutcome: "LOST", evidence: { kind: x.kind } };
      }
      const body = JSON.parse(x.bodyText) as Record<string, unknown>;
      return {
        transportOutcome: "OK",
        destinationRef: String(body["destination_ref"]),
        evidence: { http_status: 201 },
      };
    },
    async findByClientRef(ref, ctx) {
      const r = await get(`/effects?client_ref=${encodeURIComponent(ref)}`, ctx.deadlineMs);
      if (r?.status !== 200) return { result: "INDETERMINATE" };
      const refs = (r.body["matches"] as Array<Record<string, string>>).map(
        (m) => m["destination_ref"] as string,
      );
      return refs.length > 0 ? { result: "PRESENT", destinationRefs: refs } : { result: "ABSENT" };
    },
    async findByDestinationRef(ref, ctx) {
      const r = await get(`/effects/${encodeURIComponent(ref)}`, ctx.deadlineMs);
      if (r?.status === 200) return { result: "PRESENT" };
      return r?.status === 404 ? { result: "ABSENT" } : { result: "INDETERMINATE" };
    },
    async list(window, cursor, ctx) {
      const q = new URLSearchParams({
        from: window.from,
        to: window.to,
        include_all: "true",
        limit: "100",
      });
      if (cursor !== null) q.set("cursor", cursor);
      const r = await get(`/effects?${q.toString()}`, ctx.deadlineMs);
      if (r?.status !== 200) throw new Error("list failed");
      const effects = (r.body["effects"] as Array<Record<string, string | null>>).map((e) => ({
        destinationRef: String(e["destination_ref"]),
        effectType: String(e["effect_type"]),
        clientRef: e["client_ref"] ?? null,
        createdAt: String(e["created_at"]),
        status: String(e["status"]),
      }));
      return { effects, nextCursor: (r.body["next_cursor"] as string | null) ?? null };
    },
  });
}
