/**
 * test/support/history/intents — intent contracts for the proof suites: one per order id,
 * each in its own slot unless a scope is given, with the intent id computed the way the
 * engine does (so a test knows an id even when the registration never committed).
 */
import { refdestDeclaration } from "../../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../../src/adapters/refdest-adapter.js";
import type { IntentContractInput } from "../../../src/core/contract-input.js";
import { deriveIdentity } from "../../../src/core/identity.js";

export interface IntentOptions {
  /** Slot = (scope, effect_type); default: a scope of its own per order. */
  readonly scope?: string;
  readonly effectType?: string;
  readonly adapterId?: string;
  readonly branchRef?: string;
  /** Extra parameters (payload only; never identity). */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

export interface Intent {
  readonly effectId: string;
  readonly operationId: string;
  readonly scope: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly contract: IntentContractInput;
  /** `REGISTER <json>` for the engine child. */
  readonly registerLine: string;
  readonly dispatchLine: string;
}

/** A contract for order `orderId` (the stable id) and its derived ids. */
export function intent(orderId: string, options: IntentOptions = {}): Intent {
  const effectType = options.effectType ?? "order.create";
  const scope = options.scope ?? `proof-store/${orderId}`;
  const stableIds = { order_id: orderId, customer_ref: "C-0007" };
  const parameters = {
    line_items: [{ sku: `SKU-${orderId}`, quantity: 1 }],
    ...options.parameters,
  };
  const contract: IntentContractInput = {
    schema_version: "1",
    stable_ids: stableIds,
    effect_type: effectType,
    scope,
    effect_class: "IRREVERSIBLE",
    adapter_id: options.adapterId ?? "refdest-c2",
    parameters,
    authority_ref: `auth_proof_${orderId}`,
    stamped_at: new Date().toISOString(),
    ...(options.branchRef === undefined ? {} : { branch_ref: options.branchRef }),
  };
  const effectId = deriveIdentity({
    effect_type: effectType,
    scope,
    stable_ids: stableIds,
  }).intentId;
  return {
    effectId,
    operationId: `${effectId}:0`,
    scope,
    parameters,
    contract,
    registerLine: `REGISTER ${JSON.stringify(contract)}`,
    dispatchLine: `DISPATCH ${effectId}`,
  };
}

/**
 * The control's mistake after a storage error: "the write failed, so it did not happen" —
 * send the same create again, straight to the destination, bypassing the ledger.
 */
export async function naiveResend(destinationUrl: string, a: Intent): Promise<void> {
  const naive = new RefdestAdapter({ baseUrl: destinationUrl, declaration: refdestDeclaration("C2") });
  await naive.dispatch(
    {
      operationId: a.operationId,
      effectType: "order.create",
      payload: a.parameters,
      clientRef: a.operationId,
      idempotencyKey: a.operationId,
      stableIds: {},
    },
    2_000,
  );
}
