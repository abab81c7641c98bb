/**
 * examples/quickstart — register an order, dispatch it to the reference destination with
 * its response lost, reconcile, and watch a re-synthesized retry be denied by dedup.
 * Run: `npx tsx examples/quickstart.ts` (in-memory ledger, in-process destination).
 */
import { openIrrevon, RefdestAdapter, refdestDeclaration } from "../src/index.js";
import { createInProcessTransport, createRefdest } from "../src/refdest/index.js";

const destination = createRefdest({ tier: "C2", seed: 42 });
const adapter = new RefdestAdapter({
  baseUrl: "http://127.0.0.1:4100",
  declaration: refdestDeclaration("C2"),
  transport: createInProcessTransport(destination),
});
const irrevon = await openIrrevon({
  database: { memory: true },
  adapters: [adapter],
  config: { rereadGapSeconds: 0 },
});

const order = {
  schema_version: "1",
  stable_ids: { order_id: "9410", customer_ref: "C-0007" },
  effect_type: "order.create",
  scope: "acme-store/prod",
  effect_class: "IRREVERSIBLE",
  adapter_id: "refdest-c2",
  parameters: { line_items: [{ sku: "SKU-118", quantity: 2 }], shipping_method: "standard" },
  authority_ref: "auth_approved_task_18",
  stamped_at: new Date().toISOString(),
};

try {
  await irrevon.recover(); // always first after a start: adjudicate before re-dispatch
  const registered = await irrevon.register(order);
  console.log("registered", registered.effectId, registered.lifecycle);

  destination.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  const sent = await irrevon.dispatch(registered.effectId);
  console.log("dispatch", sent.status, sent.status === "dispatched" ? sent.lifecycle : "");

  const reconciled = await irrevon.reconcile(registered.effectId);
  console.log(
    "reconcile",
    reconciled.status,
    reconciled.status === "committed" ? reconciled.classification : "",
  );

  // The agent retries with re-worded arguments: same business facts, same record.
  const retry = await irrevon.register({
    ...order,
    parameters: { items: [{ sku: "SKU-118", qty: 2 }], shipping: "standard" },
  });
  console.log(
    "re-registered",
    retry.replayed ? "replayed" : "new",
    "variant",
    retry.parameterVariantDigest,
  );
  const again = await irrevon.dispatch(registered.effectId);
  console.log(
    "dispatch again",
    again.status,
    again.status === "denied" ? `${again.check}/${again.cause}` : "",
  );
  console.log("destination effects", destination.truthDump().effects.length);
} finally {
  await irrevon.close();
}
