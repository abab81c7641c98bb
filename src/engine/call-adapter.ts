/**
 * engine/call-adapter — the wire calls, guarded. Exactly one `adapter.dispatch` per
 * claim (I4): whatever the adapter does — returns garbage, throws, overruns its deadline —
 * becomes a well-formed transport outcome, and anything unknown is LOST (⇒ AMBIGUOUS, I5),
 * so an attempt is never left open because an adapter misbehaved. A status query that fails
 * in any way is INDETERMINATE, never ABSENT; so is every key of a batch status query that
 * failed as a whole (threw, overran, answered a non-array or the wrong number of results),
 * and each answer of a batch goes through the same checks as a single one
 * (`normaliseStatusResult`). Imports: core, adapters.
 */
import type {
  Adapter,
  DispatchOrder,
  DispatchResult,
  QueryKey,
  StatusResult,
} from "../adapters/contract.js";
import { noAnswer } from "../adapters/status-answers.js";
import { isIrrevonError } from "../core/errors.js";
import type { FailureKind, ProbeResult, TransportOutcome } from "../core/state-tables.js";

/**
 * How long the engine waits, after aborting a call at its deadline, for the adapter to settle.
 * A call still unsettled then is reported as TIMEOUT with `call_unsettled: true` and its result
 * is handed back as `late` when it finally comes: it is never thrown away.
 */
export const OVERRUN_GRACE_MS = 1_000;

/** A normalised dispatch result (evidence always an object). */
export interface WireOutcome {
  readonly transportOutcome: TransportOutcome;
  readonly failureKind?: FailureKind;
  readonly destinationRef?: string;
  readonly responseDigest?: string;
  readonly evidence: Readonly<Record<string, unknown>>;
  /**
   * Set only when the call outlived its deadline and the grace after the abort: resolves with
   * what the adapter finally answered (never rejects). The caller must record it (a late
   * response), because the destination may have committed.
   */
  readonly late?: Promise<WireOutcome>;
}

