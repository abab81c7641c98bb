/**
 * adapters/declarations/refdest — capability declarations of the reference destination, one
 * per tier (§5.4 table) plus lagged profiles. Each states what the refdest actually does:
 * C1 replays the first outcome of a key for PT24H of destination time and answers a parameter
 * mismatch with 409 idempotency_key_mismatch; C2 has stable refs and no dedup; C3 is notify-only.
 * The lag fields state the profile's read lag (PT0S unless the refdest runs with --lag-seconds);
 * an adapter against a lagged refdest must load the lagged declaration, or the reconciler would
 * trust an early 404. Citations point at docs/refdest.md sections. Imports: core (via adapters).
 */
import type { CapabilityDeclaration } from "../contract.js";
import { loadDeclaration } from "../declaration.js";

const DOC = "urn:irrevon:docs:refdest";

const C1: CapabilityDeclaration = {
  adapter: "refdest-c1",
  destination: "refdest",
  api_version: "refdest-v1",
  tier: "C1",
  idempotency: {
    supported: true,
    window: "PT24H",
    replay_semantics:
      "first outcome (201 effect or 400 invalid_request) replayed with the same parameters for PT24H of destination time; " +
      "parameter mismatch => 409 idempotency_key_mismatch (creates nothing); older keys are forgotten",
  },
  queryable: { supported: true, by: ["destination_ref", "client_ref"] },
  client_ref_field: "client_ref",
  list_queryable: true,
  consistency: { status_settlement_lag: "PT0S", listing_lag: "PT0S" },
  citations: [`${DOC}#tier-c1`, `${DOC}#status-and-list`, `${DOC}#error-codes`],
  evidence_quality: "VF",
  compensation_hook: null,
  attribution: { modes: ["exact", "stable-id-projection"], fields: ["client_ref"] },
};

const C2: CapabilityDeclaration = {
  adapter: "refdest-c2",
  destination: "refdest",
  api_version: "refdest-v1",
  tier: "C2",
  idempotency: { supported: false, window: null, replay_semantics: null },
  queryable: { supported: true, by: ["destination_ref", "client_ref"] },
  client_ref_field: "client_ref",
  list_queryable: true,
  consistency: { status_settlement_lag: "PT0S", listing_lag: "PT0S" },
  citations: [`${DOC}#tier-c2`, `${DOC}#status-and-list`, `${DOC}#error-codes`],
  evidence_quality: "VF",
  compensation_hook: null,
  attribution: { modes: ["exact", "stable-id-projection"], fields: ["client_ref"] },
};

const C3: CapabilityDeclaration = {
  adapter: "refdest-c3",
  destination: "refdest",
  api_version: "refdest-v1",
  tier: "C3",
  idempotency: { supported: false, window: null, replay_semantics: null },
  queryable: { supported: false, by: [] },
  client_ref_field: null,
  list_queryable: false,
  consistency: { status_settlement_lag: null, listing_lag: null },
  citations: [`${DOC}#tier-c3`, `${DOC}#error-codes`],
  evidence_quality: "VF",
  compensation_hook: null,
  attribution: {
    modes: ["impossible"],
    notes: "notify returns 202 {} with no reference; nothing can be read back",
  },
};

const BASE = { C1, C2, C3 } as const;

/**
 * The declaration for a refdest profile. `lagSeconds > 0` (C1/C2) states that read lag in both
 * consistency fields and suffixes the adapter id (`refdest-c2-lag30s`); C3 ignores the lag.
 * `batchMax` (C1/C2, 2..1000) declares the batch status lookup (`POST /effects/status`, at most
 * 1000 keys at the destination) as `queryable.batch_max` and cites it; the adapter id is kept.
 * Without it the declaration (and its digest) is exactly the profile's as before batch lookups
 * existed. C3 has nothing to look up: a `batchMax` there is refused (declaration_invalid).
 */
export function refdestDeclaration(
  tier: "C1" | "C2" | "C3",
  options: { readonly lagSeconds?: number; readonly batchMax?: number } = {},
): CapabilityDeclaration {
  const lag = options.lagSeconds ?? 0;
  const base = BASE[tier];
  const lagged: CapabilityDeclaration =
    tier === "C3" || lag === 0
      ? base
      : {
          ...base,
          adapter: `${base.adapter}-lag${lag}s`,
          consistency: { status_settlement_lag: `PT${lag}S`, listing_lag: `PT${lag}S` },
          citations: [...base.citations, `${DOC}#read-lag`],
        };
  if (options.batchMax === undefined) return loadDeclaration(lagged);
  return loadDeclaration({
    ...lagged,
    queryable: { ...lagged.queryable, batch_max: options.batchMax },
    citations: [...lagged.citations, `${DOC}#batch-status-lookup`],
  });
}

export const REFDEST_C1_DECLARATION: CapabilityDeclaration = refdestDeclaration("C1");
export const REFDEST_C2_DECLARATION: CapabilityDeclaration = refdestDeclaration("C2");
export const REFDEST_C3_DECLARATION: CapabilityDeclaration = refdestDeclaration("C3");
/** The lagged C2 profile: created effects are invisible to status and list for 30 s. */
export const REFDEST_C2_LAGGED_DECLARATION: CapabilityDeclaration = refdestDeclaration("C2", {
  lagSeconds: 30,
});
