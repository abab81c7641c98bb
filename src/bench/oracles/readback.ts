/**
 * bench/oracles/readback — the ground-truth read-back oracle (reference-bench §5.1). It reads
 * the reference destination's truth dump, which arms cannot reach, and attributes every effect
 * to an intent of the workload. It never reads idempotency keys.
 *
 * 1. `via = oob` ⇒ unattributed.
 * 2. Digest match: the stored payload digest against the digests of every fixture payload
 *    (trials map to `"<i>"`; same-intent variants to their base trial, new-intent variants to
 *    `"variant:<id>"`; a trial wins a collision with a variant). When the digest names
 *    exactly one intent, the effect is attributed to it.
 * 3. Stable-id projection (only when no payload digest matched): every string value anywhere
 *    in the stored payload; the candidates are the targets (a trial's stable-id values, or a
 *    new-intent variant's) whose non-empty set is a subset. Exactly one ⇒ attributed.
 * 4. Client reference (extension; docs/decisions/0012): when the payload names MORE than one
 *    intent — equal parameters of two different trials (the new-intent fault), or an ambiguous
 *    projection — the effect's client reference decides among them: `trialRefs` maps each
 *    reference to the trial during which it first reached the destination (recorded by the
 *    harness after every trial, bench/faults/drive-unit), and the effect is attributed to that
 *    trial iff it is one of the candidates. Otherwise ⇒ ambiguous: declined, counted as
 *    ambiguous and as orphan. No candidate ⇒ orphan.
 * The dev split never has two intents with one payload and never an ambiguous projection, so
 * step 4 never fires there and its read-back is the reference design's (which reads no client
 * reference).
 * Imports: refdest (types, digest), bench/fixtures (types, digest).
 */
import { canonicalDigest, type TruthEffect } from "../../refdest/index.js";
import { artifactDigest } from "../fixtures/artifact-bytes.js";
import type { VariantSet, WorkloadTrial } from "../fixtures/documents.js";
import type { Readback } from "../metrics/score-unit.js";

export type AttributedBy = "digest" | "projection" | "client-ref" | null;

/** One read-back row, in truth order. */
export interface ReadbackRow {
  readonly destination_ref: string;
  readonly request_seq: number;
  readonly created_at: string;
  readonly via: string;
  readonly attributed_intent: string | null;
  readonly attributed_by: AttributedBy;
  readonly ambiguous: boolean;
}

export interface ReadbackResult extends Readback {
  readonly performed: true;
  readonly ambiguous_attributions: number;
  readonly rows: readonly ReadbackRow[];
  /** Bare hex digest of the rows' attribution fields, in truth order. */
  readonly readback_digest: string;
}

function collectStrings(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, into);
  else if (value !== null && typeof value === "object")
    for (const v of Object.values(value)) collectStrings(v, into);
  return into;
}

/**
 * Reads back the destination's effects against the workload's intents. `trialRefs` (client
 * reference → trial during which it first reached the destination) breaks ties between
 * intents with equal payloads; without it such an effect is ambiguous.
 */
export function readBack(
  effects: readonly TruthEffect[],
  trials: readonly WorkloadTrial[],
  variants: VariantSet | null,
  trialRefs: ReadonlyMap<string, number> = new Map(),
): ReadbackResult {
  const variantByDigest = new Map<string, string>();
  const trialsByDigest = new Map<string, string[]>();
  const targets: { key: string; values: readonly string[] }[] = [];
  for (const v of variants?.variants ?? []) {
    const key = v.label === "same-intent" ? String(v.base_trial_index) : `variant:${v.variant_id}`;
    variantByDigest.set(canonicalDigest(v.parameters), key);
    if (v.label === "new-intent") targets.push({ key, values: Object.values(v.stable_ids) });
  }
  for (const t of trials) {
    const digest = canonicalDigest(t.parameters);
    trialsByDigest.set(digest, [...(trialsByDigest.get(digest) ?? []), String(t.trial_index)]);
    targets.push({ key: String(t.trial_index), values: Object.values(t.stable_ids) });
  }
  const counts: Record<string, number> = Object.fromEntries(
    trials.map((t) => [String(t.trial_index), 0]),
  );
  let orphans = 0;
  let ambiguousCount = 0;
  const rows: ReadbackRow[] = [];
  for (const e of effects) {
    let key: string | null = null;
    let by: AttributedBy = null;
    let ambiguous = false;
    if (e.via !== "oob") {
      const variantHit = variantByDigest.get(e.payload_digest);
      const digestHits =
        trialsByDigest.get(e.payload_digest) ?? (variantHit === undefined ? [] : [variantHit]);
      let candidates = digestHits;
      by = "digest";
      if (digestHits.length === 0) {
        const seen = collectStrings(e.payload, new Set());
        const hits = targets.filter(
          (t) => t.values.length > 0 && t.values.every((s) => seen.has(s)),
        );
        candidates = [...new Set(hits.map((h) => h.key))];
        by = "projection";
      }
      if (candidates.length === 1) key = candidates[0] as string;
      else if (candidates.length > 1) {
        const byRef = e.client_ref === null ? undefined : trialRefs.get(e.client_ref);
        if (byRef !== undefined && candidates.includes(String(byRef))) {
          key = String(byRef);
          by = "client-ref";
        } else ambiguous = true;
      }
      if (key === null) by = null;
    }
    if (key === null) orphans += 1;
    else counts[key] = (counts[key] ?? 0) + 1;
    if (ambiguous) ambiguousCount += 1;
    rows.push({
      destination_ref: e.destination_ref,
      request_seq: e.request_seq,
      created_at: e.created_at,
      via: e.via,
      attributed_intent: key,
      attributed_by: by,
      ambiguous,
    });
  }
  return {
    performed: true,
    total_effects: effects.length,
    per_intent_effect_counts: counts,
    orphan_effect_count: orphans,
    ambiguous_attributions: ambiguousCount,
    rows,
    readback_digest: artifactDigest(
      rows.map((r) => ({
        destination_ref: r.destination_ref,
        request_seq: r.request_seq,
        created_at: r.created_at,
        attributed_intent: r.attributed_intent,
        attributed_by: r.attributed_by,
      })),
    ),
  };
}
