/**
 * irrevon/langchain driven by langchain's real `createAgent` loop with a fake chat model
 * (`fakeModel` from @langchain/core/testing): a lost response and a re-worded retry make ONE
 * destination effect and the retry's ToolMessage carries the original result; a new order
 * makes a second one; a deny-listed effect type is denied with nothing sent; the approval
 * predicate fires only for an AMBIGUOUS effect; a stable id missing from the schema is
 * refused at definition. One ledger for the file; tests keep apart by scope.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware, type AnyAgentMiddleware } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ambiguousInterruptOn,
  guardedLangChainTool,
  type GuardedInterruptOn,
} from "../../src/agent/langchain.js";
import { IrrevonError } from "../../src/core/errors.js";
import { openAgentWorld, orderTool, type AgentWorld } from "../support/agent-worlds.js";

let w: AgentWorld;
beforeAll(async () => {
  w = await openAgentWorld();
});
afterAll(async () => {
  await w.close();
});

const FIRST = {
  order_id: "9410",
  items: [{ sku: "SKU-118", quantity: 2 }],
  note: "standard shipping",
};
const REWORDED = {
  order_id: "9410",
  items: [{ sku: "SKU-118", quantity: 2 }],
  note: "ship it the usual way, please",
};
const OTHER = {
  order_id: "9411",
  items: [{ sku: "SKU-200", quantity: 1 }],
  note: "standard shipping",
};

/**
 * langchain's humanInTheLoopMiddleware, typed loosely: its option types (a zod v3 schema) do
 * not compile under this repo's exactOptionalPropertyTypes; the runtime is what is tested.
 */
function approvalMiddleware(interruptOn: Record<string, GuardedInterruptOn>): AnyAgentMiddleware {
  const create = humanInTheLoopMiddleware as unknown as (options: {
    interruptOn: Record<string, GuardedInterruptOn>;
  }) => AnyAgentMiddleware;
  return create({ interruptOn });
}

