/**
 * test/support/workbench-fixtures — a ledger with something to look at, written through the
 * public engine API against an in-process reference destination (C2), then the engine is
 * closed so only the workbench's read handle remains. Scenarios:
 *  - flagship: lost response ⇒ AMBIGUOUS ⇒ reconciled SETTLED_COMMITTED + CONFIRMED_UNIQUE,
 *    then a re-synthesized re-registration (parameter variant) denied by dedup;
 *  - settled: a clean OK dispatch (SETTLED_COMMITTED, UNRECONCILED);
 *  - persisted: registered, never dispatched;
 *  - ambiguous: request lost before the destination committed, not reconciled yet;
 *  - lost: the same, reconciled to SETTLED_FAILED + LOST.
 * Stable-id values are distinctive strings (never hex-like), so a test can scan every
 * response body for them.
 */
import type { IntentContractInput } from "../../src/core/contract-input.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { manualClock, type ManualClock } from "../../src/engine/clock.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import type { TestLedger } from "./databases.js";

/** Stable ids of each scenario. */
export interface SeededLedger {
  readonly flagship: string;
  readonly settled: string;
  readonly persisted: string;
  readonly ambiguous: string;
  readonly lost: string;
  /** Every raw stable-id value written (what no response may contain). */
  readonly rawStableIdValues: readonly string[];
}

/** Options of {@link seedWorkbenchLedger}. */
export interface SeedOptions {
  /** Stable ids of the flagship effect (default: distinctive test values). */
  readonly flagshipStableIds?: Readonly<Record<string, string>>;
}

const DISPATCH_DEADLINE_MS = 2_000;

const ORIGINAL = {
  line_items: [{ sku: "SKU-118", quantity: 2 }],
  shipping_method: "standard",
  note: "please deliver to the loading dock",
};
const RESYNTHESIZED = {
  items: [{ sku: "SKU-118", qty: 2, gift_wrap: false }],
  shipping: { method: "standard", priority: "normal" },
  customer_note: "Deliver at loading dock please!",
};

function contract(
  stableIds: Readonly<Record<string, string>>,
  overrides: Record<string, unknown> = {},
): IntentContractInput {
  return {
    schema_version: "1",
    stable_ids: stableIds,
    effect_type: "order.create",
    scope: "acme-store/prod",
    effect_class: "IRREVERSIBLE",
    adapter_id: "refdest-c2",
    parameters: ORIGINAL,
    authority_ref: "auth_approved_task_18",
    stamped_at: new Date().toISOString(),
    ...overrides,
  } as IntentContractInput;
}

async function must<T extends { status: string }>(
  what: string,
  outcome: Promise<T>,
  expected: string,
): Promise<T> {
  const got = await outcome;
  if (got.status !== expected)
    throw new Error(
      `fixture: ${what} gave ${got.status}, expected ${expected}: ${JSON.stringify(got)}`,
    );
  return got;
}

async function seedWith(
  irrevon: Irrevon,
  refdest: ReturnType<typeof createRefdest>,
  clock: ManualClock,
  options: SeedOptions,
): Promise<SeededLedger> {
  const ids = {
    flagship: options.flagshipStableIds ?? {
      order_id: "ORDER-RAW-FLAGSHIP-9410",
      customer_ref: "CUSTOMER-RAW-ALPHA-0007",
    },
    settled: { order_id: "ORDER-RAW-SETTLED-1001", customer_ref: "CUSTOMER-RAW-BRAVO-0008" },
    persisted: { order_id: "ORDER-RAW-PERSISTED-1002", customer_ref: "CUSTOMER-RAW-CHARLIE-0009" },
    ambiguous: { order_id: "ORDER-RAW-AMBIGUOUS-1003", customer_ref: "CUSTOMER-RAW-DELTA-0010" },
    lost: { order_id: "ORDER-RAW-LOST-1004", customer_ref: "CUSTOMER-RAW-ECHO-0011" },
  };

  const flagship = await irrevon.register(contract(ids.flagship));
  refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  await must("flagship dispatch", irrevon.dispatch(flagship.effectId), "dispatched");
  await must("flagship reconcile", irrevon.reconcile(flagship.effectId), "committed");
  await irrevon.register(
    contract(ids.flagship, { parameters: RESYNTHESIZED, authority_ref: "auth_approved_task_22" }),
  );
  await must("flagship re-dispatch", irrevon.dispatch(flagship.effectId), "denied");

  const settled = await irrevon.register(contract(ids.settled));
  await must("settled dispatch", irrevon.dispatch(settled.effectId), "dispatched");

  const persisted = await irrevon.register(contract(ids.persisted));

  const ambiguous = await irrevon.register(contract(ids.ambiguous));
  refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  await must("ambiguous dispatch", irrevon.dispatch(ambiguous.effectId), "dispatched");

  const lost = await irrevon.register(contract(ids.lost));
  refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  await must("lost dispatch", irrevon.dispatch(lost.effectId), "dispatched");
  // The absence rule: a dropped connection does not end the server's work, so ABSENT counts
  // only from the call's commit horizon (start + the 2 s dispatch deadline; lag PT0S).
  clock.advance(DISPATCH_DEADLINE_MS);
  // Absence needs a second probe a re-read gap later (0 s here); a few steps at most.
  for (let i = 0; i < 5; i += 1) {
    const outcome = await irrevon.reconcile(lost.effectId);
    if (outcome.status === "failed") break;
    if (i === 4)
      throw new Error(`fixture: lost reconcile never failed: ${JSON.stringify(outcome)}`);
  }

  return {
    flagship: flagship.effectId,
    settled: settled.effectId,
    persisted: persisted.effectId,
    ambiguous: ambiguous.effectId,
    lost: lost.effectId,
    rawStableIdValues: Object.values(ids).flatMap((s) => Object.values(s)),
  };
}

/** Writes the scenarios into `ledger` and closes the engine again. */
export async function seedWorkbenchLedger(
  ledger: TestLedger,
  options: SeedOptions = {},
): Promise<SeededLedger> {
  const refdest = createRefdest({ tier: "C2", seed: 42 });
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration: refdestDeclaration("C2"),
    transport: createInProcessTransport(refdest),
  });
  const clock = manualClock();
  const irrevon = await openIrrevon({
    database: ledger.app,
    adapters: [adapter],
    clock,
    config: {
      rereadGapSeconds: 0,
      dispatchDeadlineMs: DISPATCH_DEADLINE_MS,
      probeDeadlineMs: 2_000,
      leaseTtlMs: 60_000,
    },
    workerId: "workbench-fixture",
    crashPoints: NO_CRASH_POINTS,
  });
  try {
    return await seedWith(irrevon, refdest, clock, options);
  } finally {
    await irrevon.close();
  }
}

/**
 * Row count of every table in the public schema (facts, seeds, leases, the migration journal:
 * whatever exists, so a table added later is counted too), read as the superuser.
 */
export async function countRows(ledger: TestLedger): Promise<Record<string, number>> {
  const { rows: tables } = await ledger.superuser.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await ledger.superuser.query<{ n: unknown }>(
      `SELECT count(*) AS n FROM "${name}"`,
    );
    counts[name] = Number(rows[0]?.n);
  }
  return counts;
}
