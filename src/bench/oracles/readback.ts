/**
 * bench/oracles/readback — the ground-truth read-back oracle (reference-bench §5.1). It reads
 * the reference destination's truth dump, which arms cannot reach, and attributes every effect
 * to an intent of the workload. It never reads client refs or idempotency keys.
 *
 * 1. `via = oob` ⇒ unattributed.
 * 2. Digest match: the stored payload digest against the digests of every fixture payload
 *    (trials map to `"<i>"`; same-intent variants to their base trial, new-intent variants to
 *    `"variant:<id>"`; trials win collisions).
 * 3. Stable-id projection: every string value anywhere in the stored payload; the effect is
 *    attributed iff exactly one non-empty target set (a trial's stable-id values, or a
 *    new-intent variant's) is a subset. More than one ⇒ ambiguous: declined, counted as
 *    ambiguous and as orphan. None ⇒ orphan.
 * Imports: refdest (types, digest), bench/fixtures (types, digest).
 */
import { canonicalDigest, type TruthEffect } from "../../refdest/index.js";
import { artifactDigest } from "../fixtures/artifact-bytes.js";
import type { VariantSet, WorkloadTrial } from "../fixtures/documents.js";
import type { Readback } from "../metrics/score-unit.js";

export type AttributedBy = "digest" | "projection" | null;

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

/** Reads back the destination's effects against the workload's intents. */
export function readBack(
  effects: readonly TruthEffect[],
  trials: readonly WorkloadTrial[],
  variants: VariantSet | null,
): ReadbackResult {
  const byDigest = new Map<string, string>();
  const targets: { key: string; values: readonly string[] }[] = [];
  for (const v of variants?.variants ?? []) {
    const key = v.label === "same-intent" ? String(v.base_trial_index) : `variant:${v.variant_id}`;
    byDigest.set(canonicalDigest(v.parameters), key);
    if (v.label === "new-intent") targets.push({ key, values: Object.values(v.stable_ids) });
  }
  for (const t of trials) {
    byDigest.set(canonicalDigest(t.parameters), String(t.trial_index));
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
      const digestHit = byDigest.get(e.payload_digest);
      if (digestHit !== undefined) {
        key = digestHit;
        by = "digest";
      } else {
        const seen = collectStrings(e.payload, new Set());
        const hits = targets.filter(
          (t) => t.values.length > 0 && t.values.every((s) => seen.has(s)),
        );
        const distinct = [...new Set(hits.map((h) => h.key))];
        if (distinct.length === 1) {
          key = distinct[0] as string;
          by = "projection";
        } else if (distinct.length > 1) ambiguous = true;
      }
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
