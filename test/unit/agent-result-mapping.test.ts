/**
 * What the model sees per outcome (docs/agents.md, table "What the model sees"): the MCP
 * binding's `isError` and the AI SDK binding's model-output type for each RunResult status.
 * `isError` / `error-json` exactly when the effect is known NOT to have happened (failed;
 * denied except by dedup); committed, ambiguous and a dedup denial are normal results.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { guardedTool } from "../../src/agent/ai.js";
import { toolResultForModel } from "../../src/agent/guarded-tool.js";
import { callToolResult } from "../../src/agent/mcp.js";
import { isToolError } from "../../src/agent/tool-error.js";
import type { Irrevon } from "../../src/engine/irrevon.js";
import {
  ambiguousMessage,
  committedMessage,
  deniedMessage,
  failedMessage,
  type RunResult,
} from "../../src/engine/run-result.js";

const base = { effectId: "e1", operationId: "e1:0", replayed: false, variant: null } as const;
const RESULTS: Record<string, RunResult> = {
  committed: {
    ...base,
    status: "committed",
    destinationRef: "ord_1",
    response: { http_status: 201 },
    evidence: "reconciled",
    modelMessage: committedMessage(false, null),
  },
  denied: {
    ...base,
    status: "denied",
    check: "deny_list",
    reason: "deny_listed",
    modelMessage: deniedMessage("deny_list", "deny_listed"),
  },
  dedup: {
    ...base,
    replayed: true,
    status: "denied",
    check: "dedup",
    reason: "duplicate_intent",
    modelMessage: deniedMessage("dedup", "duplicate_intent"),
  },
  scope_busy: {
    ...base,
    status: "denied",
    check: "scope_busy",
    reason: "scope_busy",
    modelMessage: deniedMessage("scope_busy", "scope_busy"),
  },
  failed: {
    ...base,
    status: "failed",
    retryable: false,
    reason: "TERMINAL",
    modelMessage: failedMessage(false, "TERMINAL", null),
  },
  ambiguous: {
    ...base,
    status: "ambiguous",
    next: { action: "human", notBefore: null },
    modelMessage: ambiguousMessage("human"),
  },
};
const EXPECTED: Record<string, { isError: boolean; aiType: string }> = {
  committed: { isError: false, aiType: "json" },
  denied: { isError: true, aiType: "error-json" },
  // An earlier call holds the effect: "error" would invite a work-around (a new order).
  dedup: { isError: false, aiType: "json" },
  scope_busy: { isError: true, aiType: "error-json" },
  failed: { isError: true, aiType: "error-json" },
  ambiguous: { isError: false, aiType: "json" },
};

// Defining a tool never touches the engine; execute is not called here.
const tool = guardedTool({} as Irrevon, {
  name: "place_order",
  description: "Place an order.",
  inputSchema: z.object({ order_id: z.string(), note: z.string().optional() }),
  stableIds: ["order_id"],
  effectType: "order.create",
  adapterId: "refdest-c2",
  scope: "acme-store/prod",
  authorityRef: "auth_1",
});

describe("what the model sees for each outcome", () => {
  for (const [name, result] of Object.entries(RESULTS)) {
    const expected = EXPECTED[name];
    it(`${name}: MCP isError=${expected?.isError}, AI SDK ${expected?.aiType}`, async () => {
      const output = toolResultForModel(result);
      const mcp = callToolResult(output);
      expect(mcp.isError).toBe(expected?.isError);
      expect(isToolError(output)).toBe(expected?.isError);
      expect(mcp.structuredContent).toMatchObject({ status: result.status, effect_id: "e1" });
      expect(mcp.content[0]).toEqual({ type: "text", text: result.modelMessage });
      expect(JSON.parse((mcp.content[1] as { text: string }).text)).toEqual(mcp.structuredContent);

      const ai = await tool.toModelOutput?.({
        toolCallId: "call-1",
        input: { order_id: "9410" },
        output,
      });
      expect(ai).toEqual({ type: expected?.aiType, value: mcp.structuredContent });
    });
  }

  it("committed and ambiguous messages tell the model not to retry when repeating is wrong", () => {
    expect(ambiguousMessage("reconcile")).toContain("do not retry");
    expect(committedMessage(true, null)).toContain("do not retry");
  });

  it("docs/agents.md quotes the messages the model really gets", () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "agents.md"), "utf8");
    for (const message of [
      committedMessage(false, null),
      committedMessage(true, null),
      deniedMessage("scope_busy", "scope_busy"),
      ambiguousMessage("reconcile"),
    ])
      expect(doc).toContain(message);
  });
});
