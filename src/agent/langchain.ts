/**
 * agent/langchain — "irrevon/langchain": a guarded tool as a LangChain.js structured tool
 * (`tool()` from `@langchain/core/tools`, a DynamicStructuredTool). Each call goes through
 * `irrevon.run()` keyed on the declared stable ids, so a re-worded retry of the same business
 * intent collapses onto the first call and the model reads the original result.
 *
 * The tool answers `[content, artifact]` (responseFormat "content_and_artifact"): the model
 * reads the JSON content; the host program gets the full RunResult (or the error object) as
 * the ToolMessage's artifact. Errors are answered, never thrown, so an agent loop never turns
 * them into "please fix your mistakes". `ambiguousInterruptOn` plugs the same approval rule
 * as the OpenAI binding into langchain's human-in-the-loop middleware.
 * Imports `@langchain/core` (optional peer dependency) — nothing else in irrevon does.
 */
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import type { ZodObject, ZodRawShape, infer as ZodInfer } from "zod";
import type { Irrevon } from "../engine/irrevon.js";
import type { RunResult } from "../engine/run-result.js";
import {
  errorForModel,
  isOutcomeAmbiguous,
  resultTextForModel,
  type ToolErrorForModel,
} from "./binding-support.js";
import { defineGuardedTool, type GuardedToolDefinition } from "./guarded-tool.js";

export type { ToolErrorForModel } from "./binding-support.js";

/** The ToolMessage artifact: the run's result, or the error the model was told about. */
export type GuardedToolArtifact = RunResult | ToolErrorForModel;

/**
 * Defines a guarded tool (`defineGuardedTool`: throws `stable_id_not_in_schema` or
 * `tool_definition_invalid` here, at definition) and wraps it in a LangChain `tool()` with
 * the same name, description and zod schema. The content is the JSON text of
 * `toolResultForModel(result)` (or of `{status:"error", code, retryable, message}`); the
 * artifact is the full result.
 */
export function guardedLangChainTool<S extends ZodObject<ZodRawShape>>(
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
): DynamicStructuredTool<S> {
  const guarded = defineGuardedTool(irrevon, definition);
  const run = async (
    input: ZodInfer<S>,
    signal: AbortSignal | undefined,
  ): Promise<[string, GuardedToolArtifact]> => {
    try {
      const result = await guarded.execute(input, signal === undefined ? {} : { signal });
      return [resultTextForModel(result), result];
    } catch (error) {
      const answer = errorForModel(error);
      return [JSON.stringify(answer), answer];
    }
  };
  return tool((input, config) => run(input as ZodInfer<S>, config?.signal), {
    name: guarded.name,
    description: guarded.description,
    schema: guarded.inputSchema,
    responseFormat: "content_and_artifact",
    metadata: { irrevon: guarded.annotations },
  }) as unknown as DynamicStructuredTool<S>;
}

/** A tool call as langchain's human-in-the-loop middleware hands it to a `when` predicate. */
interface InterruptRequest {
  readonly toolCall: { readonly args: Record<string, unknown> };
}

/** An `interruptOn` entry for langchain's `humanInTheLoopMiddleware`. */
export interface GuardedInterruptOn {
  readonly allowedDecisions: ("approve" | "reject")[];
  readonly description: string;
  readonly when: (request: InterruptRequest) => Promise<boolean>;
}

/**
 * The entry to pass as `humanInTheLoopMiddleware({ interruptOn: { [name]: entry } })`: the
 * agent pauses for a human only when the effect of the call's stable ids is AMBIGUOUS right
 * now, as `guardedAgentTool`'s default. Arguments that do not parse never interrupt (the
 * tool refuses them).
 */
export function ambiguousInterruptOn<S extends ZodObject<ZodRawShape>>(
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
): GuardedInterruptOn {
  return {
    allowedDecisions: ["approve", "reject"],
    description: `${definition.name}: an earlier call with these identifiers was sent and its outcome is not known yet. Approve to let the ledger verify and answer; reject to stop.`,
    when: (request) => isOutcomeAmbiguous(irrevon, definition, request.toolCall.args),
  };
}
