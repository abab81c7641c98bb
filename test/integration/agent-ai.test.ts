/**
 * The Vercel AI SDK binding (irrevon/ai) driven by the real `ai` package: `generateText` with
 * the SDK's mock language model runs a multi-step agent whose tool calls go through Irrevon.
 * A lost response plus a re-worded retry leaves ONE order at the destination and the model
 * gets the original result; a new order id makes a second order; a deny-listed effect type
 * reaches the model as a denial with nothing sent; a bad definition is refused up front.
 */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedTool, type GuardedToolOutput } from "../../src/agent/ai.js";
import { isIrrevonError } from "../../src/core/errors.js";
import {
  createRequests,
  destinationOrders,
  EU_ORDER,
  FIRST_CALL,
  loseNextCreateResponse,
  NEW_ORDER,
  openAgentFixture,
  pauseEuOrders,
  placeOrder,
  placeOrderEu,
  REWORDED_RETRY,
  type AgentFixture,
} from "./agent-support.js";

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One scripted model turn: call `toolName` with `input`, or finish with text. */
function callTool(toolName: string, toolCallId: string, input: Record<string, unknown>) {
  return {
    content: [{ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage: USAGE,
    warnings: [],
  };
}
function finish(text: string) {
  return {
    content: [{ type: "text" as const, text }],
    finishReason: { unified: "stop" as const, raw: "stop" },
    usage: USAGE,
    warnings: [],
  };
}

/** The tool result the model was shown for `toolCallId` in the prompt of a later turn. */
function toolResultInPrompt(model: MockLanguageModelV3, turn: number, toolCallId: string): unknown {
  const prompt = model.doGenerateCalls[turn]?.prompt ?? [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content)
      if (part.type === "tool-result" && part.toolCallId === toolCallId) return part.output;
  }
  return undefined;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isIrrevonError(error) ? error.code : `not an IrrevonError: ${String(error)}`;
  }
  return undefined;
}

describe("irrevon/ai with the real AI SDK (generateText + mock model)", () => {
  let f: AgentFixture;
  beforeAll(async () => {
    f = await openAgentFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  it("a lost response and a re-worded retry make ONE order; a new order id makes a second", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        callTool("place_order", "call-1", FIRST_CALL),
        callTool("place_order", "call-2", REWORDED_RETRY),
        callTool("place_order", "call-3", NEW_ORDER),
        finish("Orders 9410 and 9411 are placed."),
      ],
    });
    const ordersBefore = destinationOrders(f.refdest).length;
    const createsBefore = createRequests(f.refdest);
    loseNextCreateResponse(f.refdest);

    const result = await generateText({
      model,
      tools: { place_order: guardedTool(f.irrevon, placeOrder) },
      prompt: "Place order 9410 for C-0007, then order 9411.",
      stopWhen: stepCountIs(6),
    });

    expect(result.steps).toHaveLength(4);
    const outputs = result.steps
      .slice(0, 3)
      .map((step) => step.toolResults[0]?.output as GuardedToolOutput | undefined);
    const [first, retry, second] = outputs;
    // The first call's response was cut after the destination committed: the guard settles it.
    expect(first).toMatchObject({ status: "committed", replayed: false });
    expect(first?.destination_ref).toEqual(expect.any(String));
    // The re-worded retry collapses onto the same effect and returns the ORIGINAL result.
    expect(retry).toMatchObject({
      status: "committed",
      replayed: true,
      effect_id: first?.effect_id,
      destination_ref: first?.destination_ref,
      changed_fields: ["note", "shipping"],
    });
    // A new order id is a new business intent.
    expect(second).toMatchObject({ status: "committed", replayed: false });
    expect(second?.effect_id).not.toBe(first?.effect_id);

    // Ground truth: exactly two new orders, and the retry never reached the destination.
    const orders = destinationOrders(f.refdest).slice(ordersBefore);
    expect(orders.map((o) => o.destination_ref).sort()).toEqual(
      [first?.destination_ref, second?.destination_ref].sort(),
    );
    expect(createRequests(f.refdest) - createsBefore).toBe(2);

    // What the model was shown: normal (non-error) JSON results, the retry marked replayed.
    expect(toolResultInPrompt(model, 2, "call-2")).toMatchObject({
      type: "json",
      value: { status: "committed", replayed: true, destination_ref: first?.destination_ref },
    });
    expect(toolResultInPrompt(model, 3, "call-3")).toMatchObject({
      type: "json",
      value: { status: "committed", replayed: false },
    });
  });

  it("a deny-listed effect type reaches the model as a denial and nothing is sent", async () => {
    await pauseEuOrders(f.irrevon);
    const model = new MockLanguageModelV3({
      doGenerate: [
        callTool("place_order_eu", "call-1", EU_ORDER),
        finish("The order was refused."),
      ],
    });
    const ordersBefore = destinationOrders(f.refdest).length;
    const createsBefore = createRequests(f.refdest);

    const result = await generateText({
      model,
      tools: { place_order_eu: guardedTool(f.irrevon, placeOrderEu) },
      prompt: "Place EU order 7001.",
      stopWhen: stepCountIs(4),
    });

    const output = result.steps[0]?.toolResults[0]?.output as GuardedToolOutput | undefined;
    expect(output).toMatchObject({ status: "denied", check: "deny_list", reason: "deny_listed" });
    expect(output?.message).toEqual(expect.any(String));
    expect(toolResultInPrompt(model, 1, "call-1")).toMatchObject({
      type: "error-json",
      value: { status: "denied", check: "deny_list" },
    });
    expect(destinationOrders(f.refdest)).toHaveLength(ordersBefore);
    expect(createRequests(f.refdest)).toBe(createsBefore);
  });

  it("refuses a definition whose stable ids are not fields of the schema", () => {
    const code = codeOf(() =>
      guardedTool(f.irrevon, { ...placeOrder, stableIds: ["order_number"] as never }),
    );
    expect(code).toBe("stable_id_not_in_schema");
  });
});
