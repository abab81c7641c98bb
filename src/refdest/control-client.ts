/**
 * refdest/control-client — a small client for the refdest control API (/control/*), for tests,
 * the benchmark harness and the demo; never for adapters or benchmark arms (a test scans their
 * source for the control prefix). Every call sends the instance's bearer token. A refusal
 * becomes an IrrevonError: 400 ⇒ `config_invalid` (details name the field), 401 ⇒
 * `privilege_denied`, a network failure ⇒ `destination_unavailable`, anything else ⇒ `internal`.
 * Imports: core.
 */
import { IrrevonError } from "../core/errors.js";
import type { FaultEntry } from "./fault-schedule.js";
import type { OobInput } from "./refdest-options.js";
import type { EffectView, RequestLogEntry, TruthDump } from "./wire-types.js";

/** A fault entry as written by a caller (`once` defaults to true, `param` as the fault needs). */
export type FaultEntryInput = FaultEntry;

export class RefdestControlClient {
  readonly #origin: string;
  readonly #token: string;

  constructor(baseUrl: string, token: string) {
    this.#origin = new URL(baseUrl).origin;
    this.#token = token;
  }

  /** Append fault entries (or replace the schedule); returns how many are pending. */
  async schedule(
    entries: readonly FaultEntryInput[],
    options: { readonly replace?: boolean } = {},
  ): Promise<number> {
    const body = (await this.#json("POST", "/control/schedule", {
      entries,
      replace: options.replace ?? false,
    })) as { pending: number };
    return body.pending;
  }

  async scheduleSnapshot(): Promise<
    ReadonlyArray<{ index: number; entry: FaultEntryInput; consumed: boolean }>
  > {
    const body = (await this.#json("GET", "/control/schedule")) as {
      entries: Array<{ index: number; entry: FaultEntryInput; consumed: boolean }>;
    };
    return body.entries;
  }

  async reset(options: { readonly seed?: number } = {}): Promise<void> {
    await this.#json("POST", "/control/reset", options);
  }

  /** Create an effect out of band (another client of the destination); honors client_ref. */
  async oob(input: OobInput): Promise<EffectView[]> {
    const body = (await this.#json("POST", "/control/oob", input)) as { effects: EffectView[] };
    return body.effects;
  }

  /** Jump destination time forward; returns the new destination time. */
  async advance(seconds: number): Promise<string> {
    const body = (await this.#json("POST", "/control/advance", { seconds })) as { now: string };
    return body.now;
  }

  async truth(): Promise<TruthDump> {
    return JSON.parse(await this.truthJson()) as TruthDump;
  }

  /** The truth dump exactly as served: RFC 8785 bytes, comparable across runs. */
  truthJson(): Promise<string> {
    return this.#text("GET", "/control/truth");
  }

  async log(): Promise<RequestLogEntry[]> {
    const body = (await this.#json("GET", "/control/log")) as { entries: RequestLogEntry[] };
    return body.entries;
  }

  async state(): Promise<Readonly<Record<string, unknown>>> {
    return (await this.#json("GET", "/control/state")) as Record<string, unknown>;
  }

  async #json(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    return JSON.parse(await this.#text(method, path, body)) as unknown;
  }

  async #text(method: "GET" | "POST", path: string, body?: unknown): Promise<string> {
    let res: Response;
    try {
      res = await fetch(this.#origin + path, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (cause) {
      throw new IrrevonError(
        "destination_unavailable",
        `refdest control ${method} ${path} failed`,
        { retryable: true, cause },
      );
    }
    const text = await res.text();
    if (res.ok) return text;
    let error: { code?: unknown; field?: unknown; message?: unknown } = {};
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
    } catch {
      // keep the empty envelope: the status alone decides the code below
    }
    const details = { status: res.status, code: error.code ?? null, field: error.field ?? null };
    const message = `refdest control ${method} ${path}: ${res.status} ${String(error.message ?? "")}`;
    if (res.status === 400) throw new IrrevonError("config_invalid", message, { details });
    if (res.status === 401) throw new IrrevonError("privilege_denied", message, { details });
    throw new IrrevonError("internal", message, { details });
  }
}
