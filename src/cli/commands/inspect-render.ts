/**
 * cli/commands/inspect-render — the human form of `irrevon inspect`: the three dimensions
 * first, then the timeline and the evidence behind each step, then the integrity line.
 */
import type { EffectInspection } from "../../ledger/inspect-effect.js";

type Row = Readonly<Record<string, unknown>>;

function str(v: unknown): string {
  if (v === null || v === undefined) return "-";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function section(title: string, items: readonly unknown[], line: (row: Row) => string): string[] {
  if (items.length === 0) return [`${title}: none`];
  return [`${title}:`, ...items.map((item) => `  ${line(item as Row)}`)];
}

/** Renders an inspect document for a terminal. */
export function renderInspection(doc: EffectInspection, source: string): string {
  const r = doc.record;
  const lines: string[] = [
    `effect ${str(r["effect_id"])}  (${source})`,
    `  ${str(r["effect_type"])} · ${str(r["effect_class"])} · scope ${str(r["scope"])} · adapter ${str(r["adapter_id"])}`,
    `  stable_ids ${str(r["stable_ids"])}`,
    "",
    `lifecycle       ${doc.dimensions.lifecycle}`,
    `classification  ${doc.dimensions.classification}`,
    `resolution      ${doc.dimensions.resolution ?? "-"}`,
    "",
    ...section("timeline", doc.timeline, (t) => `#${str(t["transition_seq"])} step ${str(t["step"])}  ${str(t["from_state"] ?? "∅")} → ${str(t["to_state"])}  (${str(t["cause"])}, ${str(t["actor"])})  evidence ${str(t["evidence"])}`),
    ...section("gate decisions", doc.gate_decisions, (g) => `#${str(g["decision_id"])} ${str(g["variant"])} ${str(g["outcome"])}${g["deny_check"] ? ` by ${str(g["deny_check"])}` : ""}  cause ${str((g["evidence"] as Row | null)?.["cause"])}`),
    ...section("attempts", doc.attempts, (a) => `#${str(a["attempt_id"])} ${str(a["kind"])} key ${str(a["idempotency_key"])}  claimed ${str(a["claimed_at"])}`),
    ...section("receipts", doc.receipts, (x) => `#${str(x["receipt_id"])} attempt ${str(x["attempt_id"])} ${str(x["transport_outcome"])}${x["failure_kind"] ? `/${str(x["failure_kind"])}` : ""} ref ${str(x["destination_ref"])}`),
    ...section("probes", doc.probes, (p) => `#${str(p["probe_id"])} ${str(p["probe_kind"])} ${str(p["result"])} n=${str(p["n_found"])} keys ${str(p["query_keys"])} refs ${str(p["destination_refs"])}`),
    ...section("findings", doc.findings, (f) => `#${str(f["finding_id"])} ${str(f["classification"])} (${str(f["resolution_status"])}) by ${str(f["created_by"])}  evidence ${str(f["evidence"])}`),
    ...section("resolutions", doc.resolutions, (x) => `finding ${str(x["finding_id"])} ${str(x["from_status"])} → ${str(x["to_status"])} (${str(x["actor"])})`),
    ...section("parameter variants", doc.parameter_variants, (v) => `#${str(v["variant_id"])} ${str(v["parameters_digest"])}`),
    "",
    `integrity: recomputed intent_id ${doc.integrity.recomputed_intent_id} ${doc.integrity.matches ? "matches" : "DOES NOT MATCH"} the record`,
  ];
  return lines.join("\n");
}
