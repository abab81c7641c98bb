/**
 * irrevon/openai-agents driven by the real `@openai/agents` Runner with a scripted model: a
 * lost response and a re-worded retry make ONE destination effect and the retry reads the
 * original result; a new order makes a second one; a deny-listed effect type is denied with
 * nothing sent; an AMBIGUOUS effect needs approval before a retry runs; a stable id missing
 * from the schema is refused at definition. One ledger for the file; tests keep apart by scope.
 */
import { Agent, Runner } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { guardedAgentTool, type GuardedAgentToolOptions } from "../../src/agent/openai-agents.js";
import { IrrevonError } from "../../src/core/errors.js";
import {
  answer,
  callTool,
  openAgentWorld,
  orderTool,
  ScriptedModel,
  type AgentWorld,
} from "../support/agent-worlds.js";

const runner = new Runner({ tracingDisabled: true });
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

function agentWith(
  model: ScriptedModel,
  adapterId: string,
  scope: string,
  options: GuardedAgentToolOptions = {},
): Agent {
  return new Agent({
    name: "shop-assistant",
    instructions: "Place the orders the user asks for.",
    model,
    tools: [guardedAgentTool(w.irrevon, orderTool(adapterId, scope), options)],
  });
}

function parsed(text: string | undefined): Record<string, unknown> {
  expect(text, "the model was shown no output for this call").toBeTypeOf("string");
  return JSON.parse(text ?? "null") as Record<string, unknown>;
}

/** A lost response on the lagging destination, then a retry: the run pauses for approval. */
async function ambiguousThenRetry(
  scope: string,
  retry: unknown,
  options: GuardedAgentToolOptions = {},
) {
  w.lagging.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  const model = new ScriptedModel([
    callTool("call_1", "place_order", FIRST),
    callTool("call_2", "place_order", retry),
    answer("I will wait for the check."),
  ]);
  const agent = agentWith(model, w.laggingAdapterId, scope, options);
  const paused = await runner.run(agent, "Order 2 of SKU-118.");
  return { model, agent, paused, first: parsed(model.toolOutput("call_1")) };
}