/** The ToolMessage answering `callId`: content parsed, artifact as given. */
function toolAnswer(
  messages: readonly BaseMessage[],
  callId: string,
): { content: Record<string, unknown>; artifact: unknown } {
  const message = messages.find(
    (m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === callId,
  );
  expect(message, `no ToolMessage for ${callId}`).toBeDefined();
  return {
    content: JSON.parse(String(message?.content)) as Record<string, unknown>,
    artifact: message?.artifact,
  };
}

async function runAgent(
  adapterId: string,
  scope: string,
  calls: { id: string; args: unknown }[],
): Promise<BaseMessage[]> {
  let model = fakeModel();
  for (const call of calls) {
    model = model.respondWithTools([
      { name: "place_order", args: call.args as Record<string, unknown>, id: call.id },
    ]);
  }
  model = model.respond(new AIMessage("Done."));
  const agent = createAgent({
    model,
    tools: [guardedLangChainTool(w.irrevon, orderTool(adapterId, scope))],
  });
  const state = await agent.invoke({ messages: [new HumanMessage("Place my orders.")] });
  return state.messages;
}

describe("irrevon/langchain", () => {
  it("lost response + re-worded retry: one destination effect, the retry reads the original result; a new order is a second effect", async () => {
    w.prompt.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const messages = await runAgent(w.promptAdapterId, "shop/lost", [
      { id: "call_1", args: FIRST },
      { id: "call_2", args: REWORDED },
      { id: "call_3", args: OTHER },
    ]);

    const first = toolAnswer(messages, "call_1");
    const retry = toolAnswer(messages, "call_2");
    const other = toolAnswer(messages, "call_3");
    const truth = w.prompt.truthDump().effects;
    const stored = (effectId: unknown) =>
      truth.find((e) => e.client_ref?.startsWith(`${String(effectId)}:`));

    expect(first.content).toMatchObject({ status: "committed", replayed: false });
    expect(first.content["destination_ref"]).toBe(
      stored(first.content["effect_id"])?.destination_ref,
    );
    expect(first.artifact).toMatchObject({ status: "committed", evidence: "reconciled" });
    expect(w.effectsFor(first.content["effect_id"])).toBe(1);
    expect(w.createsFor(first.content["effect_id"])).toBe(1); // the lost one was never resent

    expect(retry.content).toMatchObject({
      status: "committed",
      replayed: true,
      effect_id: first.content["effect_id"],
      destination_ref: first.content["destination_ref"],
      changed_fields: ["note"],
    });
    expect(retry.content["response"]).toEqual(first.content["response"]);

    expect(other.content).toMatchObject({ status: "committed", replayed: false });
    expect(other.content["effect_id"]).not.toBe(first.content["effect_id"]);
    expect(w.effectsFor(other.content["effect_id"])).toBe(1);
    expect(other.content["destination_ref"]).toBe(
      stored(other.content["effect_id"])?.destination_ref,
    );
  });

  it("a deny-listed effect type: the model reads the denial and nothing is sent", async () => {
    await w.irrevon.operator.addDenyEntry({
      effectType: "order.create",
      scope: "shop/frozen",
      reason: "orders frozen",
    });
    const before = w.totalCreates();
    const messages = await runAgent(w.promptAdapterId, "shop/frozen", [
      { id: "call_1", args: FIRST },
    ]);
    const denied = toolAnswer(messages, "call_1");
    expect(denied.content).toMatchObject({ status: "denied", check: "deny_list", replayed: false });
    expect(denied.artifact).toMatchObject({ status: "denied", check: "deny_list" });
    expect(w.createsFor(denied.content["effect_id"])).toBe(0);
    expect(w.totalCreates()).toBe(before);
  });

  it("humanInTheLoopMiddleware + ambiguousInterruptOn: a retry of an AMBIGUOUS effect pauses; rejected, the model reads the rejection and nothing is resent", async () => {
    const definition = orderTool(w.laggingAdapterId, "shop/ambiguous");
    const interruptOn = ambiguousInterruptOn(w.irrevon, definition);
    w.lagging.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const model = fakeModel()
      .respondWithTools([{ name: "place_order", args: FIRST, id: "call_1" }])
      .respondWithTools([{ name: "place_order", args: REWORDED, id: "call_2" }])
      .respond(new AIMessage("I will wait for the check."));
    const agent = createAgent({
      model,
      tools: [guardedLangChainTool(w.irrevon, definition)],
      middleware: [approvalMiddleware({ place_order: interruptOn })],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "ambiguous-1" } };
    const paused = await agent.invoke(
      { messages: [new HumanMessage("Order 2 of SKU-118.")] },
      config,
    );

    const first = toolAnswer(paused.messages, "call_1");
    expect(first.content).toMatchObject({ status: "ambiguous", replayed: false });
    expect(String(first.content["message"])).toContain("do not retry");
    const interrupts = (
      paused as {
        __interrupt__?: { value: { actionRequests: { name: string; args: unknown }[] } }[];
      }
    ).__interrupt__;
    expect(interrupts?.[0]?.value.actionRequests).toEqual([
      { name: "place_order", args: REWORDED, description: expect.any(String) },
    ]);

    const resumed = await agent.invoke(
      new Command({
        resume: { decisions: [{ type: "reject", message: "A human is verifying order 9410." }] },
      }),
      config,
    );
    const rejected = resumed.messages.find(
      (m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === "call_2",
    );
    expect(String(rejected?.content)).toContain("A human is verifying order 9410.");
    expect(rejected?.artifact).toBeUndefined(); // the guarded tool never ran
    expect(w.createsFor(first.content["effect_id"])).toBe(1);
    expect((await w.irrevon.status(String(first.content["effect_id"]))).lifecycle).toBe(
      "AMBIGUOUS",
    );
  });

  it("ambiguousInterruptOn.when: false for a new effect, a committed one or arguments that do not parse", async () => {
    const interruptOn = ambiguousInterruptOn(w.irrevon, orderTool(w.promptAdapterId, "shop/when"));
    expect(await interruptOn.when({ toolCall: { args: FIRST } })).toBe(false);
    const messages = await runAgent(w.promptAdapterId, "shop/when", [
      { id: "call_1", args: FIRST },
    ]);
    expect(toolAnswer(messages, "call_1").content["status"]).toBe("committed");
    expect(await interruptOn.when({ toolCall: { args: REWORDED } })).toBe(false);
    expect(await interruptOn.when({ toolCall: { args: { order_id: 9410 } } })).toBe(false);
    expect(interruptOn.allowedDecisions).toEqual(["approve", "reject"]);
  });

  it("an error inside the tool is answered, not thrown: the model reads it, the artifact holds it", async () => {
    const before = w.totalCreates();
    const messages = await runAgent("no-such-adapter", "shop/errors", [
      { id: "call_1", args: FIRST },
    ]);
    const failed = toolAnswer(messages, "call_1");
    const expected = { status: "error", code: "capability_unsupported", retryable: false };
    expect(failed.content).toMatchObject(expected);
    expect(failed.artifact).toMatchObject(expected);
    expect(String(failed.content["message"])).not.toMatch(/fix your mistakes|try again/i);
    expect(w.totalCreates()).toBe(before);
  });

  it("a stable id missing from the schema is refused at definition", () => {
    const schema = z.object({ order: z.string(), note: z.string() });
    let refused: unknown;
    try {
      guardedLangChainTool(w.irrevon, {
        name: "place_order",
        description: "Places an order.",
        inputSchema: schema,
        stableIds: ["order_id" as "order"], // a typo the type system lets through with a cast
        effectType: "order.create",
        adapterId: w.promptAdapterId,
        scope: "shop/typo",
        authorityRef: "auth_task_18",
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(IrrevonError);
    expect((refused as IrrevonError).code).toBe("stable_id_not_in_schema");
    expect((refused as IrrevonError).message).toContain("order_id");
  });
});
