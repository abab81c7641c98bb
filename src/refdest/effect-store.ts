/**
 * refdest/effect-store — the effects that exist at the reference destination and the read
 * paths over them. Read lag lives here: an effect is invisible to get, query and list until its
 * `visible_from` destination time; the list filter quirk hides flagged effects from a listing
 * that does not ask for include_all. The write path (C1 replay) never consults visibility.
 * Imports: core.
 */
import { canonicalDigest, deriveDestinationRef } from "./destination-ref.js";
import { isoAtSeconds } from "./virtual-clock.js";
import type { EffectVia, EffectView, TruthEffect } from "./wire-types.js";

/** What is needed to store one effect. */
export interface StoreInput {
  readonly effectType: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly clientRef: string | null;
  readonly idempotencyKey: string | null;
  readonly requestSeq: number;
  readonly createdAtSeconds: number;
  readonly lagSeconds: number;
  readonly visibleByDefault: boolean;
  readonly enrich: boolean;
  readonly via: EffectVia;
}

interface StoredEffect {
  readonly truth: TruthEffect;
  readonly createdAtSeconds: number;
  readonly visibleFromSeconds: number;
}

/** One page of a listing: `nextCursor` is null on the last page. */
export interface ListSlice {
  readonly effects: readonly EffectView[];
  readonly nextCursor: string | null;
}

const CURSOR = /^cur_(\d{1,15})$/;

/** Public view of a truth row. */
export function viewOf(t: TruthEffect): EffectView {
  return {
    destination_ref: t.destination_ref,
    effect_type: t.effect_type,
    client_ref: t.client_ref,
    created_at: t.created_at,
    status: t.status,
  };
}

/** The seeded store of effects, in creation order. */
export class EffectStore {
  #seed: number;
  #effects: StoredEffect[] = [];
  #byRef = new Map<string, StoredEffect>();

  constructor(seed: number) {
    this.#seed = seed;
  }

  /** Empty the store and start a new seed's ref sequence. */
  reset(seed: number): void {
    this.#seed = seed;
    this.#effects = [];
    this.#byRef.clear();
  }

  get count(): number {
    return this.#effects.length;
  }

  /** Store one effect under the next counter value; returns its truth row. */
  store(input: StoreInput): TruthEffect {
    const n = this.#effects.length + 1;
    // A deep copy through JSON: the caller can mutate its object later without editing the truth.
    const copied = JSON.parse(JSON.stringify(input.payload)) as Record<string, unknown>;
    const payload = input.enrich
      ? { normalized: true, server_fields: { region: "dev-1", revision: n }, data: copied }
      : copied;
    const visibleFromSeconds = input.createdAtSeconds + input.lagSeconds;
    const truth: TruthEffect = {
      destination_ref: deriveDestinationRef(this.#seed, n),
      effect_type: input.effectType,
      client_ref: input.clientRef,
      created_at: isoAtSeconds(input.createdAtSeconds),
      status: "created",
      n,
      payload,
      payload_digest: canonicalDigest(payload),
      idempotency_key: input.idempotencyKey,
      request_seq: input.requestSeq,
      visible_by_default: input.visibleByDefault,
      visible_from: isoAtSeconds(visibleFromSeconds),
      via: input.via,
    };
    const stored: StoredEffect = {
      truth,
      createdAtSeconds: input.createdAtSeconds,
      visibleFromSeconds,
    };
    this.#effects.push(stored);
    this.#byRef.set(truth.destination_ref, stored);
    return truth;
  }

  /** The effect with this ref if a reader at `nowSeconds` can see it. */
  get(ref: string, nowSeconds: number): EffectView | null {
    const s = this.#byRef.get(ref);
    return s !== undefined && nowSeconds >= s.visibleFromSeconds ? viewOf(s.truth) : null;
  }

  /** All visible effects carrying this client ref (no uniqueness: C2 never dedups). */
  queryByClientRef(clientRef: string, nowSeconds: number): EffectView[] {
    return this.#effects
      .filter((s) => s.truth.client_ref === clientRef && nowSeconds >= s.visibleFromSeconds)
      .map((s) => viewOf(s.truth));
  }

  /**
   * Effects created in [fromSeconds, toSeconds], visible at `nowSeconds`, after `cursor`.
   * Returns null when the cursor is not one this store issued.
   */
  list(
    window: { readonly fromSeconds: number; readonly toSeconds: number },
    opts: { readonly includeAll: boolean; readonly limit: number; readonly cursor: string | null },
    nowSeconds: number,
  ): ListSlice | null {
    let afterN = 0;
    if (opts.cursor !== null) {
      const m = CURSOR.exec(opts.cursor);
      if (m === null) return null;
      afterN = Number(m[1]);
    }
    const hits = this.#effects.filter(
      (s) =>
        s.truth.n > afterN &&
        s.createdAtSeconds >= window.fromSeconds &&
        s.createdAtSeconds <= window.toSeconds &&
        nowSeconds >= s.visibleFromSeconds &&
        (opts.includeAll || s.truth.visible_by_default),
    );
    const page = hits.slice(0, opts.limit);
    const last = page[page.length - 1];
    return {
      effects: page.map((s) => viewOf(s.truth)),
      nextCursor: hits.length > page.length && last !== undefined ? `cur_${last.truth.n}` : null,
    };
  }

  /** Every truth row in creation order. */
  truth(): readonly TruthEffect[] {
    return this.#effects.map((s) => s.truth);
  }
}
