/**
 * engine/gated-send `uncoveredCall`: a claimed call (a first send or a C1 replay) is sent only
 * while the lease it was claimed under still covers its deadline. Otherwise it is LOST,
 * `send_state: not_sent`, named after why: too little of the lease left, or a newer lease of
 * the same keeper superseded it. Recovery dates the absence of an attempt whose lease was
 * released or superseded from the end of that lease's cover, so nothing may leave after it.
 */
import { describe, expect, it } from "vitest";
import { uncoveredCall } from "../../src/engine/gated-send.js";
import type { LeaseKeeper } from "../../src/engine/lease-keeper.js";
import type { WorkerLease } from "../../src/ledger/types.js";

const CLAIMED: WorkerLease = { workerId: "w", fencingToken: 7 };

/** A keeper whose claimed lease has `heldMs` left and whose current lease has `currentMs`. */
function keeper(heldMs: number, currentMs: number): { lease: LeaseKeeper } {
  return {
    lease: {
      remainingMs: (heldAs?: WorkerLease) => (heldAs === undefined ? currentMs : heldMs),
    } as unknown as LeaseKeeper,
  };
}

describe("uncoveredCall", () => {
  it("sends while the claimed lease covers the deadline", () => {
    expect(uncoveredCall(keeper(5_001, 5_001), CLAIMED, 5_000)).toBeNull();
  });

  it("does not send with the deadline not covered: lease_margin_exhausted", () => {
    expect(uncoveredCall(keeper(5_000, 5_000), CLAIMED, 5_000)).toEqual({
      transportOutcome: "LOST",
      evidence: { send_state: "not_sent", engine: "lease_margin_exhausted" },
    });
  });

  it("does not send under a superseded lease, whatever the new one holds: lease_superseded", () => {
    expect(uncoveredCall(keeper(0, 60_000), CLAIMED, 5_000)).toEqual({
      transportOutcome: "LOST",
      evidence: { send_state: "not_sent", engine: "lease_superseded" },
    });
  });
});
