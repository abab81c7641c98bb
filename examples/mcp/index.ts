/**
 * examples/mcp — an MCP server exposing a `place_order` tool guarded by Irrevon, and an MCP
 * client (standing in for the model host) talking to it over the SDK's in-memory transport.
 * The client places order 9410, the reply is lost, it retries with re-worded arguments, then
 * places order 9411: exactly two orders reach the destination. No model key needed.
 * Run: `npm run example -- mcp` (in-memory ledger, in-process reference destination).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { openIrrevon, RefdestAdapter, refdestDeclaration, type ToolResultForModel } from "irrevon";
import { registerGuardedTool } from "irrevon/mcp";
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

// The server side: one guarded tool; order_id + customer_ref are the identity.
const server = new McpServer({ name: "acme-store", version: "1.0.0" });
registerGuardedTool(server, irrevon, {
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

// The client side (what a model host does for the model).
const client = new Client({ name: "agent", version: "1.0.0" });
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();

async function placeOrder(label: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name: "place_order", arguments: args });
  const out = result.structuredContent as unknown as ToolResultForModel;
  console.log(
    `${label}: ${out.status}${out.replayed ? " (replayed)" : ""} effect ${out.effect_id.slice(0, 12)} isError=${result.isError === true}`,
  );
  console.log(`        model reads: ${out.message}`);
}

try {
  await irrevon.recover(); // always first after a start
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  const { tools } = await client.listTools();
  console.log("tools:", tools.map((t) => `${t.name} ${JSON.stringify(t.annotations)}`).join("; "));

  // The first create commits at the destination, then the reply is lost on the way back.
  destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  const items = [{ sku: "SKU-118", quantity: 2 }];
  await placeOrder("order 9410", {
    order_id: "9410",
    customer_ref: "C-0007",
    items,
    shipping: "standard",
  });
  await placeOrder("re-worded retry", {
    order_id: "9410",
    customer_ref: "C-0007",
    items,
    shipping: "Standard shipping",
    note: "asap",
  });
  await placeOrder("order 9411", {
    order_id: "9411",
    customer_ref: "C-0007",
    items: [{ sku: "SKU-204", quantity: 1 }],
    shipping: "express",
  });
  const creates = destination.requestLog().filter((entry) => entry.op === "create");
  console.log(
    `destination saw ${creates.length} create requests, answered: ${creates.map((entry) => String(entry.outcome)).join(", ")}`,
  );
  console.log(
    `destination holds ${destination.truthDump().effects.length} orders after 3 tool calls`,
  );
} finally {
  await client.close();
  await server.close();
  await irrevon.close();
}
