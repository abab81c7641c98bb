/**
 * The engine's guard around adapter calls (engine/call-adapter): an ABSENT answer that also
 * names destination refs contradicts itself and is INDETERMINATE (an adapter contract
 * violation), and a dispatch that outlives its deadline is cancelled through the AbortSignal
 * the engine hands the adapter, waited for, and — if it still settles after the engine gave
 * up — handed back as a late result instead of being thrown away.
 */
import { describe, expect, it } from "vitest";
import type { Adapter, DispatchOrder, DispatchResult } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import {
  callDispatch,
  hasUnsettledCall,
  normaliseStatusResult,
} from "../../src/engine/call-adapter.js";

const OP = `${"b".repeat(64)}:0`;
const ORDER: DispatchOrder = {
  operationId: OP,
  effectType: "order.create",
  payload: { sku: "SKU-1" },
  clientRef: OP,
  idempotencyKey: OP,
  stableIds: { order_id: "1" },
};

function adapterWith(
  dispatch: (order: DispatchOrder, deadlineMs: number, signal?: AbortSignal) => Promise<DispatchResult>,
): Adapter {
  return {
    adapterId: "refdest-c2",
    declare: () => refdestDeclaration("C2"),
    validatePayload: () => undefined,
    dispatch,
    statusQuery: () => Promise.reject(new Error("unused")),
    listEffects: () => Promise.reject(new Error("unused")),
  };
}

describe("status answers that contradict themselves", () => {
  it("ABSENT that lists destination refs is INDETERMINATE, flagged as a contract violation", () => {
    const answer = normaliseStatusResult({
      result: "ABSENT",
      nFound: 0,
      destinationRefs: ["dest_1"],
      evidence: {},
    });
    expect(answer.result).toBe("INDETERMINATE");
    expect(answer.evidence["engine"]).toBe("adapter_contract_violation");
  });

  it("a plain ABSENT (n = 0, no refs) stays ABSENT", () => {
    expect(
      normaliseStatusResult({ result: "ABSENT", nFound: 0, destinationRefs: [], evidence: {} })
        .result,
    ).toBe("ABSENT");
  });
});

describe("a dispatch that outlives its deadline", () => {
  it("hands the adapter a signal that is aborted at the deadline", async () => {
    let aborted = false;
    const adapter = adapterWith(
      (_o, _d, signal) =>
        new Promise((resolve) => {
          signal?.addEventListener("abort", () => {
            aborted = true;
            resolve({ transportOutcome: "TIMEOUT", evidence: { aborted: true } });
          });
        }),
    );
    const wire = await callDispatch(adapter, ORDER, 50);
    expect(aborted).toBe(true);
    expect(wire.transportOutcome).toBe("TIMEOUT");
    expect(wire.late).toBeUndefined();
  });

  it("a call that ignores the signal is still awaited: its late result is returned, never dropped, and the call counts as unsettled until then", async () => {
    let finish: (r: DispatchResult) => void = () => undefined;
    const adapter = adapterWith(
      () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
    );
    const wire = await callDispatch(adapter, { ...ORDER, operationId: `${OP}x` }, 20, {
      settleGraceMs: 20,
    });
    expect(wire.transportOutcome).toBe("TIMEOUT");
    expect(wire.evidence["call_unsettled"]).toBe(true);
    expect(wire.late).toBeDefined();
    expect(hasUnsettledCall(adapter, `${OP}x`)).toBe(true);
    finish({ transportOutcome: "OK", destinationRef: "dest_9", evidence: {} });
    const late = await wire.late;
    expect(late).toMatchObject({ transportOutcome: "OK", destinationRef: "dest_9" });
    expect(hasUnsettledCall(adapter, `${OP}x`)).toBe(false);
  });
});
