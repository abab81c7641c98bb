/**
 * engine/run-result — the request and the discriminated result of `irrevon.run()` (issue 13),
 * and the one-or-two-sentence messages meant for a model. Messages never contain stable-id
 * values (nor the destination ref or parameter values): only codes, check names and the
 * names of changed top-level parameter fields. Imports: core.
 */
import type { NoAdvisoryKeys } from "../core/contract-input.js";
import type { EffectClass, GateCheck } from "../core/state-tables.js";

/** One call of `run`: register, gate, dispatch and, on a lost response, bounded reconciliation. */
export interface RunRequest extends NoAdvisoryKeys {
  readonly effectType: string;
  readonly scope: string;
  /** The identity: only these (business facts, never model-written text). */
  readonly stableIds: Readonly<Record<string, string>>;
  /** Model-written payload (tainted), default `{}`. Validated by the adapter before anything is written. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly adapterId: string;
  /** Default `"IRREVERSIBLE"`. */
  readonly effectClass?: EffectClass;
  readonly authorityRef: string;
  /** RFC 3339; default: now. */
  readonly stampedAt?: string;
  readonly branchRef?: string;
  /** Bounded reconciliation after a lost response: total wait budget (default 2000 ms, max 60000). */
  readonly reconcileWithinMs?: number;
  /** Aborts the reconciliation wait (never a wire call in flight); the result is then `ambiguous`. */
  readonly signal?: AbortSignal;
}

/** Default and ceiling of {@link RunRequest.reconcileWithinMs}. */
export const RUN_RECONCILE_DEFAULT_MS = 2_000;
export const RUN_RECONCILE_MAX_MS = 60_000;

/** A replay whose parameters differ from the recorded ones. */
export interface ParameterVariant {
  /** `sha256:<hex>` parameters digest of THIS call. */
  readonly digest: string;
  /** Top-level parameter keys added, removed or changed vs the recorded ones, sorted. */
  readonly changedFields: readonly string[];
}

interface RunResultBase {
  readonly effectId: string;
  readonly operationId: string;
  /** true when this call collapsed onto an earlier registration of the same business intent. */
  readonly replayed: boolean;
  /** Non-null only when replayed with parameters different from the recorded ones. */
  readonly variant: ParameterVariant | null;
  /** One or two sentences meant for the model (never contains stable-id values). */
  readonly modelMessage: string;
}

/** The destination holds the effect. */
export interface RunCommitted extends RunResultBase {
  readonly status: "committed";
  readonly destinationRef: string | null;
  /** The destination's response as recorded in the ledger (evidence), null if none recorded. */
  readonly response: Readonly<Record<string, unknown>> | null;
  /** How we know: receipt (direct 2xx), reconciled (status query found it), replay (C1 idempotent replay). */
  readonly evidence: "receipt" | "reconciled" | "replay";
}

/** The commit gate refused (or another effect holds the scope slot). Nothing was sent. */
export interface RunDenied extends RunResultBase {
  readonly status: "denied";
  readonly check: GateCheck | "scope_busy";
  /** Cause code, e.g. `deny_listed`, `expired`, `duplicate_intent`, `branch_cancelled`. */
  readonly reason: string;
}

/** The destination refused, or reconciliation proved the effect absent. */
export interface RunFailed extends RunResultBase {
  readonly status: "failed";
  /** True only when the destination cited a retryable refusal (e.g. 429); a later `run` retries. */
  readonly retryable: boolean;
  /** Failure kind or cause code: `TERMINAL`, `RETRYABLE`, `reconciled_absent`, `replay_failed`. */
  readonly reason: string;
}

/** The outcome is unknown; the ledger keeps verifying it (or a human decides). */
export interface RunAmbiguous extends RunResultBase {
  readonly status: "ambiguous";
  /** What happens next and when (e.g. "reconcile" at notBefore, or "human" for C3). */
  readonly next: { readonly action: "reconcile" | "human"; readonly notBefore: string | null };
}

/** What `run` returns: every expected outcome is a value. */
export type RunResult = RunCommitted | RunDenied | RunFailed | RunAmbiguous;

function variantSentence(variant: ParameterVariant | null): string {
  if (variant === null) return "";
  const fields = variant.changedFields.length === 0 ? "none" : variant.changedFields.join(", ");
  return ` Your parameters differ from the recorded ones (changed: ${fields}); they were not applied.`;
}

/** The message for a committed result. */
export function committedMessage(replayed: boolean, variant: ParameterVariant | null): string {
  const head = replayed
    ? "This action was already completed earlier and was not repeated; do not retry."
    : "Done: the action was completed and the destination confirmed it.";
  return head + variantSentence(variant);
}

/** The message for a denied result. */
export function deniedMessage(check: string, reason: string): string {
  if (check === "scope_busy")
    return "Another action in the same scope is still in progress; nothing was sent. Try again later.";
  return `The action was refused by the commit gate (check ${check}, reason ${reason}); nothing was sent. Do not retry unless the situation changes.`;
}

/** The message for a failed result. */
export function failedMessage(
  retryable: boolean,
  reason: string,
  variant: ParameterVariant | null,
): string {
  const head = retryable
    ? `The destination refused the action for now (${reason}); it was not carried out. You may try again later.`
    : reason === "reconciled_absent"
      ? "The action did not reach the destination (verified); it was not carried out. Do not retry; a person or policy decides whether to send it again."
      : `The action failed and was not carried out (${reason}). Do not retry with the same input.`;
  return head + variantSentence(variant);
}

/** The message for an ambiguous result; always contains "do not retry; the outcome is being verified". */
export function ambiguousMessage(action: "reconcile" | "human"): string {
  return action === "human"
    ? "The outcome is unknown: do not retry; the outcome is being verified by a person."
    : "The outcome is unknown: do not retry; the outcome is being verified.";
}
