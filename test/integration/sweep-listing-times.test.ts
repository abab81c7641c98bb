/**
 * The sweep takes destination time from the listed effects' `createdAt`, so a listing whose
 * times are not RFC 3339 with an offset is malformed (`destination_unavailable`, retryable)
 * and records nothing: a zone-less time would be read in this host's zone, hours off, and one
 * such time ahead would move every pending ref past the orphan grace at once.
 */
import { afterEach, expect, it } from "vitest";
import type { Adapter } from "../../src/adapters/contract.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { countRows } from "../support/ledger-fixtures.js";
import { stubAdapter } from "../support/stub-adapter.js";

/** A destination listing one order created at `createdAt`. */
function listingOf(createdAt: string): Adapter {
  return stubAdapter("listing-c2", {
    listEffects: async () => ({
      effects: [
        {
          destinationRef: "ord_1",
          effectType: "order.create",
          clientRef: null,
          createdAt,
          status: "created",
        },
      ],
      nextCursor: null,
    }),
  });
}

describeEachBackend("sweep: listed times", (backend) => {
  let ledger: TestLedger | undefined;
  let engine: Irrevon | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    if (ledger !== undefined) await expectAuditClean(ledger);
    await ledger?.close();
    ledger = undefined;
  });

  it("a zone-less createdAt makes the listing malformed; nothing is recorded", async () => {
    ledger = await openTestLedger(backend);
    engine = await openIrrevon({
      database: ledger.app,
      adapters: [listingOf("2026-12-08T10:00:00")],
      workerId: "worker-sweep-times",
      crashPoints: NO_CRASH_POINTS,
    });
    await expect(engine.sweep("listing-c2")).rejects.toMatchObject({
      code: "destination_unavailable",
      retryable: true,
    });
    expect(await countRows(ledger.superuser, "sweep_runs")).toBe(0);
    expect(await countRows(ledger.superuser, "sweep_sightings")).toBe(0);
  });

  it("the same time with its offset is listed", async () => {
    ledger = await openTestLedger(backend);
    engine = await openIrrevon({
      database: ledger.app,
      adapters: [listingOf(new Date().toISOString())],
      workerId: "worker-sweep-times",
      crashPoints: NO_CRASH_POINTS,
    });
    expect(await engine.sweep("listing-c2")).toMatchObject({ listed: 1, unmatched: 1 });
  });
});
