/**
 * bench/baselines/b5-durable-journal — baseline B5: a durable-execution runtime in the style
 * of Temporal/DBOS/Restate, reduced to what matters for a lost response. Each workflow step
 * is journaled to a file before and after its activity runs; a restart replays the journal
 * and re-runs every activity that started but never completed, with the SAME stable
 * workflow operation id, sent as the destination's idempotency key and client reference.
 *
 * That is exactly-once for the runtime's own state and at-least-once for the destination:
 * against a C2 destination, which ignores idempotency keys, the retry after a lost response
 * creates a second effect. The demo and the benchmark use it as the contrast arm.
 * Each call is one node:http exchange (adapters/http-kit): no connection pool, so nothing of
 * the runtime outlives its calls. A failed call is journaled with the transport's reason
 * (`timeout`, `ECONNRESET`, `ERR_TRUNCATED`, `http_5xx`, …). Imports: node:fs, adapters/http-kit.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { nodeHttpTransport, type HttpExchange } from "../../adapters/http-kit.js";

/** One journal line. `started` is written before the call, `completed` after a response. */
export type JournalEntry =
  | { readonly kind: "started"; readonly operationId: string; readonly effectType: string; readonly payload: unknown }
  | { readonly kind: "completed"; readonly operationId: string; readonly status: number; readonly body: unknown }
  | { readonly kind: "failed_transport"; readonly operationId: string; readonly reason: string };

/** The outcome of one activity call as the runtime sees it. */
export type ActivityOutcome =
  | { readonly kind: "completed"; readonly status: number; readonly body: unknown }
  | { readonly kind: "response_lost"; readonly reason: string };

export interface B5Options {
  /** Base URL of the destination's public API (the reference destination). */
  readonly destinationUrl: string;
  /** Path of the journal file; it survives a "restart" of the runtime. */
  readonly journalPath: string;
  readonly deadlineMs?: number;
  /**
   * `notify` for a notify-only (C3) destination: POST /notify with no reference or key, which
   * that tier cannot take. Default `effects` (POST /effects).
   */
  readonly endpoint?: "effects" | "notify";
}

/** A durable-journal runtime instance. Construct a new one over the same journal to "restart". */
export class B5DurableJournalRuntime {
  readonly #options: B5Options;

  constructor(options: B5Options) {
    this.#options = options;
  }

  /** Stable workflow operation id: derived from the workflow id and the step index. */
  static operationId(workflowId: string, step: number): string {
    return `wf-${workflowId}-activity-${step}`;
  }

  /** Reads the journal; a missing journal is an empty history. */
  journal(): JournalEntry[] {
    if (!existsSync(this.#options.journalPath)) return [];
    return readFileSync(this.#options.journalPath, "utf8")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as JournalEntry);
  }

  /**
   * Runs one activity: journal `started`, one call, journal the result. The journal has
   * set-default semantics, like a durable-execution runtime's recorded activity input: when
   * the operation id was started before, the FIRST journaled payload is sent again and
   * `payload` is ignored (so a reworded retry under the same workflow re-sends the original).
   */
  async runActivity(operationId: string, effectType: string, payload: unknown): Promise<ActivityOutcome> {
    const started = this.journal().find((e) => e.kind === "started" && e.operationId === operationId);
    if (started?.kind === "started") return this.#call(operationId, started.effectType, started.payload);
    this.#append({ kind: "started", operationId, effectType, payload });
    return this.#call(operationId, effectType, payload);
  }

  /**
   * Recovery after a restart: every activity with a `started` entry and no `completed`
   * entry is retried with the same operation id. Returns the retried operation ids.
   */
  async recover(): Promise<Array<{ operationId: string; outcome: ActivityOutcome }>> {
    const entries = this.journal();
    const completed = new Set(entries.filter((e) => e.kind === "completed").map((e) => e.operationId));
    const retried: Array<{ operationId: string; outcome: ActivityOutcome }> = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      if (entry.kind !== "started" || completed.has(entry.operationId) || seen.has(entry.operationId)) continue;
      seen.add(entry.operationId);
      retried.push({ operationId: entry.operationId, outcome: await this.#call(entry.operationId, entry.effectType, entry.payload) });
    }
    return retried;
  }

  async #call(operationId: string, effectType: string, payload: unknown): Promise<ActivityOutcome> {
    const notify = this.#options.endpoint === "notify";
    let exchange: HttpExchange;
    try {
      exchange = await nodeHttpTransport({
        method: "POST",
        url: new URL(notify ? "/notify" : "/effects", this.#options.destinationUrl).toString(),
        headers: { "content-type": "application/json" },
        // The key is sent; a C2 destination does not honour it (a C3 one cannot take it).
        body: JSON.stringify(
          notify
            ? { effect_type: effectType, payload }
            : { effect_type: effectType, payload, client_ref: operationId, idempotency_key: operationId },
        ),
        deadlineMs: this.#options.deadlineMs ?? 5_000,
        // A runtime like this one reads whatever body comes back: no size cap.
        maxResponseBytes: Number.MAX_SAFE_INTEGER,
      });
    } catch (error) {
      // A request that could not even be built (a bad URL, an unserialisable payload).
      return this.#lost(operationId, error instanceof Error ? error.name : "unknown");
    }
    if (exchange.kind !== "response")
      return this.#lost(operationId, exchange.kind === "transport_error" ? exchange.errorCode : exchange.kind);
    if (exchange.status >= 500) return this.#lost(operationId, `http_${exchange.status}`);
    let body: unknown = null;
    try {
      body = JSON.parse(exchange.bodyText ?? "");
    } catch {
      body = { unparseable_body: true };
    }
    this.#append({ kind: "completed", operationId, status: exchange.status, body });
    return { kind: "completed", status: exchange.status, body };
  }

  /** Journals a call whose answer never arrived (as the runtime sees it) and reports it lost. */
  #lost(operationId: string, reason: string): ActivityOutcome {
    this.#append({ kind: "failed_transport", operationId, reason });
    return { kind: "response_lost", reason };
  }

  #append(entry: JournalEntry): void {
    appendFileSync(this.#options.journalPath, `${JSON.stringify(entry)}\n`);
  }
}
