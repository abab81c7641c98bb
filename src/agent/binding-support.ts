/**
 * agent/binding-support — what the OpenAI Agents and LangChain bindings share, with no
 * framework import: the text a model reads for a result or an error, and the lookup behind
 * the approval hooks ("is the outcome of this business intent unknown right now?").
 * Imports: core, the engine's types and the framework-neutral guarded tool.
 */
import type { ZodObject, ZodRawShape, infer as ZodInfer } from "zod";
import { isIrrevonError } from "../core/errors.js";
import { deriveIdentity } from "../core/identity.js";
import type { Irrevon } from "../engine/irrevon.js";
import type { RunResult } from "../engine/run-result.js";
import { toolResultForModel, type GuardedToolDefinition } from "./guarded-tool.js";

/** The JSON text a model reads for a guarded tool's result. */
export function resultTextForModel(result: RunResult): string {
  return JSON.stringify(toolResultForModel(result));
}

/** What a model reads when the guarded tool threw instead of returning a result. */
export interface ToolErrorForModel {
  readonly status: "error";
  /** The IrrevonError code, or "internal" for anything else. */
  readonly code: string;
  readonly retryable: boolean;
  readonly message: string;
}

/** Codes thrown before anything was recorded or sent, because the arguments were refused. */
const INPUT_REFUSED: ReadonlySet<string> = new Set([
  "contract_invalid",
  "payload_invalid",
  "taint_violation",
  "tool_definition_invalid",
  "advisory_rejected",
]);

/**
 * Turns an exception from a guarded tool's execute into the object a model reads. Refused
 * arguments say so (nothing was recorded or sent); anything else says the outcome is not
 * confirmed and tells the model not to invent a new call — never the frameworks' default
 * "please try again".
 */
export function errorForModel(error: unknown): ToolErrorForModel {
  if (isIrrevonError(error) && INPUT_REFUSED.has(error.code)) {
    return {
      status: "error",
      code: error.code,
      retryable: false,
      message: `The arguments were refused; nothing was recorded or sent. ${error.message}`,
    };
  }
  const code = isIrrevonError(error) ? error.code : "internal";
  const retryable = isIrrevonError(error) && error.retryable;
  const next = retryable
    ? "You may repeat the same call later: a repeat with the same identifiers is collapsed onto this one and never sent twice."
    : "Do not retry; tell the user the outcome is not confirmed.";
  return {
    status: "error",
    code,
    retryable,
    message: `The tool could not complete this call (${code}); its outcome is not confirmed. ${next}`,
  };
}

/** The JSON text of {@link errorForModel}. */
export function errorTextForModel(error: unknown): string {
  return JSON.stringify(errorForModel(error));
}

/** When a guarded tool's call needs a human's approval before it runs. */
export const ApprovalPolicy = {
  /** Only when the effect of these stable ids is AMBIGUOUS right now (the default). */
  when_ambiguous: "when_ambiguous",
  /** Every call. */
  always: "always",
  /** Never (the ledger still collapses repeats; nothing asks a human first). */
  never: "never",
} as const;
export type ApprovalPolicy = (typeof ApprovalPolicy)[keyof typeof ApprovalPolicy];

/** Stable-id value as the guarded tool hashes it: strings as-is, finite numbers stringified. */
function stableIdValue(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * True when the ledger holds an effect for this input's identity (effect type, scope, stable
 * ids, formed exactly as the guarded tool forms them) whose latest execution is AMBIGUOUS —
 * sent, outcome not yet known. False when there is no such effect or it is in any other
 * state; false too when the input does not parse or cannot form an identity (execute then
 * refuses it with a clear error). True when the ledger cannot be read: if we cannot tell, a
 * human decides.
 */
export async function isOutcomeAmbiguous<S extends ZodObject<ZodRawShape>>(
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
  input: unknown,
): Promise<boolean> {
  const parsed = definition.inputSchema.safeParse(input);
  if (!parsed.success) return false;
  const value = parsed.data as ZodInfer<S>;
  const fields = value as Record<string, unknown>;
  const stableIds: Record<string, string> = {};
  for (const name of definition.stableIds) {
    const text = stableIdValue(fields[name]);
    if (text === null || text.length === 0) return false;
    stableIds[name] = text;
  }
  let effectId: string;
  try {
    const scope =
      typeof definition.scope === "function" ? definition.scope(value) : definition.scope;
    effectId = deriveIdentity({
      effect_type: definition.effectType,
      scope,
      stable_ids: stableIds,
    }).intentId;
  } catch {
    return false;
  }
  try {
    const status = await irrevon.status(effectId);
    return status.lifecycle === "AMBIGUOUS";
  } catch (error) {
    if (isIrrevonError(error) && error.code === "not_found") return false;
    return true;
  }
}

/** Whether a call with this input needs approval under `policy`. */
export async function needsApprovalFor<S extends ZodObject<ZodRawShape>>(
  policy: ApprovalPolicy,
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
  input: unknown,
): Promise<boolean> {
  if (policy === "always") return true;
  if (policy === "never") return false;
  return isOutcomeAmbiguous(irrevon, definition, input);
}
