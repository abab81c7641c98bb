/**
 * Issue 11: what one clean guarded effect costs the database, counted (never timed). Two
 * calls (register, then dispatch): one statement to register, one read of the claim inputs,
 * one locked claim, one receipt — 4 round trips, 3 durable commits. Fused
 * (`registerAndDispatch`): [BEGIN + register (+ inputs)], [claim + COMMIT], receipt — 3 round
 * trips on a server (5 calls on PGlite, which has no wire), 2 durable commits. The code before issue 11 took 41 round trips (5 transactions)
 * and 3 durable commits for the two calls, so these bounds fail on it.
 */
import { expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { countingDb, zeroCounts } from "../../src/bench/engine/counting-db.js";
import { countHotPath } from "../../src/bench/engine/hot-path.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { describeEachBackend, openTestLedger } from "../support/databases.js";
import { orderContract } from "./engine-support.js";

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

  it("recovery: a present effect costs one statement beyond the page reads (its settle reads its own clock)", async () => {
    const ledger = await openTestLedger(backend);
    const refdest = createRefdest({ tier: "C2", seed: 9 });
    const counting = countingDb(ledger.app);
    const engine = await openIrrevon({
      database: counting,
      adapters: [
        new RefdestAdapter({
          baseUrl: "http://127.0.0.1:4100",
          declaration: refdestDeclaration("C2"),
          transport: createInProcessTransport(refdest),
        }),
      ],
      crashPoints: NO_CRASH_POINTS,
      workerId: `hp-recovery-${backend}`,
      config: { dispatchDeadlineMs: 2_000, leaseTtlMs: 60_000 },
    });
    // Statements of one recovery of n AMBIGUOUS effects whose creates the destination committed.
    const recoveryStatements = async (n: number): Promise<number> => {
      for (let i = 0; i < n; i++) {
        refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
        const { dispatch } = await engine.registerAndDispatch(orderContract());
        expect(dispatch).toMatchObject({ lifecycle: "AMBIGUOUS" });
      }
      Object.assign(counting.counts, zeroCounts());
      const report = await engine.recover();
      expect(report).toMatchObject({ adjudicated: n, errors: [] });
      return counting.counts.standaloneStatements + counting.counts.statementsInTransactions;
    };
    try {
      const one = await recoveryStatements(1);
      const three = await recoveryStatements(3);
      // The page reads and the run's own rows are the same for both: the difference is two effects.
      expect((three - one) / 2).toBe(1);
    } finally {
      await engine.close();
      await ledger.close();
    }
  });
});
