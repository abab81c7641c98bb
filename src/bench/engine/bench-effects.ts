/**
 * bench/engine/bench-effects — the workload: one intent contract per index, each in its own
 * slot (so no effect ever waits on another's open attempt), and an engine wired to a
 * zero-latency reference destination (in-process transport) with no crash points armed.
 * Imports: core, engine, adapters, refdest.
 */
import type { DispatchOrder } from "../../adapters/contract.js";
import { refdestDeclaration } from "../../adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../adapters/refdest-adapter.js";
import type { IntentContractInput } from "../../core/contract-input.js";
import type { Db } from "../../db/db.js";
import { NO_CRASH_POINTS } from "../../engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../refdest/index.js";

/** The contract of effect `index` of run `tag`. */
export function benchContract(tag: string, index: number): IntentContractInput {
  return {
    schema_version: "1",
    stable_ids: { order_id: `${tag}-${index}` },
    effect_type: "order.create",
    scope: `bench/${tag}/${index}`,
    effect_class: "IRREVERSIBLE",
    adapter_id: "refdest-c2",
    parameters: { line_items: [{ sku: `SKU-${index % 97}`, quantity: 1 + (index % 3) }] },
    authority_ref: `auth_bench_${tag}`,
    stamped_at: new Date().toISOString(),
  };
}

/** The same effect sent straight to the destination (no ledger): the baseline call. */
export function directOrder(tag: string, index: number): DispatchOrder {
  const ref = `direct-${tag}-${index}`;
  return {
    operationId: ref,
    effectType: "order.create",
    payload: { line_items: [{ sku: `SKU-${index % 97}`, quantity: 1 + (index % 3) }] },
    clientRef: ref,
    idempotencyKey: ref,
    stableIds: { order_id: `${tag}-${index}` },
  };
}

/** A C2 adapter bound to its own in-memory reference destination. */
export function zeroLatencyAdapter(seed = 1): RefdestAdapter {
  return new RefdestAdapter({
    baseUrl: "http://127.0.0.1:9",
    declaration: refdestDeclaration("C2"),
    transport: createInProcessTransport(createRefdest({ tier: "C2", seed })),
  });
}

/** An engine over `database` and `adapter`, hooks disarmed, long lease (no renewals in a run). */
export function openBenchEngine(
  database: Db | { readonly url: string },
  adapter: RefdestAdapter,
  workerId: string,
): Promise<Irrevon> {
  return openIrrevon({
    database,
    adapters: [adapter],
    crashPoints: NO_CRASH_POINTS,
    workerId,
  });
}

/**
 * The two ways the bench sends a guarded effect: `fused` is register-and-dispatch-now
 * (`registerAndDispatch`: registration and claim in one transaction, then the receipt: two
 * durable commits), the path the per-effect goals of issue 11 are judged on; `two_call` is
 * `register` then `dispatch` (three durable commits), reported beside it.
 */
export type GuardedPath = "fused" | "two_call";

/** Sends one effect along `path`; throws unless it settled COMMITTED. */
export async function guardedEffect(
  engine: Irrevon,
  contract: IntentContractInput,
  path: GuardedPath,
): Promise<void> {
  const outcome =
    path === "fused"
      ? (await engine.registerAndDispatch(contract)).dispatch
      : await engine.dispatch((await engine.register(contract)).effectId);
  if (outcome.status !== "dispatched" || outcome.lifecycle !== "SETTLED_COMMITTED") {
    throw new Error(`bench effect (${path}) did not commit: ${JSON.stringify(outcome)}`);
  }
}
