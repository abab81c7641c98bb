/**
 * examples/quickstart — one irreversible action through `irrevon.run()`. The destination
 * commits the order but the response is lost on the way back: run() reconciles within its
 * budget and reports it committed. The agent then retries with re-worded arguments: the same
 * business facts collapse onto the same record, the original result comes back (no second
 * order) and the changed parameter fields are named. Imports only the package, as an app does.
 * Run: `npm run example -- quickstart` (in-memory ledger, in-process reference destination).
 */
import { openIrrevon, RefdestAdapter, refdestDeclaration, toolResultForModel } from "irrevon";
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

const order = {
  effectType: "order.create",
  scope: "acme-store/prod",
  stableIds: { order_id: "9410", customer_ref: "C-0007" }, // business facts: the identity
  adapterId: "refdest-c2",
  authorityRef: "auth_approved_task_18",
};

try {
  await irrevon.recover(); // always first after a start: adjudicate before any re-dispatch

  // The destination commits, then the response is dropped.
  destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  const first = await irrevon.run({
    ...order,
    parameters: { line_items: [{ sku: "SKU-118", quantity: 2 }], shipping_method: "standard" },
  });
  console.log("first call", first.status, first.status === "committed" ? first.evidence : "-");

  // The agent, unsure, tries again with re-worded arguments (model output: never identity).
  const retry = await irrevon.run({
    ...order,
    parameters: { items: [{ sku: "SKU-118", qty: 2 }], shipping: "standard" },
  });
  console.log(
    "retry",
    retry.status,
    retry.replayed ? "replayed" : "new",
    `changed=${retry.variant?.changedFields.join(",") ?? "none"}`,
  );
  const sameRef =
    first.status === "committed" &&
    retry.status === "committed" &&
    first.destinationRef === retry.destinationRef;
  console.log("same destination ref", sameRef);
  console.log("model sees", toolResultForModel(retry).message);
  console.log("destination effects", destination.truthDump().effects.length);
} finally {
  await irrevon.close();
}
