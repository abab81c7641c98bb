/**
 * refdest/idempotency-cache — C1 idempotency keys: the first outcome of a key is replayed for a
 * declared window of destination (virtual) time, and only for the same parameters. Closes the
 * reference's gap (§11 item 7: no window, no parameter comparison). A key older than the window
 * is forgotten, so a later create with it makes a new effect — as real keyed APIs do once keys
 * are pruned. Imports: nothing.
 */

/** The first outcome recorded for a key. */
export interface CachedOutcome {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

interface KeyRecord {
  readonly firstSeenSeconds: number;
  readonly fingerprint: string;
  readonly outcome: CachedOutcome;
}

export type KeyLookup =
  | { readonly kind: "unknown" }
  | { readonly kind: "replay"; readonly outcome: CachedOutcome }
  | { readonly kind: "mismatch" };

/** Keys → first outcome, with expiry measured on the virtual clock. */
export class IdempotencyCache {
  readonly windowSeconds: number;
  #records = new Map<string, KeyRecord>();

  constructor(windowSeconds: number) {
    this.windowSeconds = windowSeconds;
  }

  /** Look a key up at destination time `nowSeconds`; expired keys are forgotten. */
  lookup(key: string, fingerprint: string, nowSeconds: number): KeyLookup {
    const rec = this.#records.get(key);
    if (rec === undefined) return { kind: "unknown" };
    if (nowSeconds - rec.firstSeenSeconds >= this.windowSeconds) {
      this.#records.delete(key);
      return { kind: "unknown" };
    }
    return rec.fingerprint === fingerprint
      ? { kind: "replay", outcome: rec.outcome }
      : { kind: "mismatch" };
  }

  /** Record the first outcome of a key. */
  remember(key: string, fingerprint: string, nowSeconds: number, outcome: CachedOutcome): void {
    this.#records.set(key, { firstSeenSeconds: nowSeconds, fingerprint, outcome });
  }

  clear(): void {
    this.#records.clear();
  }
}
