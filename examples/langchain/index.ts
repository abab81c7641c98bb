/**
 * examples/langchain — a guarded tool in a LangChain agent (`createAgent`), no model key
 * needed: langchain's fake chat model plays the agent. It places order 9410; the warehouse
 * commits it but the response is lost, and the tool still answers "committed" (reconciled
 * within run()'s budget). The model, unsure, places 9410 again in other words: the call
 * collapses onto the first one and the model reads the original result — no second order.
 * Then it places 9411, a new order, which goes through. Each ToolMessage carries the full
 * RunResult as its artifact for the host program. Imports only the package, as an app does.
 * Run: `npm run example -- langchain` (in-memory ledger, in-process reference destination).
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { z } from "zod";
import { openIrrevon, RefdestAdapter, refdestDeclaration } from "irrevon";
import { guardedLangChainTool, type GuardedToolArtifact } from "irrevon/langchain";
import { createInProcessTransport, createRefdest } from "irrevon/testing";

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

  const orderTool = guardedLangChainTool(irrevon, {
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

  const model = fakeModel()
    .respondWithTools([
      {
        id: "call_1",
        name: "place_order",
        args: {
          order_id: "9410",
          items: [{ sku: "SKU-118", quantity: 2 }],
          note: "standard shipping",
        },
      },
    ])
    .respondWithTools([
      {
        id: "call_2",
        name: "place_order",
        args: {
          order_id: "9410",
          items: [{ sku: "SKU-118", quantity: 2 }],
          note: "ship it the usual way",
        },
      },
    ])
    .respondWithTools([
      {
        id: "call_3",
        name: "place_order",
        args: {
          order_id: "9411",
          items: [{ sku: "SKU-200", quantity: 1 }],
          note: "standard shipping",
        },
      },
    ])
    .respond(new AIMessage("Orders 9410 and 9411 are placed."));
  const agent = createAgent({ model, tools: [orderTool] });

  // The warehouse commits the first order, then the response is dropped.
  destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  const state = await agent.invoke({ messages: [new HumanMessage("Order 9410, then 9411.")] });

  const answers = state.messages.filter((m) => ToolMessage.isInstance(m));
  for (const message of answers) {
    const seen = JSON.parse(String(message.content)) as Record<string, unknown>; // what the model read
    const artifact = message.artifact as GuardedToolArtifact; // what the host program gets
    const changed = Array.isArray(seen["changed_fields"])
      ? ` changed=${seen["changed_fields"].join(",")}`
      : "";
    const evidence = artifact.status === "committed" ? ` evidence=${artifact.evidence}` : "";
    console.log(
      message.tool_call_id,
      seen["status"],
      `replayed=${String(seen["replayed"])}${changed}${evidence}`,
    );
  }
  const [first, retry] = answers.map(
    (m) => JSON.parse(String(m.content)) as Record<string, unknown>,
  );
  console.log(
    "retry read the original destination ref",
    retry?.["destination_ref"] === first?.["destination_ref"],
  );
  console.log("model read (call_2):", retry?.["message"]);
  console.log("destination effects", destination.truthDump().effects.length);
  console.log("final answer:", state.messages[state.messages.length - 1]?.content);
} finally {
  await irrevon.close();
}
