/**
 * `registerAndDispatch` (issue 11): the registration and the claim in one transaction. A clean
 * effect settles COMMITTED with one wire call; a payload the adapter refuses is payload_invalid
 * and writes nothing at all (the registration rolls back with it); a replay of the same contract
 * adjudicates the replay and is denied by dedup, never sent again. The auditor stays clean.
 */
import { expect, it } from "vitest";
import type { Adapter } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { IrrevonError } from "../../src/core/errors.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger } from "../support/databases.js";
import { orderContract } from "./engine-support.js";

describeEachBackend("registerAndDispatch", (backend) => {
  it("clean, refused payload, replay", async () => {
    const ledger = await openTestLedger(backend);
    const refdest = createRefdest({ tier: "C2", seed: 3 });
    const inner = new RefdestAdapter({
      baseUrl: "http://127.0.0.1:4100",
      declaration: refdestDeclaration("C2"),
      transport: createInProcessTransport(refdest),
    });
    // Refuses any payload that asks to be refused (as a real adapter refuses a bad field).
    const adapter: Adapter = {
      adapterId: inner.adapterId,
      declare: () => inner.declare(),
      validatePayload(effectType, payload) {
        if (payload["refuse"] === true)
          throw new IrrevonError("payload_invalid", "refused", { details: { path: "refuse" } });
        inner.validatePayload(effectType, payload);
      },
      dispatch: (order, deadlineMs, signal) => inner.dispatch(order, deadlineMs, signal),
      statusQuery: (key, deadlineMs, signal) => inner.statusQuery(key, deadlineMs, signal),
      listEffects: (window, cursor, deadlineMs) => inner.listEffects(window, cursor, deadlineMs),
    };
    const irrevon = await openIrrevon({
      database: ledger.app,
      adapters: [adapter],
      crashPoints: NO_CRASH_POINTS,
      workerId: `fused-${backend}`,
    });
    const count = async (table: string): Promise<number> =>
      Number(
        (await ledger.app.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n,
      );
    const creates = (): number => refdest.requestLog().filter((e) => e.op === "create").length;
    try {
      const contract = orderContract();
      const first = await irrevon.registerAndDispatch(contract);
      expect(first.registration).toMatchObject({ replayed: false, lifecycle: "PERSISTED" });
      expect(first.dispatch).toMatchObject({
        status: "dispatched",
        effectId: first.registration.effectId,
        operationId: first.registration.operationId,
        lifecycle: "SETTLED_COMMITTED",
      });
      expect(creates()).toBe(1);

      await expect(
        irrevon.registerAndDispatch(orderContract({ parameters: { refuse: true } })),
      ).rejects.toMatchObject({ code: "payload_invalid" });
      expect(await count("effect_records")).toBe(1);
      expect(await count("effect_executions")).toBe(1);
      expect(await count("gate_decisions")).toBe(1);

      const replay = await irrevon.registerAndDispatch(contract);
      expect(replay.registration).toMatchObject({
        replayed: true,
        effectId: first.registration.effectId,
      });
      expect(replay.dispatch).toMatchObject({ status: "denied", check: "dedup" });
      expect(creates()).toBe(1);
      expect(await count("dispatch_attempts")).toBe(1);
      await expectAuditClean(ledger);
    } finally {
      await irrevon.close();
      await ledger.close();
    }
  });
});
