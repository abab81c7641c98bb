/**
 * agent/ai — the Vercel AI SDK binding ("irrevon/ai"): a guarded tool as an AI SDK `tool()`.
 * Thin: the tool's execute runs the framework-neutral guarded tool (identity from the declared
 * stable ids, the rest as tainted parameters, then `irrevon.run`) and hands the model the
 * JSON of {@link toolResultForModel}. Only this file imports `ai` (an optional peer
 * dependency); the core package stays framework-free. Imports: agent, engine (types), ai.
 */
import { tool, type JSONValue, type Tool } from "ai";
import type { infer as ZodInfer, ZodObject, ZodRawShape } from "zod";
import type { Irrevon } from "../engine/irrevon.js";
import {
  defineGuardedTool,
  toolResultForModel,
  type GuardedToolDefinition,
  type ToolResultForModel,
} from "./guarded-tool.js";
import { isToolError } from "./tool-error.js";

/** The AI SDK's model-output union (not exported by name from "ai"). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** What the guarded tool's execute returns (and the model reads): see docs/agents.md. */
export type GuardedToolOutput = ToolResultForModel;

/**
 * Builds an AI SDK tool that runs every call through Irrevon. The model sees
 * `{ status, message, effect_id, replayed, … }`: as an error result (`error-json`) exactly
 * when the effect is known not to have happened (`failed`; `denied` except by dedup), else as
 * a normal result (`json`) whose message says not to retry. Exceptions (input that fails the
 * schema, infrastructure) are left to the AI SDK, which shows the model their message.
 *
 * @param irrevon - an open engine (see `openIrrevon`).
 * @param definition - the guarded tool: zod input schema, stable-id fields, effect type,
 *   adapter, scope and authority. Refused here (IrrevonError `stable_id_not_in_schema`,
 *   `tool_definition_invalid`) when it does not hold together.
 */
export function guardedTool<S extends ZodObject<ZodRawShape>>(
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
): Tool<ZodInfer<S>, GuardedToolOutput> {
  const guarded = defineGuardedTool(irrevon, definition);
  return tool<ZodInfer<S>, GuardedToolOutput>({
    description: guarded.description,
    inputSchema: guarded.inputSchema,
    execute: async (input, options) => {
      const context = options.abortSignal === undefined ? {} : { signal: options.abortSignal };
      return toolResultForModel(await guarded.execute(input, context));
    },
    toModelOutput: ({ output }) => modelOutput(output),
  });
}

/** error-json when the effect is known not to have happened ({@link isToolError}), else json. */
function modelOutput(output: GuardedToolOutput): ToolResultOutput {
  const value = toJsonValue(output);
  return isToolError(output) ? { type: "error-json", value } : { type: "json", value };
}

/** A plain JSON copy (drops undefined fields; readonly arrays become JSON arrays). */
function toJsonValue(output: GuardedToolOutput): JSONValue {
  return JSON.parse(JSON.stringify(output)) as JSONValue;
}
