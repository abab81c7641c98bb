/**
 * test/integration/agent-support — shared by the agent-binding suites (AI SDK, MCP): an engine
 * on a fresh PGlite test ledger wired to two in-process reference destinations (C2: status
 * query; C3: none), real clock, and the guarded-tool definitions the scripted models call.
 * Not a test file.
 */
import { z } from "zod";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import type { GuardedToolDefinition } from "../../src/agent/guarded-tool.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import { openTestLedger, type TestLedger } from "../support/databases.js";

export interface AgentFixture {
  readonly ledger: TestLedger;
  readonly refdest: Refdest;
  /** A C3 destination (no status query): a lost reply stays ambiguous for a human. */
  readonly refdestC3: Refdest;
  readonly irrevon: Irrevon;
  close(): Promise<void>;
}

/** Opens ledger + C2 and C3 refdests + engine (system clock). Always `close()` (afterAll). */
export async function openAgentFixture(): Promise<AgentFixture> {
  const ledger = await openTestLedger("pglite");
  const refdest = createRefdest({ tier: "C2", seed: 42 });
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration: refdestDeclaration("C2"),
    transport: createInProcessTransport(refdest),
  });
  const refdestC3 = createRefdest({ tier: "C3", seed: 43 });
  const adapterC3 = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4103",
    declaration: refdestDeclaration("C3"),
    transport: createInProcessTransport(refdestC3),
  });
  const irrevon = await openIrrevon({
    database: ledger.app,
    adapters: [adapter, adapterC3],
    config: { rereadGapSeconds: 0 },
    workerId: "agent-test",
    crashPoints: NO_CRASH_POINTS,
  });
  return {
    ledger,
    refdest,
    refdestC3,
    irrevon,
    async close() {
      await irrevon.close();
      await ledger.close();
    },
  };
}

/** The tool's input: two stable ids (the order's identity) and free-form order details. */
export const placeOrderInput = z.object({
  order_id: z.string().describe("The shop's order number, e.g. 9410"),
  customer_ref: z.string().describe("The customer's reference, e.g. C-0007"),
  items: z.array(z.object({ sku: z.string(), quantity: z.number().int().positive() })),
  shipping: z.string().optional(),
  note: z.string().optional(),
});

/** `place_order`: creates an order at the destination, identity = order_id + customer_ref. */
export const placeOrder: GuardedToolDefinition<typeof placeOrderInput> = {
  name: "place_order",
  description: "Place a customer order (irreversible: the shop ships it).",
  inputSchema: placeOrderInput,
  stableIds: ["order_id", "customer_ref"],
  effectType: "order.create",
  adapterId: "refdest-c2",
  scope: "acme-store/prod",
  authorityRef: "auth_approved_task_18",
};

/** The model's first call for order 9410. */
export const FIRST_CALL = {
  order_id: "9410",
  customer_ref: "C-0007",
  items: [{ sku: "SKU-118", quantity: 2 }],
  shipping: "standard",
  note: "please deliver to the loading dock",
};

/** The model's re-worded retry: same stable ids, different wording of everything else. */
export const REWORDED_RETRY = {
  order_id: "9410",
  customer_ref: "C-0007",
  items: [{ sku: "SKU-118", quantity: 2 }],
  shipping: "Standard shipping",
  note: "Deliver at loading dock please!",
};

/** A genuinely new order (new stable ids). */
export const NEW_ORDER = {
  order_id: "9411",
  customer_ref: "C-0007",
  items: [{ sku: "SKU-204", quantity: 1 }],
  shipping: "express",
};

/** The EU store's orders: same tool, another scope (the deny-list tests pause it). */
export const placeOrderEu: GuardedToolDefinition<typeof placeOrderInput> = {
  ...placeOrder,
  name: "place_order_eu",
  scope: "acme-store/eu",
};

/** The legacy store's orders go to a C3 destination (no status query). */
export const placeOrderLegacy: GuardedToolDefinition<typeof placeOrderInput> = {
  ...placeOrder,
  name: "place_order_legacy",
  adapterId: "refdest-c3",
  scope: "acme-store/legacy",
};

/** An EU order (used where the EU scope is deny-listed). */
export const EU_ORDER = {
  order_id: "7001",
  customer_ref: "C-0100",
  items: [{ sku: "SKU-330", quantity: 3 }],
};

/** Pauses `order.create` in the EU scope (an operator deny entry). */
export async function pauseEuOrders(irrevon: Irrevon): Promise<void> {
  await irrevon.operator.addDenyEntry({
    effectType: "order.create",
    scope: "acme-store/eu",
    reason: "EU orders are paused by operations",
  });
}

/** Makes the destination commit the next create and then cut the connection. */
export function loseNextCreateResponse(refdest: Refdest): void {
  refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
}

/** Makes a C3 destination commit the next notify and then cut the connection. */
export function loseNextNotifyResponse(refdest: Refdest): void {
  refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "notify" } }]);
}

/** Orders the destination really holds (ground truth). */
export function destinationOrders(
  refdest: Refdest,
): readonly { readonly client_ref: string | null; readonly destination_ref: string }[] {
  return refdest.truthDump().effects;
}

/** Create requests that reached the destination. */
export function createRequests(refdest: Refdest): number {
  return refdest.requestLog().filter((entry) => entry.op === "create").length;
}
