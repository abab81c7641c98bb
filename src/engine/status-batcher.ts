/**
 * engine/status-batcher — the destination calls of one recovery run, per adapter:
 *   - at most `maxInFlight` wire calls to one destination at a time (status queries, batches
 *     and the run's C1 replay probes share the bound; {@link WireSlots});
 *   - when the adapter declares `queryable.batch_max` (and so has `statusQueryBatch`, checked
 *     at open by the adapter registry), status keys are coalesced ({@link StatusBatcher}): keys
 *     asked in the same turn of the event loop leave together (flushed on `setImmediate`), and
 *     `batch_max` waiting keys leave at once. A batch takes its keys only when it holds a wire
 *     slot, and a partial batch (fewer than `batch_max`) waits while a batch the adapter sent
 *     in an earlier turn is in flight, so keys that trickle in (lanes finishing their ledger
 *     writes one by one, e.g. the re-reads of absent effects) join the next call instead of
 *     costing one call each — Nagle's rule: the extra wait is at most one call's time. A batch
 *     never carries more than `batch_max` keys.
 * Every answer goes through the guarded call of engine/call-adapter (`callStatusQueryBatch`:
 * the per-answer checks of a single query, and INDETERMINATE for every key of a batch that
 * failed as a whole), and the reconciler records each key's answer as its own probe, exactly
 * as a single query's, with `batch_size` in its evidence. Nothing here decides anything.
 * Imports: adapters, engine.
 */
import type { Adapter, QueryKey } from "../adapters/contract.js";
import { noAnswer } from "../adapters/status-answers.js";
import type { AdapterEntry, AdapterRegistry } from "./adapter-registry.js";
import { callStatusQuery, callStatusQueryBatch, type ProbeAnswer } from "./call-adapter.js";

/** A status answer, with the size of the batch it came in (absent for a single query). */
export interface ChannelAnswer extends ProbeAnswer {
  readonly batchSize?: number;
}

/** How a reconcile step reaches a destination when a recovery run shares the wire. */
export interface ProbeChannel {
  /** One status query by `key` (batched when the adapter offers it). */
  status(entry: AdapterEntry, key: QueryKey): Promise<ChannelAnswer>;
  /** Runs a C1 replay probe (one dispatch) under the destination's in-flight bound. */
  replay<T>(entry: AdapterEntry, send: () => Promise<T>): Promise<T>;
}

/** A counting semaphore: at most `max` holders at once; waiters are served in arrival order. */
export class WireSlots {
  #free: number;
  readonly #waiters: Array<() => void> = [];

  constructor(max: number) {
    this.#free = Math.max(1, Math.floor(max));
  }

  /** Resolves once a slot is held; the caller must `release()` it. */
  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next === undefined) this.#free += 1;
    else next();
  }

  /** Runs `fn` holding a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

/** The guarded batch call (engine/call-adapter); tests substitute their own. */
export type BatchCall = (
  adapter: Adapter,
  keys: readonly QueryKey[],
  deadlineMs: number,
) => Promise<readonly ProbeAnswer[]>;

export interface StatusBatcherOptions {
  /** Most keys per call: the declaration's `queryable.batch_max`. */
  readonly batchMax: number;
  /** Deadline of each batch call (the engine's `probeDeadlineMs`). */
  readonly deadlineMs: number;
  /** The destination's wire slots (shared with its other calls in the run). */
  readonly slots: WireSlots;
  readonly call?: BatchCall;
}

interface Waiting {
  readonly key: QueryKey;
  readonly resolve: (answer: ChannelAnswer) => void;
}

/** Coalesces one adapter's status keys into `statusQueryBatch` calls (see the file header). */
export class StatusBatcher {
  readonly #adapter: Adapter;
  readonly #batchMax: number;
  readonly #deadlineMs: number;
  readonly #slots: WireSlots;
  readonly #call: BatchCall;
  #queue: Waiting[] = [];
  /** A setImmediate flush is pending. */
  #scheduled = false;
  /** A flush waits for a wire slot; it takes its keys when it gets one. */
  #waiting = false;
  /** The turn (count of flushes on setImmediate) each batch call in flight was sent in. */
  #inFlight: number[] = [];
  #turn = 0;

  constructor(adapter: Adapter, options: StatusBatcherOptions) {
    this.#adapter = adapter;
    this.#batchMax = Math.max(1, Math.floor(options.batchMax));
    this.#deadlineMs = options.deadlineMs;
    this.#slots = options.slots;
    this.#call = options.call ?? callStatusQueryBatch;
  }

