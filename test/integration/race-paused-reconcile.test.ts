/**
 * Reference §12 process/test_races row, in-process on both backends: a retry arriving while
 * a reconciliation is paused between its probe and its settlement (seam reconcile.pre_settle)
 * gets `pending_reconciliation` and sends nothing; once the reconciliation finishes the effect
 * is SETTLED_COMMITTED + CONFIRMED_UNIQUE and a further retry is denied by dedup. One
 * destination effect throughout.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import type { CrashPoints, CrashSeam } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport } from "../../src/refdest/index.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend } from "../support/databases.js";
import { destinationEffects, openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

/** Crash points that pause at one seam until released, and say when they got there. */
function pauseAt(target: CrashSeam): { points: CrashPoints; reached: Promise<void>; release: () => void } {
  let release!: () => void;
  let signalReached!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (signalReached = r));
  return {
    points: {
      armed: true,
      hit: async (seam) => {
        if (seam !== target) return;
        signalReached();
        await gate;
      },
    },
    reached,
    release: () => release(),
  };
}

describeEachBackend("retry during a paused reconciliation", (backend) => {
  let f: EngineFixture;
  let reconciler: Irrevon | undefined;
  beforeEach(async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
  });
  afterEach(async () => {
    await reconciler?.close();
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("gets pending_reconciliation, sends nothing, and the effect settles once", async () => {
    const { effectId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ status: "dispatched", lifecycle: "AMBIGUOUS" });

    const pause = pauseAt("reconcile.pre_settle");
    reconciler = await openIrrevon({
      database: f.ledger.app,
      adapters: [new RefdestAdapter({ baseUrl: "http://127.0.0.1:4100", declaration: refdestDeclaration("C2"), transport: createInProcessTransport(f.refdest) })],
      config: { rereadGapSeconds: 0, dispatchDeadlineMs: 2_000, probeDeadlineMs: 2_000, leaseTtlMs: 60_000 },
      workerId: "paused-reconciler",
      crashPoints: pause.points,
    });
    const reconciling = reconciler.reconcile(effectId);
    await pause.reached;

    const retry = await f.irrevon.dispatch(effectId);
    expect(retry).toMatchObject({ status: "pending_reconciliation", frontier: "AMBIGUOUS" });
    expect(f.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(1);

    pause.release();
    expect(await reconciling).toMatchObject({ status: "committed", classification: "CONFIRMED_UNIQUE" });
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ status: "denied", check: "dedup" });
    expect(destinationEffects(f.refdest)).toBe(1);
  });
});
