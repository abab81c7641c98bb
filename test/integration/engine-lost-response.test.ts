/**
 * The flagship path on both backends: a C2 dispatch whose response is lost after the
 * destination committed goes AMBIGUOUS, reconciles by client ref to SETTLED_COMMITTED +
 * CONFIRMED_UNIQUE with no second create, and a re-registration with re-synthesized
 * parameters collapses onto the same record and is denied by dedup, citing the settled
 * execution and the new parameter variant.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { canonicalDigest } from "../../src/core/canonical.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  RESYNTHESIZED_PARAMS,
  type EngineFixture,
} from "./engine-support.js";

describeEachBackend("engine: lost response on C2", (backend) => {
  let f: EngineFixture;
  beforeEach(async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
  });
  afterEach(async () => {
    await f.close();
  });

  it("settles COMMITTED + CONFIRMED_UNIQUE without a second create, then dedup denies the re-synthesis", async () => {
    const contract = orderContract({ stable_ids: { order_id: "9410", customer_ref: "C-0007" } });
    const registered = await f.irrevon.register(contract);
    expect(registered.effectId).toBe(
      "0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5",
    );
    expect(registered.lifecycle).toBe("PERSISTED");
    expect(registered.replayed).toBe(false);

    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const dispatched = await f.irrevon.dispatch(registered.effectId);
    expect(dispatched.status).toBe("dispatched");
    if (dispatched.status !== "dispatched") return;
    expect(dispatched.transportOutcome).toBe("LOST");
    expect(dispatched.lifecycle).toBe("AMBIGUOUS");
    expect(destinationEffects(f.refdest)).toBe(1);

    // Dispatching again while AMBIGUOUS sends nothing.
    const again = await f.irrevon.dispatch(registered.effectId);
    expect(again.status).toBe("pending_reconciliation");

    const reconciled = await f.irrevon.reconcile(registered.effectId);
    expect(reconciled).toMatchObject({
      status: "committed",
      classification: "CONFIRMED_UNIQUE",
      cause: "reconciled_present",
    });
    expect(destinationEffects(f.refdest)).toBe(1);
    const creates = f.refdest.requestLog().filter((e) => e.op === "create");
    expect(creates).toHaveLength(1);

    const replay = await f.irrevon.register({
      ...contract,
      parameters: RESYNTHESIZED_PARAMS,
      authority_ref: "auth_approved_task_22",
    });
    expect(replay.effectId).toBe(registered.effectId);
    expect(replay.replayed).toBe(true);
    expect(replay.lifecycle).toBe("SETTLED_COMMITTED");
    expect(replay.parameterVariantDigest).toBe(canonicalDigest(RESYNTHESIZED_PARAMS));
    expect(replay.parameterVariantDigest).toBe(
      "sha256:074abd639c1ad62f7ad769c6261bfa1f7b93021f8171644ebe3d4ce3df98c2cd",
    );
    expect(replay.authorityRefresh).toBe(true);

    const denied = await f.irrevon.dispatch(registered.effectId);
    expect(denied.status).toBe("denied");
    if (denied.status !== "denied") return;
    expect(denied.check).toBe("dedup");
    expect(denied.cause).toBe("duplicate_intent");
    const blocking = denied.evidence["blocking_executions"] as Array<Record<string, unknown>>;
    expect(blocking).toHaveLength(1);
    expect(blocking[0]).toMatchObject({
      frontier: "SETTLED_COMMITTED",
      operation_id: `${registered.effectId}:0`,
    });
    expect(denied.evidence["parameter_variants"]).toEqual([replay.parameterVariantDigest]);
    expect(destinationEffects(f.refdest)).toBe(1);

    const status = await f.irrevon.status(registered.effectId);
    expect(status).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      classification: "CONFIRMED_UNIQUE",
      resolution: "CLOSED",
    });
    const inspection = await f.irrevon.inspect(registered.effectId);
    expect(inspection.integrity.matches).toBe(true);
    expect(inspection.timeline.map((t) => (t as { to_state: string }).to_state)).toEqual([
      "INTENDED",
      "PERSISTED",
      "DISPATCHED",
      "AMBIGUOUS",
      "SETTLED_COMMITTED",
    ]);
    await expectAuditClean(f.ledger);
  });
});
