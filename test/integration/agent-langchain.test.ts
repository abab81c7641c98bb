/**
 * irrevon/langchain driven by langchain's real `createAgent` loop with a fake chat model
 * (`fakeModel` from @langchain/core/testing): a lost response and a re-worded retry make ONE
 * destination effect and the retry's ToolMessage carries the original result; a new order
 * makes a second one; a deny-listed effect type is denied with nothing sent; the approval
 * predicate fires only for an AMBIGUOUS effect; a stable id missing from the schema is
 * refused at definition.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ambiguousInterruptOn, guardedLangChainTool } from "../../src/agent/langchain.js";
import { IrrevonError } from "../../src/core/errors.js";
import { openAgentWorld, orderTool, type AgentWorld } from "../support/agent-worlds.js";

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
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

function openWorld(tier: "C2" | "C3"): Promise<AgentWorld> {
  return openAgentWorld(tier).then((opened) => (world = opened));
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
  w: AgentWorld,
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
    tools: [guardedLangChainTool(w.irrevon, orderTool(w.adapterId))],
  });
  const state = await agent.invoke({ messages: [new HumanMessage("Place my orders.")] });
  return state.messages;
}

describe("irrevon/langchain", () => {
  it("lost response + re-worded retry: one destination effect, the retry reads the original result; a new order is a second effect", async () => {
    const w = await openWorld("C2");
    w.destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const messages = await runAgent(w, [
      { id: "call_1", args: FIRST },
      { id: "call_2", args: REWORDED },
      { id: "call_3", args: OTHER },
    ]);

    const first = toolAnswer(messages, "call_1");
    const retry = toolAnswer(messages, "call_2");
    const other = toolAnswer(messages, "call_3");
    const truth = w.destination.truthDump().effects;
    expect(truth).toHaveLength(2);
    expect(w.createRequests()).toBe(2);

    expect(first.content).toMatchObject({
      status: "committed",
      replayed: false,
      destination_ref: truth[0]?.destination_ref,
    });
    expect(first.artifact).toMatchObject({ status: "committed", evidence: "reconciled" });
    expect(retry.content).toMatchObject({
      status: "committed",
      replayed: true,
      effect_id: first.content["effect_id"],
      destination_ref: first.content["destination_ref"],
      changed_fields: ["note"],
    });
    expect(retry.content["response"]).toEqual(first.content["response"]);
    expect(other.content).toMatchObject({
      status: "committed",
      replayed: false,
      destination_ref: truth[1]?.destination_ref,
    });
  });

  it("a deny-listed effect type: the model reads the denial and nothing is sent", async () => {
    const w = await openWorld("C2");
    await w.irrevon.operator.addDenyEntry({ effectType: "order.create", reason: "orders frozen" });
    const messages = await runAgent(w, [{ id: "call_1", args: FIRST }]);
    const denied = toolAnswer(messages, "call_1");
    expect(denied.content).toMatchObject({ status: "denied", check: "deny_list" });
    expect(denied.artifact).toMatchObject({ status: "denied", check: "deny_list" });
    expect(w.createRequests()).toBe(0);
    expect(w.createdEffects()).toBe(0);
  });

  it("ambiguousInterruptOn: no interrupt for a new or committed effect, an interrupt once the effect is AMBIGUOUS", async () => {
    const w = await openWorld("C3");
    const definition = orderTool(w.adapterId);
    const interruptOn = ambiguousInterruptOn(w.irrevon, definition);
    expect(await interruptOn.when({ toolCall: { args: FIRST } })).toBe(false);

    w.destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const messages = await runAgent(w, [{ id: "call_1", args: FIRST }]);
    expect(toolAnswer(messages, "call_1").content["status"]).toBe("ambiguous");
    expect(await interruptOn.when({ toolCall: { args: REWORDED } })).toBe(true);
    expect(await interruptOn.when({ toolCall: { args: OTHER } })).toBe(false);
    expect(await interruptOn.when({ toolCall: { args: { order_id: 9410 } } })).toBe(false); // does not parse
    expect(interruptOn.allowedDecisions).toEqual(["approve", "reject"]);
  });

  it("a stable id missing from the schema is refused at definition", async () => {
    const w = await openWorld("C2");
    const schema = z.object({ order: z.string(), note: z.string() });
    let refused: unknown;
    try {
      guardedLangChainTool(w.irrevon, {
        name: "place_order",
        description: "Places an order.",
        inputSchema: schema,
        stableIds: ["order_id" as "order"], // a typo the type system lets through with a cast
        effectType: "order.create",
        adapterId: w.adapterId,
        scope: "acme-store/prod",
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
