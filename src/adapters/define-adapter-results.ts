/**
 * adapters/define-adapter-results — the checks `defineAdapter` puts between an author's
 * functions and the engine: a malformed create result becomes LOST (never FAILED), a
 * malformed find answer becomes INDETERMINATE (never ABSENT), naming the contract violation in
 * the evidence. Imports: core, adapters.
 */
import { isIrrevonError } from "../core/errors.js";
import type { DispatchResult, StatusResult } from "./contract.js";
import type { FindResult } from "./define-adapter-types.js";
import { isRecord } from "./http-kit.js";
import { noAnswer } from "./status-answers.js";

const OUTCOMES = new Set(["OK", "FAILED", "TIMEOUT", "LOST"]);
const FAILURE_KINDS = new Set(["TERMINAL", "RETRYABLE"]);

/** A short label for a thrown value (an error code or class name; never its message). */
export function errorLabel(e: unknown): string {
  if (isIrrevonError(e)) return e.code;
  return e instanceof Error ? e.name : typeof e;
}

/** A create result the engine can trust, or LOST naming the contract violation. */
export function checkedDispatch(r: unknown): DispatchResult {
  const lost = (violation: string): DispatchResult => ({
    transportOutcome: "LOST",
    evidence: { contract_violation: violation },
  });
  if (!isRecord(r) || !OUTCOMES.has(r["transportOutcome"] as string))
    return lost("transportOutcome is not OK, FAILED, TIMEOUT or LOST");
  const res = r as unknown as DispatchResult;
  if (res.transportOutcome === "FAILED" && !FAILURE_KINDS.has(res.failureKind as string))
    return lost("FAILED without failureKind TERMINAL or RETRYABLE");
  if (res.transportOutcome !== "FAILED" && res.failureKind !== undefined)
    return lost("failureKind given on a result that is not FAILED");
  if (
    res.destinationRef !== undefined &&
    (typeof res.destinationRef !== "string" || res.destinationRef === "")
  )
    return lost("destinationRef is not a non-empty string");
  return { ...res, evidence: isRecord(res.evidence) ? res.evidence : {} };
}

/** A find answer as a StatusResult, INDETERMINATE whenever it is not well formed. */
export function checkedStatus(r: unknown, askedRef: string | null): StatusResult {
  const indeterminate = (violation: string): StatusResult =>
    noAnswer({ contract_violation: violation });
  if (!isRecord(r)) return indeterminate("find returned no object");
  const f = r as unknown as FindResult;
  const refs = f.destinationRefs ?? (f.result === "PRESENT" && askedRef !== null ? [askedRef] : []);
  if (!Array.isArray(refs) || !refs.every((x) => typeof x === "string" && x !== ""))
    return indeterminate("destinationRefs is not a list of non-empty strings");
  const extra = {
    evidence: isRecord(f.evidence) ? f.evidence : {},
    ...(typeof f.responseDigest === "string" ? { responseDigest: f.responseDigest } : {}),
  };
  switch (f.result) {
    case "PRESENT":
      return refs.length === 0
        ? indeterminate("PRESENT without destination refs")
        : { result: "PRESENT", nFound: refs.length, destinationRefs: refs, ...extra };
    case "ABSENT":
      return refs.length > 0
        ? indeterminate("ABSENT with destination refs")
        : { result: "ABSENT", nFound: 0, destinationRefs: [], ...extra };
    case "INDETERMINATE":
      return { result: "INDETERMINATE", nFound: null, destinationRefs: [], ...extra };
    default:
      return indeterminate("result is not PRESENT, ABSENT or INDETERMINATE");
  }
}
