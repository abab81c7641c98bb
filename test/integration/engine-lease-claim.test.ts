/**
 * The pre-send lease check looks at the lease the attempt was CLAIMED under (D2 fencing), on
 * both backends. Staged at the adapter.pre_call seam: the claim's lease is released, another
 * worker's recovery closes the attempt as LOST and reconciles it, and the lease keeper's
 * heartbeat re-registers under a new token. The dispatcher must not send: the time left on
 * the keeper belongs to the new token, and recovery has already decided this attempt. Its
 * absence counts once the released lease's cover has ended: then it is LOST.
 */
import { afterEach, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import type { CrashPoints, CrashSeam } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { releaseWorker } from "../../src/ledger/worker-leases.js";
import { createInProcessTransport } from "../../src/refdest/index.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

/** The shortest lease the config allows for 200 ms deadlines: the heartbeat runs every ~467 ms. */
const TIMING = { dispatchDeadlineMs: 200, probeDeadlineMs: 200, leaseTtlMs: 1_400 };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function latestLease(
  f: EngineFixture,
  workerId: string,
): Promise<{ token: number; event: string }> {
  const { rows } = await f.ledger.app.query<{ fencing_token: unknown; event: string }>(
    "SELECT fencing_token, event FROM worker_leases WHERE worker_id = $1 ORDER BY lease_seq DESC LIMIT 1",
    [workerId],
  );
  return { token: Number(rows[0]?.fencing_token), event: String(rows[0]?.event) };
}

describeEachBackend("dispatcher: the claim's own lease", (backend) => {
  let f: EngineFixture;
  let zombie: Irrevon | undefined;
  afterEach(async () => {
    await zombie?.close();
    zombie = undefined;
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("a lease re-registered between claim and send (attempt already closed by recovery) sends nothing", async () => {
    f = await openEngineFixture(backend, { config: { ...TIMING, rereadGapSeconds: 0 } });
    const rescuer = await f.openAnother("worker-rescuer");
    let staged = false;
    const crashPoints: CrashPoints = {
      armed: false,
      async hit(seam: CrashSeam) {
        if (seam !== "adapter.pre_call" || staged) return;
        staged = true;
        const claimed = await latestLease(f, "worker-zombie");
        await releaseWorker(f.ledger.app, {
          workerId: "worker-zombie",
          fencingToken: claimed.token,
        });
        expect(await rescuer.recover()).toMatchObject({ closedAttempts: 1, errors: [] });
        // Wait (bounded) for the keeper's heartbeat to re-register under a new token.
        for (let i = 0; i < 250; i += 1) {
          const now = await latestLease(f, "worker-zombie");
          if (now.token !== claimed.token && now.event === "register") return;
          await sleep(20);
        }
        throw new Error("the lease keeper did not re-register");
      },
    };
    zombie = await openIrrevon({
      database: f.ledger.app,
      adapters: [
        new RefdestAdapter({
          baseUrl: "http://127.0.0.1:4100",
          declaration: refdestDeclaration("C2"),
          transport: createInProcessTransport(f.refdest),
        }),
      ],
      clock: f.clock,
      config: { ...TIMING, rereadGapSeconds: 0 },
      workerId: "worker-zombie",
      crashPoints,
    });

    const { effectId } = await zombie.register(orderContract());
    const outcome = await zombie.dispatch(effectId);
    expect(staged).toBe(true);
    expect(f.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(0);
    // The attempt was recovery's: the dispatcher's own LOST is only a late response.
    expect(outcome).toMatchObject({
      status: "dispatched",
      transportOutcome: "LOST",
      receiptId: null,
    });
    // Recovery cannot know the call was never sent: the absence it proves counts only once the
    // released lease's cover has ended (the lease the claim was made under).
    expect(await zombie.status(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    f.clock.advance(TIMING.leaseTtlMs + 1_000);
    expect(await rescuer.reconcile(effectId)).toMatchObject({ status: "failed" });
    expect(await zombie.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_FAILED",
      classification: "LOST",
    });
  });
});
