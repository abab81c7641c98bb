/**
 * examples/openai-agents — a guarded tool in an OpenAI Agents SDK agent, no model key needed:
 * a scripted model plays the agent. It places order 9410; the warehouse commits it but the
 * response is lost, and the tool still answers "committed" (reconciled within run()'s budget).
 * The model, unsure, places 9410 again in other words: the call collapses onto the first one
 * and the model reads the original result — no second order. Then it places 9411, a new
 * order, which goes through. Imports only the package, as an app does.
 * Run: `npm run example -- openai-agents` (in-memory ledger, in-process reference destination).
 */
import {
  Agent,
  run,
  setTracingDisabled,
  Usage,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from "@openai/agents";
import { z } from "zod";
import { openIrrevon, RefdestAdapter, refdestDeclaration } from "irrevon";
import { guardedAgentTool } from "irrevon/openai-agents";
import { createInProcessTransport, createRefdest } from "irrevon/testing";

setTracingDisabled(true); // no trace export without an OpenAI key

/** Stands in for a real model: answers from a script and remembers what it was shown. */
class ScriptedModel implements Model {
  readonly seen: ModelRequest[] = [];
  readonly #turns: ModelResponse["output"][];
  constructor(turns: ModelResponse["output"][]) {
    this.#turns = turns;
  }
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.seen.push(request);
    return Promise.resolve({ usage: new Usage(), output: this.#turns.shift() ?? [] });
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed in this example");
  }
  /** The tool output the model read for a call id. */
  toolOutput(callId: string): Record<string, unknown> {
    const input = this.seen[this.seen.length - 1]?.input ?? [];
    for (const item of typeof input === "string" ? [] : input) {
      if (item.type === "function_call_result" && item.callId === callId) {
        const output = item.output;
        const text = typeof output === "string" ? output : "text" in output ? output.text : "";
        return JSON.parse(String(text)) as Record<string, unknown>;
      }
    }
    throw new Error(`the model saw no output for ${callId}`);
  }
}

const placeOrder = (callId: string, args: unknown): ModelResponse["output"] => [
  { type: "function_call", callId, name: "place_order", arguments: JSON.stringify(args) },
];

const destination = createRefdest({ tier: "C2", seed: 42 });
const irrevon = await openIrrevon({
  database: { memory: true },
  adapters: [
    new RefdestAdapter({
      baseUrl: "http://127.0.0.1:4100",
      declaration: refdestDeclaration("C2"),
      transport: createInProcessTransport(destination),
    }),
  ],
});

try {
  await irrevon.recover(); // always first after a start: adjudicate before any re-dispatch

  const orderTool = guardedAgentTool(irrevon, {
    name: "place_order",
    description: "Places the customer's order with the warehouse.",
    inputSchema: z.object({
      order_id: z.string(),
      items: z.array(z.object({ sku: z.string(), quantity: z.number() })),
      note: z.string(),
    }),
    stableIds: ["order_id"], // the business fact that makes two calls the same order
    effectType: "order.create",
    adapterId: "refdest-c2",
    scope: "acme-store/prod",
    authorityRef: "auth_approved_task_18",
  });

  const model = new ScriptedModel([
    placeOrder("call_1", {
      order_id: "9410",
      items: [{ sku: "SKU-118", quantity: 2 }],
      note: "standard shipping",
    }),
    placeOrder("call_2", {
      order_id: "9410",
      items: [{ sku: "SKU-118", quantity: 2 }],
      note: "ship it the usual way",
    }),
    placeOrder("call_3", {
      order_id: "9411",
      items: [{ sku: "SKU-200", quantity: 1 }],
      note: "standard shipping",
    }),
    [
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Orders 9410 and 9411 are placed." }],
      },
    ],
  ]);
  const agent = new Agent({
    name: "shop-assistant",
    instructions: "Place orders.",
    model,
    tools: [orderTool],
  });

  // The warehouse commits the first order, then the response is dropped.
  destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  const result = await run(agent, "Order 9410, then 9411.");

  const [first, retry, other] = ["call_1", "call_2", "call_3"].map((id) => model.toolOutput(id));
  for (const [id, out] of [
    ["call_1", first],
    ["call_2", retry],
    ["call_3", other],
  ] as const) {
    const changed = Array.isArray(out?.["changed_fields"])
      ? ` changed=${out["changed_fields"].join(",")}`
      : "";
    console.log(id, out?.["status"], `replayed=${String(out?.["replayed"])}${changed}`);
  }
  console.log(
    "retry read the original destination ref",
    retry?.["destination_ref"] === first?.["destination_ref"],
  );
  console.log("model read (call_2):", retry?.["message"]);
  console.log("destination effects", destination.truthDump().effects.length);
  console.log("final answer:", result.finalOutput);
} finally {
  await irrevon.close();
}
