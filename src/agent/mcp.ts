/**
 * agent/mcp — the Model Context Protocol binding ("irrevon/mcp"): registers a guarded tool on
 * an `McpServer` (TypeScript SDK v1). The tool's annotations are the guarded tool's truthful
 * hints, its result is the model text plus `structuredContent` ({@link toolResultForModel}),
 * and `isError` is set exactly when the effect is known NOT to have happened (failed; denied
 * except by dedup — see agent/tool-error).
 * Only this file imports the MCP SDK (an optional peer dependency). Imports: agent, engine
 * (types), @modelcontextprotocol/sdk.
 */
import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AnySchema } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z, type infer as ZodInfer, type ZodObject, type ZodRawShape } from "zod";
import type { Irrevon } from "../engine/irrevon.js";
import {
  defineGuardedTool,
  toolResultForModel,
  type GuardedToolDefinition,
  type ToolResultForModel,
} from "./guarded-tool.js";
import { isToolError } from "./tool-error.js";

/** The structured result every guarded MCP tool declares (extra fields allowed). */
export const guardedToolOutputSchema = z.looseObject({
  status: z.enum(["committed", "denied", "failed", "ambiguous"]),
  message: z.string(),
  effect_id: z.string(),
  replayed: z.boolean(),
});

/**
 * Registers `definition` as an MCP tool on `server` whose every call goes through Irrevon.
 * `destructiveHint`/`idempotentHint`/`openWorldHint` come from the guarded tool (truthful:
 * repeats collapse onto one effect). Result mapping (docs/agents.md): committed, ambiguous
 * and a dedup denial → `isError: false` (the model must not retry; ambiguous says the outcome
 * is being verified), failed and the other denials → `isError: true` with the reason. Input
 * that fails the schema is refused by the SDK before the guard runs; engine errors become the
 * SDK's `isError` result with the error message.
 *
 * @throws IrrevonError `stable_id_not_in_schema` / `tool_definition_invalid` at registration.
 */
export function registerGuardedTool<S extends ZodObject<ZodRawShape>>(
  server: McpServer,
  irrevon: Irrevon,
  definition: GuardedToolDefinition<S>,
): RegisteredTool {
  const guarded = defineGuardedTool(irrevon, definition);
  const handler = async (
    args: unknown,
    extra: { readonly signal: AbortSignal },
  ): Promise<CallToolResult> => {
    // The SDK parsed `args` with this very schema (its types cannot say so for a generic S).
    const input = args as ZodInfer<S>;
    return callToolResult(
      toolResultForModel(await guarded.execute(input, { signal: extra.signal })),
    );
  };
  return server.registerTool<typeof guardedToolOutputSchema, AnySchema>(
    guarded.name,
    {
      description: guarded.description,
      inputSchema: guarded.inputSchema,
      outputSchema: guardedToolOutputSchema,
      annotations: { ...guarded.annotations, readOnlyHint: false },
    },
    handler,
  );
}

/** The MCP result for one guarded call: the sentence for the model, the JSON, the flag. */
export function callToolResult(output: ToolResultForModel): CallToolResult {
  const structured = JSON.parse(JSON.stringify(output)) as Record<string, unknown>;
  return {
    content: [
      { type: "text", text: output.message },
      { type: "text", text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
    isError: isToolError(output),
  };
}
