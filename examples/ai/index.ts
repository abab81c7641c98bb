/**
 * examples/ai — a Vercel AI SDK agent whose `place_order` tool is guarded by Irrevon.
 * No model key needed: the AI SDK's own mock model (`ai/test`) plays a model that places
 * order 9410, loses the reply, retries with re-worded arguments, then places order 9411.
 * The destination ends up with exactly two orders, and the retry gets the first result back.
 * Run: `npm run example -- ai` (in-memory ledger, in-process reference destination).
 */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { openIrrevon, RefdestAdapter, refdestDeclaration } from "irrevon";
import { guardedTool, type GuardedToolOutput } from "irrevon/ai";
import { createInProcessTransport, createRefdest } from "irrevon/testing";
import { z } from "zod";

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
  config: { rereadGapSeconds: 0 },
});

// The tool: order_id + customer_ref are the identity; items/shipping/note are model-written.
const placeOrder = guardedTool(irrevon, {
  name: "place_order",
  description: "Place a customer order (irreversible: the shop ships it).",
  inputSchema: z.object({
    order_id: z.string().describe("The shop's order number"),
    customer_ref: z.string().describe("The customer's reference"),
    items: z.array(z.object({ sku: z.string(), quantity: z.number().int().positive() })),
    shipping: z.string().optional(),
    note: z.string().optional(),
  }),
  stableIds: ["order_id", "customer_ref"],
  effectType: "order.create",
  adapterId: "refdest-c2",
  scope: "acme-store/prod",
  authorityRef: "auth_approved_task_18",
});

// What the scripted model does on each turn.
const turns = [
  {
    order_id: "9410",
    customer_ref: "C-0007",
    items: [{ sku: "SKU-118", quantity: 2 }],
    shipping: "standard",
  },
  // Re-worded retry of the same order (same ids, different wording).
  {
    order_id: "9410",
    customer_ref: "C-0007",
    items: [{ sku: "SKU-118", quantity: 2 }],
    shipping: "Standard shipping",
    note: "asap",
  },
  {
    order_id: "9411",
    customer_ref: "C-0007",
    items: [{ sku: "SKU-204", quantity: 1 }],
    shipping: "express",
  },
];
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};
const model = new MockLanguageModelV3({
  doGenerate: [
    ...turns.map((input, i) => ({
      content: [
        {
          type: "tool-call" as const,
          toolCallId: `call-${i + 1}`,
          toolName: "place_order",
          input: JSON.stringify(input),
        },
      ],
      finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
      usage,
      warnings: [],
    })),
    {
      content: [{ type: "text" as const, text: "Orders 9410 and 9411 are placed." }],
      finishReason: { unified: "stop" as const, raw: "stop" },
      usage,
      warnings: [],
    },
  ],
});

try {
  await irrevon.recover(); // always first after a start
  // The first create commits at the destination, then the reply is lost on the way back.
  destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  const result = await generateText({
    model,
    tools: { place_order: placeOrder },
    prompt: "Place order 9410 for C-0007, then order 9411.",
    stopWhen: stepCountIs(6),
  });
  for (const [i, step] of result.steps.entries()) {
    for (const call of step.toolResults) {
      const out = call.output as GuardedToolOutput;
      console.log(
        `turn ${i + 1}: place_order → ${out.status}${out.replayed ? " (replayed)" : ""} effect ${out.effect_id.slice(0, 12)}`,
      );
      console.log(`        model reads: ${out.message}`);
    }
  }
  console.log(`model: ${result.text}`);
  const creates = destination.requestLog().filter((entry) => entry.op === "create");
  console.log(
    `destination saw ${creates.length} create requests, answered: ${creates.map((entry) => String(entry.outcome)).join(", ")}`,
  );
  console.log(
    `destination holds ${destination.truthDump().effects.length} orders after 3 tool calls`,
  );
} finally {
  await irrevon.close();
}
