/**
 * A C1 replay is sent only while it will ARRIVE inside the destination's idempotency window:
 * engine now + probe deadline + `replayWindowMarginSeconds` must not pass the window's end
 * (counted from the first claim of the execution). Otherwise the window is treated as closed
 * and the reconciler asks by status query. Tested on both backends with the reference
 * destination's virtual clock moved to one second before its window closes, so a replay sent
 * there would arrive after it and create a second effect.
 */
import { afterEach, expect, it } from "vitest";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

const WINDOW_SECONDS = 86_400; // the packaged C1 declaration: PT24H

async function attemptKinds(f: EngineFixture): Promise<string[]> {
  const { rows } = await f.ledger.app.query<{ kind: string }>(
    "SELECT kind FROM dispatch_attempts ORDER BY attempt_id",
  );
  return rows.map((r) => r.kind);
}

describeEachBackend("C1 replay window margin", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  /** Moves the engine clock so that "now" is `secondsBefore` before the window's end. */
  async function standBeforeEnd(secondsBefore: number): Promise<void> {
    const { rows } = await f.ledger.app.query<{ ms: string | number }>(
      `SELECT extract(epoch FROM (min(claimed_at) - now())) * 1000 AS ms FROM dispatch_attempts`,
    );
    f.clock.advance(Number(rows[0]?.ms) + (WINDOW_SECONDS - secondsBefore) * 1000);
    f.refdest.advanceClock(WINDOW_SECONDS - secondsBefore);
  }

  async function committedThenLost(): Promise<string> {
    const { effectId } = await f.irrevon.register(orderContract({ adapter_id: "refdest-c1" }));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    expect(destinationEffects(f.refdest)).toBe(1);
    return effectId;
  }

  it("one second before the window closes, no replay is sent: the status query settles it, one effect", async () => {
    f = await openEngineFixture(backend, { tier: "C1" });
    const effectId = await committedThenLost();
    // Both clocks stand one second before the window's end; a replay would land after it.
    await standBeforeEnd(1);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      classification: "CONFIRMED_UNIQUE",
      cause: "reconciled_present",
    });
    expect(destinationEffects(f.refdest)).toBe(1);
    expect(await attemptKinds(f)).toEqual(["primary"]);
  });

  it("inside the window by more than deadline + margin, the replay is sent and settles replay_ok", async () => {
    f = await openEngineFixture(backend, {
      tier: "C1",
      config: { replayWindowMarginSeconds: 120 },
    });
    const effectId = await committedThenLost();
    // deadline 2 s + margin 120 s: 200 s before the end is still safe.
    await standBeforeEnd(200);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      cause: "replay_ok",
    });
    expect(destinationEffects(f.refdest)).toBe(1);
    expect(await attemptKinds(f)).toEqual(["primary", "c1_replay_probe"]);
  });

  it("closer to the end than deadline + margin, the window counts as closed", async () => {
    f = await openEngineFixture(backend, {
      tier: "C1",
      config: { replayWindowMarginSeconds: 120 },
    });
    const effectId = await committedThenLost();
    await standBeforeEnd(100);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      cause: "reconciled_present",
    });
    expect(await attemptKinds(f)).toEqual(["primary"]);
  });
});
