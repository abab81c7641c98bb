/**
 * agent/openai-agents — "irrevon/openai-agents": a guarded tool as an OpenAI Agents SDK
 * (`@openai/agents`) function tool. The model calls it like any tool; each call goes through
 * `irrevon.run()` keyed on the declared stable ids, so a re-worded retry of the same business
 * intent collapses onto the first call and the model reads the original result.
 *
 * Approval: by default a call whose effect is AMBIGUOUS right now (sent, outcome unknown)
 * needs a human's approval (`needsApproval` → a run interruption) instead of running
 * silently. Errors never reach the SDK's default "please try again" text.
 * Imports `@openai/agents` (optional peer dependency) — nothing else in irrevon does.
 */
import { tool, type FunctionTool } from "@openai/agents";
import type { ZodObject, ZodRawShape, infer as ZodInfer } from "zod";
import type { Irrevon } from "../engine/irrevon.js";
import {
  ApprovalPolicy,
  errorTextForModel,
  needsApprovalFor,
  resultTextForModel,
} from "./binding-support.js";
import { defineGuardedTool, type GuardedToolDefinition } from "./guarded-tool.js";

export { ApprovalPolicy } from "./binding-support.js";
export type { ToolErrorForModel } from "./binding-support.js";

/** Options of {@link guardedAgentTool}. */
export interface GuardedAgentToolOptions {
  /** When a call needs approval (default "when_ambiguous"). */
  readonly approval?: ApprovalPolicy;
}

/**
 * Defines a guarded tool (`defineGuardedTool`: throws `stable_id_not_in_schema` or
 * `tool_definition_invalid` here, at definition) and wraps it in an `@openai/agents` `tool()`
 * with the same name, description and zod schema (strict). `execute` returns the JSON text
 * of `toolResultForModel(result)`; a thrown error becomes a JSON `{status:"error", code,
 * retryable, message}` text. `needsApproval` follows `options.approval`.
 */
export function guardedAgentTool<S extends ZodObject<ZodRawShape>>(
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
  options: GuardedAgentToolOptions = {},
): FunctionTool<unknown, S, string> {
  const guarded = defineGuardedTool(irrevon, definition);
  const policy = options.approval ?? ApprovalPolicy.when_ambiguous;
  if (!Object.values(ApprovalPolicy).includes(policy)) {
    throw new TypeError(
      `options.approval must be one of ${Object.values(ApprovalPolicy).join(", ")}; got ${String(policy)}`,
    );
  }
  // The SDK's option types resolve `Extract<S, …>` only for a concrete schema; the generic S is
  // passed as the base object schema and the tool is typed back to S.
  const parameters: ZodObject<ZodRawShape> = guarded.inputSchema;
  const agentTool = tool<ZodObject<ZodRawShape>, unknown, string>({
    name: guarded.name,
    description: guarded.description,
    parameters,
    strict: true,
    needsApproval: (_context, input) => needsApprovalFor(policy, irrevon, definition, input),
    // Reached only when the SDK fails before our execute runs (e.g. arguments that do not
    // parse): nothing was recorded or sent.
    errorFunction: (_context, error) =>
      JSON.stringify({
        status: "error",
        code: "payload_invalid",
        retryable: false,
        message: `The call was refused before the tool ran; nothing was recorded or sent. ${
          error instanceof Error ? error.message : String(error)
        }`,
      }),
    async execute(input, _context, details) {
      try {
        const signal = details?.signal;
        const result = await guarded.execute(
          input as ZodInfer<S>,
          signal === undefined ? {} : { signal },
        );
        return resultTextForModel(result);
      } catch (error) {
        return errorTextForModel(error);
      }
    },
  });
  return agentTool as unknown as FunctionTool<unknown, S, string>;
}
