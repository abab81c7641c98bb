/**
 * test/integration/engine-support — an engine wired to an in-process reference destination
 * on a fresh test ledger (either backend), with a manual clock, plus intent-contract builders.
 * Not a test file; imported by the engine-, gate-, registrar- and reconcile- suites.
 */
import type { IntentContractInput } from "../../src/core/contract-input.js";
import { randomBytes } from "node:crypto";
import type { CapabilityDeclaration } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { manualClock, type ManualClock } from "../../src/engine/clock.js";
import type { EngineConfig } from "../../src/engine/config.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import { openTestLedger, type Backend, type TestLedger } from "../support/databases.js";

export interface EngineFixture {
  readonly ledger: TestLedger;
  readonly refdest: Refdest;
  readonly irrevon: Irrevon;
  readonly clock: ManualClock;
  readonly adapterId: string;
  /** Opens a second engine (another worker) on the same ledger and destination. */
  openAnother(workerId: string, config?: Partial<EngineConfig>): Promise<Irrevon>;
  close(): Promise<void>;
}

export interface FixtureOptions {
  readonly tier?: "C1" | "C2" | "C3";
  readonly lagSeconds?: number;
  /** Replace the declaration (e.g. to drop client_ref from queryable.by). */
  readonly declaration?: CapabilityDeclaration;
  readonly config?: Partial<EngineConfig>;
  readonly workerId?: string;
}

/** Opens ledger + refdest + engine. Always `close()` in afterEach. */
export async function openEngineFixture(
  backend: Backend,
  options: FixtureOptions = {},
): Promise<EngineFixture> {
  const tier = options.tier ?? "C2";
  const ledger = await openTestLedger(backend);
  const refdest = createRefdest({
    tier,
    seed: 42,
    ...(options.lagSeconds === undefined ? {} : { lagSeconds: options.lagSeconds }),
  });
  const declaration =
    options.declaration ??
    refdestDeclaration(
      tier,
      options.lagSeconds === undefined ? {} : { lagSeconds: options.lagSeconds },
    );
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration,
    transport: createInProcessTransport(refdest),
  });
  const clock = manualClock();
  const open = (workerId: string, config?: Partial<EngineConfig>): Promise<Irrevon> =>
    openIrrevon({
      database: ledger.app,
      adapters: [adapter],
      clock,
      config: {
        rereadGapSeconds: 60,
        dispatchDeadlineMs: 2_000,
        probeDeadlineMs: 2_000,
        leaseTtlMs: 60_000,
        ...options.config,
        ...config,
      },
      workerId,
      crashPoints: NO_CRASH_POINTS,
    });
  const irrevon = await open(options.workerId ?? "worker-a");
  const others: Irrevon[] = [];
  return {
    ledger,
    refdest,
    irrevon,
    clock,
    adapterId: adapter.adapterId,
    async openAnother(workerId, config) {
      const other = await open(workerId, config);
      others.push(other);
      return other;
    },
    async close() {
      for (const o of others) await o.close();
      await irrevon.close();
      await ledger.close();
    },
  };
}

/** The flagship order's original parameters (reference §10.3). */
export const ORIGINAL_PARAMS = {
  line_items: [{ sku: "SKU-118", quantity: 2 }],
  shipping_method: "standard",
  note: "please deliver to the loading dock",
};

/** The agent's re-synthesized parameters for the same order. */
export const RESYNTHESIZED_PARAMS = {
  items: [{ sku: "SKU-118", qty: 2, gift_wrap: false }],
  shipping: { method: "standard", priority: "normal" },
  customer_note: "Deliver at loading dock please!",
};

/** An intent contract; a fresh order id unless `stable_ids` is given. */
export function orderContract(overrides: Record<string, unknown> = {}): IntentContractInput {
  // Tests pass deliberately invalid overrides too: run-time validation is under test there.
  return {
    schema_version: "1",
    stable_ids: { order_id: randomBytes(5).toString("hex"), customer_ref: "C-0007" },
    effect_type: "order.create",
    scope: "acme-store/prod",
    effect_class: "IRREVERSIBLE",
    adapter_id: "refdest-c2",
    parameters: ORIGINAL_PARAMS,
    authority_ref: "auth_approved_task_18",
    stamped_at: new Date().toISOString(),
    ...overrides,
  } as IntentContractInput;
}

/** Effects the destination actually holds (ground truth). */
export function destinationEffects(refdest: Refdest): number {
  return refdest.truthDump().effects.length;
}

/** A single-number query (`SELECT count(*) AS n …`) on the ledger as irrevon_app. */
export async function countRows(
  f: EngineFixture,
  sql: string,
  params: unknown[] = [],
): Promise<number> {
  const { rows } = await f.ledger.app.query<{ n: unknown }>(sql, params);
  return Number(rows[0]?.n ?? 0);
}
