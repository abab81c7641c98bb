/**
 * agent/tool-error — the one rule every binding uses to decide whether a guarded tool's result
 * is shown to the model as an error (MCP `isError`, AI SDK `error-json`, …): exactly when this
 * effect is known NOT to have happened and the model may act on that (docs/agents.md,
 * decision 0010). A `dedup` denial is not an error: an earlier call already holds (or
 * may hold) the effect, and "error" would invite the model to work around it with a new order.
 * Imports: agent.
 */
import type { ToolResultForModel } from "./guarded-tool.js";

/**
 * True when the model should see the result as an error: `failed` (not carried out), or
 * `denied` by deny_list / authority / branch_lineage / scope_busy (nothing sent). False for
 * `committed`, `ambiguous` (may have happened: do not retry) and a `dedup` denial (an earlier
 * call holds the effect).
 */
export function isToolError(output: Pick<ToolResultForModel, "status" | "check">): boolean {
  if (output.status === "failed") return true;
  return output.status === "denied" && output.check !== "dedup";
}
