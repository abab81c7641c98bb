/**
 * cli/demo/demo-fixture — the flagship demo's business facts: order 9410 for customer
 * C-0007, created in acme-store/prod, and the two wordings of it an agent produces (the
 * original and a re-synthesis with different parameters and the same stable ids).
 */

export const DEMO_ADAPTER_ID = "refdest-c2";
export const DEMO_EFFECT_TYPE = "order.create";
export const DEMO_SCOPE = "acme-store/prod";
export const DEMO_STABLE_IDS = { order_id: "9410", customer_ref: "C-0007" } as const;
/** The B5 runtime's stable workflow operation id for the same order. */
export const B5_WORKFLOW_ID = "order-9410";

export const ORIGINAL_PARAMETERS = {
  line_items: [{ sku: "SKU-118", quantity: 2 }],
  shipping_method: "standard",
  note: "please deliver to the loading dock",
};

export const RESYNTHESIZED_PARAMETERS = {
  items: [{ sku: "SKU-118", qty: 2, gift_wrap: false }],
  shipping: { method: "standard", priority: "normal" },
  customer_note: "Deliver at loading dock please!",
};

/** The intent contract as the agent's tool call would submit it. */
export function demoContract(parameters: Record<string, unknown>, authorityRef: string, stampedAt: string): Record<string, unknown> {
  return {
    schema_version: "1",
    stable_ids: { ...DEMO_STABLE_IDS },
    effect_type: DEMO_EFFECT_TYPE,
    scope: DEMO_SCOPE,
    effect_class: "IRREVERSIBLE",
    adapter_id: DEMO_ADAPTER_ID,
    parameters,
    authority_ref: authorityRef,
    stamped_at: stampedAt,
  };
}
