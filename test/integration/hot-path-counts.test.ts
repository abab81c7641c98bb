/**
 * Issue 11: what one clean guarded effect costs the database, counted (never timed). Two
 * calls (register, then dispatch): one statement to register, one read of the claim inputs,
 * one locked claim, one receipt — 4 round trips, 3 durable commits. Fused
 * (`registerAndDispatch`): [BEGIN + register (+ inputs)], [claim + COMMIT], receipt — 3 round
 * trips on a server (5 calls on PGlite, which has no wire), 2 durable commits. The code before issue 11 took 41 round trips (5 transactions)
 * and 3 durable commits for the two calls, so these bounds fail on it.
 */
import { expect, it } from "vitest";
import { countHotPath } from "../../src/bench/engine/hot-path.js";
import { describeEachBackend, openTestLedger } from "../support/databases.js";

describeEachBackend("hot path: round trips and durable commits per clean effect", (backend) => {
  it("two calls: 4 round trips, no explicit transaction, 3 durable commits; fused and run(): 2 durable commits", async () => {
    const ledger = await openTestLedger(backend);
    try {
      const twoCall = await countHotPath(ledger.app, ledger.superuser, "two_call", {
        effects: 3,
        tag: `hp-${backend}`,
      });
      expect(twoCall).toMatchObject({
        roundTrips: 4,
        statements: 4,
        transactions: 0,
        durableCommits: 3,
      });
      const fused = await countHotPath(ledger.app, ledger.superuser, "fused", {
        effects: 3,
        tag: `hp-${backend}`,
      });
      // On a server BEGIN travels with the registration and COMMIT with the claim: 3 round
      // trips. PGlite (no wire) sends them on their own: 5 calls.
      expect(fused).toMatchObject({
        roundTrips: backend === "postgres" ? 3 : 5,
        statements: 3,
        transactions: 1,
        durableCommits: 2,
      });
      // run() takes the fused path: the same two durable commits (it also reads the recorded
      // response for its result, so it has more round trips than registerAndDispatch).
      const run = await countHotPath(ledger.app, ledger.superuser, "run", {
        effects: 3,
        tag: `hp-${backend}`,
      });
      expect(run).toMatchObject({ transactions: 1, durableCommits: 2 });
      expect(run.roundTrips).toBeLessThanOrEqual(8);
    } finally {
      await ledger.close();
    }
  });
});
