/**
 * engine/call-adapter — the two wire calls, guarded. Exactly one `adapter.dispatch` per
 * claim (I4): whatever the adapter does — returns garbage, throws, overruns its deadline —
 * becomes a well-formed transport outcome, and anything unknown is LOST (⇒ AMBIGUOUS, I5),
 * so an attempt is never left open because an adapter misbehaved. A status query that fails
 * in any way is INDETERMINATE, never ABSENT. Imports: core, adapters.
 */
import type {
  Adapter,
  DispatchOrder,
  DispatchResult,
  QueryKey,
  StatusResult,
} from "../adapters/contract.js";
import { isIrrevonError } from "../core/errors.js";
import type { FailureKind, ProbeResult, TransportOutcome } from "../core/state-tables.js";

/** Extra time past the deadline before the engine stops waiting for an adapter. */
export const OVERRUN_GRACE_MS = 1_000;

/** A normalised dispatch result (evidence always an object). */
export interface WireOutcome {
  readonly transportOutcome: TransportOutcome;
  readonly failureKind?: FailureKind;
  readonly destinationRef?: string;
  readonly responseDigest?: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

function describeError(e: unknown): Record<string, unknown> {
  if (isIrrevonError(e)) return { name: e.name, code: e.code };
  if (e instanceof Error) return { name: e.name };
  return { name: typeof e };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Races `promise` against a timer; resolves `onTimeout()` if the timer wins. */
async function withOverrunGuard<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => T,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
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

/** One guarded `adapter.dispatch`. Never throws. */
export async function callDispatch(
  adapter: Adapter,
  order: DispatchOrder,
  deadlineMs: number,
): Promise<WireOutcome> {
  try {
    const raw = await withOverrunGuard<unknown>(
      adapter.dispatch(order, deadlineMs),
      deadlineMs + OVERRUN_GRACE_MS,
      () => ({
        transportOutcome: "TIMEOUT",
        evidence: { engine: "adapter_overran_deadline", deadline_ms: deadlineMs },
      }),
    );
    return normaliseDispatchResult(raw);
  } catch (e) {
    // The request may or may not have left: an exception proves nothing about the destination.
    return {
      transportOutcome: "LOST",
      evidence: { engine: "adapter_threw", error: describeError(e) },
    };
  }
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
  if (!isRecord(raw))
    return {
      result: "INDETERMINATE",
      nFound: null,
      destinationRefs: [],
      evidence: { engine: "malformed_status_result" },
    };
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
  if (r.result === "ABSENT" && n === 0)
    return { result: "ABSENT", nFound: 0, destinationRefs: [], ...digest, evidence };
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

/** One guarded `adapter.statusQuery`. Never throws. */
export async function callStatusQuery(
  adapter: Adapter,
  key: QueryKey,
  deadlineMs: number,
): Promise<ProbeAnswer> {
  try {
    const raw = await withOverrunGuard<unknown>(
      adapter.statusQuery(key, deadlineMs),
      deadlineMs + OVERRUN_GRACE_MS,
      () => ({
        result: "INDETERMINATE",
        nFound: null,
        destinationRefs: [],
        evidence: { engine: "adapter_overran_deadline", deadline_ms: deadlineMs },
      }),
    );
    return normaliseStatusResult(raw);
  } catch (e) {
    return {
      result: "INDETERMINATE",
      nFound: null,
      destinationRefs: [],
      evidence: { engine: "adapter_threw", error: describeError(e) },
    };
  }
}