  /** Queues `key`; resolves with its answer (never rejects). */
  query(key: QueryKey): Promise<ChannelAnswer> {
    return new Promise((resolve) => {
      this.#queue.push({ key, resolve });
      if (this.#queue.length >= this.#batchMax) {
        this.#flush();
      } else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => {
          this.#scheduled = false;
          this.#flush();
          this.#turn += 1;
        });
      }
    });
  }

  #flush(): void {
    if (this.#waiting || this.#queue.length === 0) return;
    // A partial batch waits while a batch this adapter sent in an earlier turn is in flight:
    // keys that trickle in meanwhile (lanes finishing their ledger writes one by one) join it
    // instead of leaving one call each. The rest of a turn's keys after its full batches goes
    // at once, and a full batch goes as soon as a wire slot is free.
    const turn = this.#turn;
    if (this.#queue.length < this.#batchMax && this.#inFlight.some((t) => t < turn)) return;
    this.#waiting = true;
    void this.#slots.acquire().then(() => {
      this.#waiting = false;
      const batch = this.#queue.splice(0, this.#batchMax);
      if (batch.length === 0) {
        this.#slots.release();
        return;
      }
      // The turn the flush was decided in (the slot may come a microtask or a call later).
      const sentIn = turn;
      this.#inFlight.push(sentIn);
      // More than one batch's worth waiting: the next batch asks for a slot of its own.
      if (this.#queue.length > 0) this.#flush();
      void this.#send(batch).finally(() => {
        this.#inFlight.splice(this.#inFlight.indexOf(sentIn), 1);
        this.#slots.release();
        this.#flush();
      });
    });
  }

  async #send(batch: readonly Waiting[]): Promise<void> {
    const keys = batch.map((w) => w.key);
    let answers: readonly ProbeAnswer[];
    try {
      answers = await this.#call(this.#adapter, keys, this.#deadlineMs);
    } catch (e) {
      // The guarded call never throws; a substitute that does is still no answer.
      const error = e instanceof Error ? e.name : typeof e;
      answers = keys.map(() =>
        noAnswer({
          engine: "batch_contract_violation",
          violation: "threw",
          error: { name: error },
        }),
      );
    }
    batch.forEach((w, i) => {
      const answer: ProbeAnswer =
        answers[i] ?? noAnswer({ engine: "batch_contract_violation", violation: "wrong_length" });
      w.resolve({ ...answer, batchSize: batch.length });
    });
  }
}

/** Options of {@link recoveryProbeChannel}. */
export interface ProbeChannelOptions {
  /** Wire calls in flight to one destination at most (`recoveryConcurrency`). */
  readonly maxInFlight: number;
  /** Deadline of each status call (`probeDeadlineMs`). */
  readonly deadlineMs: number;
}

/** The largest `batch_max` among the configured adapters; null when none batches. */
export function largestBatchMax(adapters: AdapterRegistry): number | null {
  let best: number | null = null;
  for (const entry of adapters.list())
    if (entry.batchMax !== null) best = Math.max(best ?? 0, entry.batchMax);
  return best;
}

/**
 * The wire of one recovery run: per adapter, its wire slots and (when it declares
 * `batch_max`) its batcher, made on first use. Adapters without batch lookups are asked by a
 * single guarded status query under the same bound.
 */
export function recoveryProbeChannel(options: ProbeChannelOptions): ProbeChannel {
  const slots = new Map<string, WireSlots>();
  const batchers = new Map<string, StatusBatcher>();
  const slotsOf = (entry: AdapterEntry): WireSlots => {
    const id = entry.adapter.adapterId;
    let s = slots.get(id);
    if (s === undefined) {
      s = new WireSlots(options.maxInFlight);
      slots.set(id, s);
    }
    return s;
  };
  return {
    status(entry, key) {
      if (entry.batchMax === null) {
        return slotsOf(entry).run(() => callStatusQuery(entry.adapter, key, options.deadlineMs));
      }
      const id = entry.adapter.adapterId;
      let batcher = batchers.get(id);
      if (batcher === undefined) {
        batcher = new StatusBatcher(entry.adapter, {
          batchMax: entry.batchMax,
          deadlineMs: options.deadlineMs,
          slots: slotsOf(entry),
        });
        batchers.set(id, batcher);
      }
      return batcher.query(key);
    },
    replay: (entry, send) => slotsOf(entry).run(send),
  };
}