describe("irrevon/openai-agents", () => {
  it("lost response + re-worded retry: one destination effect, the retry reads the original result; a new order is a second effect", async () => {
    w.prompt.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const model = new ScriptedModel([
      callTool("call_1", "place_order", FIRST),
      callTool("call_2", "place_order", REWORDED),
      callTool("call_3", "place_order", OTHER),
      answer("Both orders are placed."),
    ]);
    const result = await runner.run(
      agentWith(model, w.promptAdapterId, "shop/lost"),
      "Order both.",
    );
    expect(result.finalOutput).toBe("Both orders are placed.");

    const first = parsed(model.toolOutput("call_1"));
    const retry = parsed(model.toolOutput("call_2"));
    const other = parsed(model.toolOutput("call_3"));
    const truth = w.prompt.truthDump().effects;
    const stored = (effectId: unknown) =>
      truth.find((e) => e.client_ref?.startsWith(`${String(effectId)}:`));

    expect(first).toMatchObject({ status: "committed", replayed: false });
    expect(first["destination_ref"]).toBe(stored(first["effect_id"])?.destination_ref);
    expect(w.effectsFor(first["effect_id"])).toBe(1);
    expect(w.createsFor(first["effect_id"])).toBe(1); // the lost one was never resent

    expect(retry).toMatchObject({ status: "committed", replayed: true, changed_fields: ["note"] });
    expect(retry["effect_id"]).toBe(first["effect_id"]);
    expect(retry["destination_ref"]).toBe(first["destination_ref"]);
    expect(retry["response"]).toEqual(first["response"]);

    expect(other).toMatchObject({ status: "committed", replayed: false });
    expect(other["effect_id"]).not.toBe(first["effect_id"]);
    expect(w.effectsFor(other["effect_id"])).toBe(1);
    expect(other["destination_ref"]).toBe(stored(other["effect_id"])?.destination_ref);
  });

  it("a deny-listed effect type: the model reads the denial and nothing is sent", async () => {
    await w.irrevon.operator.addDenyEntry({
      effectType: "order.create",
      scope: "shop/frozen",
      reason: "orders frozen",
    });
    const before = w.totalCreates();
    const model = new ScriptedModel([callTool("call_1", "place_order", FIRST), answer("Denied.")]);
    await runner.run(agentWith(model, w.promptAdapterId, "shop/frozen"), "Order 2 of SKU-118.");

    const denied = parsed(model.toolOutput("call_1"));
    expect(denied).toMatchObject({ status: "denied", check: "deny_list", replayed: false });
    expect(w.createsFor(denied["effect_id"])).toBe(0);
    expect(w.totalCreates()).toBe(before);
  });

  it("an AMBIGUOUS effect: a retry interrupts for approval; rejected, the model reads the rejection and nothing is resent", async () => {
    const { model, agent, paused, first } = await ambiguousThenRetry(
      "shop/ambiguous-reject",
      REWORDED,
    );
    expect(first["status"]).toBe("ambiguous");
    expect(String(first["message"])).toContain("do not retry");
    expect(paused.interruptions).toHaveLength(1);
    const approval = paused.interruptions[0];
    if (approval === undefined) throw new Error("expected an interruption for the retry");
    expect(approval.name).toBe("place_order");
    expect(approval.arguments).toBe(JSON.stringify(REWORDED));

    paused.state.reject(approval, {
      message: "A human is verifying order 9410; do not place it again.",
    });
    const resumed = await runner.run(agent, paused.state);
    expect(resumed.finalOutput).toBe("I will wait for the check.");
    expect(model.toolOutput("call_2")).toBe(
      "A human is verifying order 9410; do not place it again.",
    );
    expect(w.createsFor(first["effect_id"])).toBe(1);
    expect((await w.irrevon.status(String(first["effect_id"]))).lifecycle).toBe("AMBIGUOUS");
  });

  it("an AMBIGUOUS effect, retry approved: the call collapses onto the first one, no second send", async () => {
    const { model, agent, paused, first } = await ambiguousThenRetry(
      "shop/ambiguous-approve",
      FIRST,
    );
    const approval = paused.interruptions[0];
    if (approval === undefined) throw new Error("expected an interruption for the retry");
    paused.state.approve(approval);
    await runner.run(agent, paused.state);

    const retry = parsed(model.toolOutput("call_2"));
    expect(retry).toMatchObject({
      status: "ambiguous",
      replayed: true,
      effect_id: first["effect_id"],
    });
    expect(w.createsFor(first["effect_id"])).toBe(1);
  });

  it("approval 'never': the retry runs without an interruption and still sends nothing twice", async () => {
    const { model, paused, first } = await ambiguousThenRetry("shop/ambiguous-never", REWORDED, {
      approval: "never",
    });
    expect(paused.interruptions).toHaveLength(0);
    expect(parsed(model.toolOutput("call_2"))).toMatchObject({
      status: "ambiguous",
      replayed: true,
      changed_fields: ["note"],
    });
    expect(w.createsFor(first["effect_id"])).toBe(1);
  });

  it("errors reach the model as a structured answer, never the SDK's 'please try again'", async () => {
    const before = w.totalCreates();
    const model = new ScriptedModel([
      callTool("call_1", "place_order", { ...FIRST, order_id: 9410 }), // does not parse
      callTool("call_2", "place_order", FIRST), // parses; the adapter id is unknown
      answer("Could not place it."),
    ]);
    await runner.run(agentWith(model, "no-such-adapter", "shop/errors"), "Order 2 of SKU-118.");
    const unparsed = parsed(model.toolOutput("call_1"));
    expect(unparsed).toMatchObject({ status: "error", code: "payload_invalid", retryable: false });
    expect(String(unparsed["message"])).toContain("nothing was recorded or sent");
    const thrown = parsed(model.toolOutput("call_2"));
    expect(thrown).toMatchObject({
      status: "error",
      code: "capability_unsupported",
      retryable: false,
    });
    expect(String(thrown["message"])).not.toMatch(/try again/i);
    expect(w.totalCreates()).toBe(before);
  });

  it("a stable id missing from the schema is refused at definition", () => {
    const schema = z.object({ order: z.string(), note: z.string() });
    let refused: unknown;
    try {
      guardedAgentTool(w.irrevon, {
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
