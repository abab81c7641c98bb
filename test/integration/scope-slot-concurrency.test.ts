/**
 * Issue 11 item 3 (docs/decisions/0008-scope-slot.md): with `scopeSlot: "inexact_attribution"`
 * the (scope, effect_type) slot serializes only destinations that cannot attribute an effect
 * to its operation exactly. Eight distinct orders in one scope on a C2 destination (queryable
 * client ref, attribution "exact"), dispatched together, are all in flight at once — the
 * destination holds every call until all eight arrived — and none is scope_busy. On a C3
 * destination (attribution impossible) the slot stays: a second order waits up to
 * `scopeBusyWaitMs` and then answers scope_busy with `waitedMs`, or goes through when the
 * first settles inside the wait.
 */
import { expect, it } from "vitest";
import type { Adapter, DispatchOrder } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import type { EngineConfig } from "../../src/engine/config.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { orderContract } from "./engine-support.js";

/** A refdest adapter whose wire calls wait at `hold` before reaching the destination. */
function heldAdapter(tier: "C2" | "C3", hold: (order: DispatchOrder) => Promise<void>): Adapter {
  const inner = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration: refdestDeclaration(tier),
    transport: createInProcessTransport(createRefdest({ tier, seed: 7 })),
  });
  return {
    adapterId: inner.adapterId,
    declare: () => inner.declare(),
    validatePayload: (t, p) => inner.validatePayload(t, p),
    async dispatch(order, deadlineMs, signal) {
      await hold(order);
      return inner.dispatch(order, deadlineMs, signal);
    },
    statusQuery: (key, deadlineMs, signal) => inner.statusQuery(key, deadlineMs, signal),
    listEffects: (window, cursor, deadlineMs) => inner.listEffects(window, cursor, deadlineMs),
  };
}

async function engineOn(
  ledger: TestLedger,
  adapter: Adapter,
  config: Partial<EngineConfig>,
  workerId = `slot-${ledger.backend}`,
): Promise<Irrevon> {
  return openIrrevon({
    database: ledger.app,
    adapters: [adapter],
    crashPoints: NO_CRASH_POINTS,
    workerId,
    config: { dispatchDeadlineMs: 20_000, leaseTtlMs: 60_000, ...config },
  });
}

describeEachBackend("scope slot: exact attribution dispatches concurrently", (backend) => {
  it("8 distinct orders in one scope on C2, released together: all in flight at once, no scope_busy", async () => {
    const ledger = await openTestLedger(backend);
    let inFlight = 0;
    let maxInFlight = 0;
    let releaseAll: () => void = () => undefined;
    const allArrived = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    // Released when all eight are in flight; after 15 s regardless, so a failure is reported.
    const fallback = setTimeout(releaseAll, 15_000);
    const adapter = heldAdapter("C2", async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (inFlight === 8) releaseAll();
      await allArrived;
    });
    const irrevon = await engineOn(ledger, adapter, { scopeSlot: "inexact_attribution" });
    try {
      const scope = `slot-exact-${backend}`;
      const effects: string[] = [];
      for (let i = 0; i < 8; i++)
        effects.push(
          (await irrevon.register(orderContract({ scope, adapter_id: adapter.adapterId })))
            .effectId,
        );
      const outcomes = await Promise.all(effects.map((id) => irrevon.dispatch(id)));
      expect(outcomes.map((o) => o.status)).toEqual(Array(8).fill("dispatched"));
      expect(outcomes.map((o) => (o.status === "dispatched" ? o.lifecycle : o.status))).toEqual(
        Array(8).fill("SETTLED_COMMITTED"),
      );
      expect(maxInFlight).toBe(8);
    } finally {
      clearTimeout(fallback);
      await irrevon.close();
      await ledger.close();
    }
  });
});

describeEachBackend(
  "scope slot: inexact attribution keeps the slot, with a bounded wait",
  (backend) => {
    it("C3: a second order waits scopeBusyWaitMs, then scope_busy with waitedMs; inside the wait it goes through", async () => {
      const ledger = await openTestLedger(backend);
      let releaseFirst: () => void = () => undefined;
      const firstHeld = new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      let arrived: () => void = () => undefined;
      const firstArrived = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      let calls = 0;
      const adapter = heldAdapter("C3", async () => {
        calls += 1;
        if (calls === 1) {
          arrived();
          await firstHeld;
        }
      });
      const irrevon = await engineOn(ledger, adapter, {
        scopeSlot: "inexact_attribution",
        scopeBusyWaitMs: 400,
      });
      // Another worker that waits up to the cap: it goes through once the slot frees.
      const patient = await engineOn(
        ledger,
        adapter,
        { scopeSlot: "inexact_attribution", scopeBusyWaitMs: 60_000 },
        `slot-patient-${backend}`,
      );
      try {
        const scope = `slot-inexact-${backend}`;
        const register = async (): Promise<string> =>
          (await irrevon.register(orderContract({ scope, adapter_id: adapter.adapterId })))
            .effectId;
        const a = await register();
        const b = await register();
        const c = await register();
        const first = irrevon.dispatch(a);
        await firstArrived;
        const busy = await irrevon.dispatch(b);
        expect(busy).toMatchObject({ status: "scope_busy", blockingEffectId: a });
        expect(busy.status === "scope_busy" ? busy.waitedMs : -1).toBeGreaterThanOrEqual(400);
        // Inside the wait: the first call settles while the third order waits for the slot.
        const third = patient.dispatch(c);
        setTimeout(releaseFirst, 50);
        expect(await first).toMatchObject({ status: "dispatched" });
        expect(await third).toMatchObject({ status: "dispatched" });
        expect(calls).toBe(2);
      } finally {
        releaseFirst();
        await patient.close();
        await irrevon.close();
        await ledger.close();
      }
    });
  },
);
