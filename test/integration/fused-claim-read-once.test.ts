/**
 * Migration 0053: a claim in the same transaction as the registration that read its inputs
 * (the fused path: registerAndDispatch, run()) decides on that read instead of reading again,
 * and only then. Observable through a fact no lock covers, a deny entry written between the two
 * statements: a claim that reads again sees it and answers 'stale' (nothing written); a claim
 * that uses the registration's read does not. Checked: the fused claim uses the read once;
 * another slot choice, another transaction, a registration in between, or a second claim in
 * the same transaction reads again (so a claim is never written on a version it did not
 * re-check unless the registration just read it under the same locks).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { declarationDigest } from "../../src/adapters/declaration.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { validateIntentContract } from "../../src/core/contract.js";
import type { Queryable } from "../../src/db/db.js";
import { claimOnInputs } from "../../src/ledger/claim-dispatch.js";
import type { ClaimInputs } from "../../src/ledger/gate-inputs.js";
import { registerIn } from "../../src/ledger/register-intent.js";
import { registerWorker } from "../../src/ledger/worker-leases.js";
import type { WorkerLease } from "../../src/ledger/types.js";
import { ErrorCode } from "../../src/core/errors.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import { orderContract } from "./engine-support.js";

const DIGEST = declarationDigest(refdestDeclaration("C2"));

describeEachBackend(
  "fused claim: the registration's read of the inputs serves one claim",
  (backend) => {
    let ledger: TestLedger;
    let lease: WorkerLease;
    let n = 0;
    beforeEach(async () => {
      ledger = await openTestLedger(backend);
      lease = await registerWorker(ledger.app, `fused-${backend}`, 60_000);
    });
    afterEach(async () => {
      await ledger.close();
    });

    const intent = () => {
      n += 1;
      return validateIntentContract(
        orderContract({ adapter_id: "refdest-c2", stable_ids: { order_id: `fused-${n}` } }),
      );
    };
    const denyOrders = (q: Queryable) =>
      q.query(
        "INSERT INTO deny_entries (effect_type, reason) VALUES ('order.create', 'test: written between the statements')",
      );
    const claim = (q: Queryable, inputs: ClaimInputs, useSlot: boolean) =>
      claimOnInputs(q, inputs, { effectId: inputs.record.effectId, lease, useSlot });
    const attempts = async (effectId: string) =>
      (
        await ledger.app.query(
          "SELECT 1 FROM dispatch_attempts a JOIN effect_executions x USING (execution_id) WHERE x.effect_id = $1",
          [effectId],
        )
      ).rows.length;

    it("in the registering transaction the claim decides on the registration's read (no second read)", async () => {
      const status = await ledger.app.transaction(async (tx) => {
        const r = await registerIn(tx, intent(), DIGEST, { lockSlot: true, withInputs: true });
        if (r.inputs === null) throw new Error("no inputs");
        await denyOrders(tx); // a second read would see it and answer 'stale'
        return (await claim(tx, r.inputs, true)).status;
      });
      expect(status).toBe("claimed");
    });

    it("a claim with another slot choice than the registration's locks reads again", async () => {
      const status = await ledger.app.transaction(async (tx) => {
        const r = await registerIn(tx, intent(), DIGEST, { lockSlot: false, withInputs: true });
        if (r.inputs === null) throw new Error("no inputs");
        await denyOrders(tx);
        return (await claim(tx, r.inputs, true)).status;
      });
      expect(status).toBe("stale");
    });

    it("a claim in another transaction than the registration reads again", async () => {
      const r = await registerIn(ledger.app, intent(), DIGEST, {
        lockSlot: true,
        withInputs: true,
      });
      if (r.inputs === null) throw new Error("no inputs");
      await denyOrders(ledger.app);
      expect((await claim(ledger.app, r.inputs, true)).status).toBe("stale");
      expect(await attempts(r.effectId)).toBe(0);
    });

    it("a later registration in the transaction retires the marker: the earlier effect's claim reads again", async () => {
      const status = await ledger.app.transaction(async (tx) => {
        const r = await registerIn(tx, intent(), DIGEST, { lockSlot: true, withInputs: true });
        if (r.inputs === null) throw new Error("no inputs");
        await registerIn(tx, intent(), DIGEST, { lockSlot: false, withInputs: false });
        await denyOrders(tx);
        return (await claim(tx, r.inputs, true)).status;
      });
      expect(status).toBe("stale");
    });

    it("the read serves one claim: a second claim on the same version in the transaction is stale", async () => {
      const { first, second, effectId } = await ledger.app.transaction(async (tx) => {
        const r = await registerIn(tx, intent(), DIGEST, { lockSlot: true, withInputs: true });
        if (r.inputs === null) throw new Error("no inputs");
        const a = await claim(tx, r.inputs, true);
        const b = await claim(tx, r.inputs, true);
        return { first: a.status, second: b.status, effectId: r.effectId };
      });
      expect(first).toBe("claimed");
      expect(second).toBe("stale");
      expect(await attempts(effectId)).toBe(1);
    });

    it("a claim whose slot choice is NULL is refused, never taken without the slot (migration 0063)", async () => {
      const r = await registerIn(ledger.app, intent(), DIGEST, {
        lockSlot: true,
        withInputs: false,
      });
      await expectDbError(
        ledger.app.query(
          "SELECT ledger_claim($1, 'v', NULL, 'dispatch', '{}'::jsonb, NULL, '{}'::jsonb)",
          [r.effectId],
        ),
        ErrorCode.illegal_state,
        "DT005",
      );
      expect(await attempts(r.effectId)).toBe(0);
    });
  },
);