function describeError(e: unknown): Record<string, unknown> {
  if (isIrrevonError(e)) return { name: e.name, code: e.code };
  if (e instanceof Error) return { name: e.name };
  return { name: typeof e };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Dispatch calls of this process that outlived their deadline and have not settled yet, per
 * adapter object and operation id. The reconciler never concludes absence while one is here:
 * the destination may still be processing the request this process sent.
 */
const unsettledCalls = new WeakMap<Adapter, Map<string, number>>();

function trackUnsettled(adapter: Adapter, operationId: string, delta: 1 | -1): void {
  let byOp = unsettledCalls.get(adapter);
  if (byOp === undefined) {
    byOp = new Map();
    unsettledCalls.set(adapter, byOp);
  }
  const n = (byOp.get(operationId) ?? 0) + delta;
  if (n <= 0) byOp.delete(operationId);
  else byOp.set(operationId, n);
}

/** True while a dispatch of `operationId` through `adapter` in this process is unsettled. */
export function hasUnsettledCall(adapter: Adapter, operationId: string): boolean {
  return (unsettledCalls.get(adapter)?.get(operationId) ?? 0) > 0;
}

const sleep = <T>(ms: number, value: T): { promise: Promise<T>; cancel: () => void } => {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(value), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
};

const TIMED_OUT = Symbol("timed_out");

/**
 * Runs `start(signal)`; aborts the signal at `deadlineMs`, then waits up to `graceMs` more for
 * the call to settle. Resolves with the call's value, or TIMED_OUT plus the still-running call.
 */
async function withDeadline<T>(
  start: (signal: AbortSignal) => Promise<T>,
  deadlineMs: number,
  graceMs: number,
): Promise<{ value: T } | { value: typeof TIMED_OUT; running: Promise<T> }> {
  const controller = new AbortController();
  const running = start(controller.signal);
  const deadline = sleep(deadlineMs, TIMED_OUT);
  try {
    const first = await Promise.race([running, deadline.promise]);
    if (first !== TIMED_OUT) return { value: first };
  } finally {
    deadline.cancel();
  }
  controller.abort(new DOMException("deadline exceeded", "TimeoutError"));
  const grace = sleep(graceMs, TIMED_OUT);
  try {
    const settled = await Promise.race([running, grace.promise]);
    return settled === TIMED_OUT ? { value: TIMED_OUT, running } : { value: settled };
  } finally {
    grace.cancel();
  }
}

/** Checks an adapter's answer; anything malformed is LOST with the reason. */
export function normaliseDispatchResult(raw: unknown): WireOutcome {
  if (!isRecord(raw))
    return { transportOutcome: "LOST", evidence: { engine: "malformed_adapter_result" } };
  const r = raw as Partial<DispatchResult> & Record<string, unknown>;
  const evidence = isRecord(r.evidence) ? r.evidence : {};
  const refs = {
    ...(typeof r.destinationRef === "string" && r.destinationRef.length > 0
      ? { destinationRef: r.destinationRef }
      : {}),
    ...(typeof r.responseDigest === "string" ? { responseDigest: r.responseDigest } : {}),
  };
  switch (r.transportOutcome) {
    case "OK":
    case "TIMEOUT":
    case "LOST":
      return { transportOutcome: r.transportOutcome, ...refs, evidence };
    case "FAILED":
      // FAILED is a claim that nothing happened; without a cited kind it is not one (I5).
      if (r.failureKind === "TERMINAL" || r.failureKind === "RETRYABLE") {
        return { transportOutcome: "FAILED", failureKind: r.failureKind, ...refs, evidence };
      }
      return {
        transportOutcome: "LOST",
        ...refs,
        evidence: { ...evidence, engine: "failed_without_failure_kind" },
      };
    case undefined:
    default:
      return {
        transportOutcome: "LOST",
        ...refs,
        evidence: { ...evidence, engine: "unknown_transport_outcome" },
      };
  }
}

/** Options of one guarded dispatch (tests shorten the grace). */
export interface CallOptions {
  readonly settleGraceMs?: number;
}

async function settleDispatch(promise: Promise<unknown>): Promise<WireOutcome> {
  try {
    return normaliseDispatchResult(await promise);
  } catch (e) {
    // The request may or may not have left: an exception proves nothing about the destination.
    return { transportOutcome: "LOST", evidence: { engine: "adapter_threw", error: describeError(e) } };
  }
}

/**
 * One guarded `adapter.dispatch`. Never throws. The adapter gets an AbortSignal that fires at
 * the deadline; the engine then waits `settleGraceMs` for the call to end. A call that is still
 * running is TIMEOUT with `call_unsettled: true`, counted as unsettled for this process
 * (see `hasUnsettledCall`) and its eventual answer is returned in `late`.
 */
export async function callDispatch(
  adapter: Adapter,
  order: DispatchOrder,
  deadlineMs: number,
  options: CallOptions = {},
): Promise<WireOutcome> {
  const graceMs = options.settleGraceMs ?? OVERRUN_GRACE_MS;
  const raced = await withDeadline(
    (signal) => settleDispatch(Promise.resolve().then(() => adapter.dispatch(order, deadlineMs, signal))),
    deadlineMs,
    graceMs,
  );
  if (raced.value !== TIMED_OUT) return raced.value;
  trackUnsettled(adapter, order.operationId, 1);
  const late = raced.running.finally(() => trackUnsettled(adapter, order.operationId, -1));
  return {
    transportOutcome: "TIMEOUT",
    evidence: {
      engine: "adapter_overran_deadline",
      deadline_ms: deadlineMs,
      call_unsettled: true,
    },
    late,
  };
}

/** A normalised status answer. */
export interface ProbeAnswer {
  readonly result: ProbeResult;
  readonly nFound: number | null;
  readonly destinationRefs: readonly string[];
  readonly responseDigest?: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** Checks an adapter's status answer; anything inconsistent is INDETERMINATE. */
export function normaliseStatusResult(raw: unknown): ProbeAnswer {
  if (!isRecord(raw)) return noAnswer({ engine: "malformed_status_result" });
  const r = raw as Partial<StatusResult>;
  const evidence = isRecord(r.evidence) ? r.evidence : {};
  const refs = Array.isArray(r.destinationRefs)
    ? r.destinationRefs.filter((x): x is string => typeof x === "string")
    : [];
  const digest = typeof r.responseDigest === "string" ? { responseDigest: r.responseDigest } : {};
  const n = r.nFound;
  if (r.result === "PRESENT" && typeof n === "number" && Number.isSafeInteger(n) && n >= 1) {
    return { result: "PRESENT", nFound: n, destinationRefs: refs, ...digest, evidence };
  }
  if (r.result === "ABSENT" && n === 0) {
    // "Nothing there" that names something there contradicts itself: a contract violation.
    if (refs.length > 0 || (Array.isArray(r.destinationRefs) && r.destinationRefs.length > 0)) {
      return {
        result: "INDETERMINATE",
        nFound: null,
        destinationRefs: refs,
        ...digest,
        evidence: { ...evidence, engine: "adapter_contract_violation", violation: "absent_with_refs" },
      };
    }
    return { result: "ABSENT", nFound: 0, destinationRefs: [], ...digest, evidence };
  }
  if (r.result === "INDETERMINATE")
    return { result: "INDETERMINATE", nFound: null, destinationRefs: refs, ...digest, evidence };
  return {
    result: "INDETERMINATE",
    nFound: null,
    destinationRefs: refs,
    ...digest,
    evidence: { ...evidence, engine: "inconsistent_status_result" },
  };
}

/** One guarded `adapter.statusQuery`, aborted at its deadline. Never throws. */
export async function callStatusQuery(
  adapter: Adapter,
  key: QueryKey,
  deadlineMs: number,
): Promise<ProbeAnswer> {
  const failed = (evidence: Record<string, unknown>): ProbeAnswer => noAnswer(evidence);
  const raced = await withDeadline(
    async (signal) => {
      try {
        return normaliseStatusResult(await adapter.statusQuery(key, deadlineMs, signal));
      } catch (e) {
        return failed({ engine: "adapter_threw", error: describeError(e) });
      }
    },
    deadlineMs,
    OVERRUN_GRACE_MS,
  );
  // A read has no effect at the destination: an unsettled one is simply not an answer.
  return raced.value === TIMED_OUT
    ? failed({ engine: "adapter_overran_deadline", deadline_ms: deadlineMs })
    : raced.value;
}

/**
 * One guarded `adapter.statusQueryBatch` for `keys`, aborted at its deadline. Never throws;
 * answers one normalised result per key, in key order. Each answer is checked exactly as a
 * single query's (`normaliseStatusResult`); a batch that fails as a whole is INDETERMINATE for
 * every key, naming the violation (`engine: "batch_contract_violation"`, `violation`), or
 * `adapter_overran_deadline` as a single query would.
 */
export async function callStatusQueryBatch(
  adapter: Adapter,
  keys: readonly QueryKey[],
  deadlineMs: number,
): Promise<ProbeAnswer[]> {
  const all = (evidence: Record<string, unknown>): ProbeAnswer[] =>
    keys.map(() => noAnswer(evidence));
  const violation = (what: string, extra: Record<string, unknown> = {}): ProbeAnswer[] =>
    all({ engine: "batch_contract_violation", violation: what, ...extra });
  const batch = adapter.statusQueryBatch;
  if (typeof batch !== "function") return violation("no_batch_method");
  const raced = await withDeadline(
    async (signal) => {
      let raw: unknown;
      try {
        raw = await batch.call(adapter, keys, deadlineMs, signal);
      } catch (e) {
        return violation("threw", { error: describeError(e) });
      }
      if (!Array.isArray(raw)) return violation("not_an_array");
      if (raw.length !== keys.length)
        return violation("wrong_length", { expected: keys.length, got: raw.length });
      return raw.map((r: unknown) => normaliseStatusResult(r));
    },
    deadlineMs,
    OVERRUN_GRACE_MS,
  );
  return raced.value === TIMED_OUT
    ? all({ engine: "adapter_overran_deadline", deadline_ms: deadlineMs })
    : raced.value;
}
