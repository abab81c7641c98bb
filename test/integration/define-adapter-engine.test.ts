/**
 * An adapter built with defineAdapter runs in the unchanged engine: a plain dispatch settles
 * COMMITTED from the receipt, and a create whose response is lost after the destination
 * committed goes AMBIGUOUS and reconciles by client ref to SETTLED_COMMITTED +
 * CONFIRMED_UNIQUE with no second create (PGlite, one ledger for the file; the engine path is
 * backend-independent).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../src/engine/clock.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createRefdest, type Refdest } from "../../src/refdest/index.js";
import { openTestLedger, type TestLedger } from "../support/databases.js";
import { definedRefdestAdapter } from "../support/defined-refdest-adapter.js";
import { orderContract } from "./engine-support.js";

describe("engine with a defineAdapter adapter (pglite)", () => {
  let ledger: TestLedger;
  let refdest: Refdest;
  let irrevon: Irrevon;
  beforeAll(async () => {
    ledger = await openTestLedger("pglite");
    refdest = createRefdest({ tier: "C2", seed: 42 });
    irrevon = await openIrrevon({
      database: ledger.app,
      adapters: [definedRefdestAdapter(refdest)],
      clock: manualClock(),
      config: {
        rereadGapSeconds: 0,
        dispatchDeadlineMs: 2_000,
        probeDeadlineMs: 2_000,
        leaseTtlMs: 60_000,
      },
      workerId: "worker-a",
      crashPoints: NO_CRASH_POINTS,
    });
  });
  afterAll(async () => {
    await irrevon.close();
    await ledger.close();
  });

  it("a plain dispatch settles COMMITTED with the destination's ref", async () => {
    const r = await irrevon.register(orderContract({ adapter_id: "refdest-defined-c2" }));
    const d = await irrevon.dispatch(r.effectId);
    expect(d).toMatchObject({
      status: "dispatched",
      transportOutcome: "OK",
      lifecycle: "SETTLED_COMMITTED",
    });
    expect(refdest.truthDump().effects).toHaveLength(1);
  });

  // Runs after the test above on the same ledger and destination (one ledger keeps the file fast).
  it("a lost response reconciles by client ref to COMMITTED + CONFIRMED_UNIQUE, no second create", async () => {
    const r = await irrevon.register(orderContract({ adapter_id: "refdest-defined-c2" }));
    refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const d = await irrevon.dispatch(r.effectId);
    expect(d).toMatchObject({
      status: "dispatched",
      transportOutcome: "LOST",
      lifecycle: "AMBIGUOUS",
    });
    const rec = await irrevon.reconcile(r.effectId);
    expect(rec).toMatchObject({
      status: "committed",
      classification: "CONFIRMED_UNIQUE",
      cause: "reconciled_present",
    });
    expect(refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(2);
    expect(refdest.truthDump().effects).toHaveLength(2);
  });
});
