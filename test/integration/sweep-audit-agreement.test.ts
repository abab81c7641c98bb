/**
 * The sweep and the audit classify every destination effect exactly as the history checker
 * does (docs/engine.md "What explains a destination effect"), on both backends. Each row
 * plants one case next to a committed baseline order, runs two sweeps of every adapter and an
 * audit of every settled record, and compares, per destination effect, the finding class the
 * ledger reports with the checker's class; the expected classes pin the rule itself.
 */
import { afterEach, expect, it } from "vitest";
import { countByInvariant } from "../../src/testing/history-checker.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend } from "../support/databases.js";
import { checkRun } from "../support/history/ledger-history.js";
import { orderContract } from "./engine-support.js";
import {
  checkerClasses,
  committedOrder,
  ledgerClasses,
  lostThenRedispatched,
  MAIN,
  openTwoDestinations,
  OTHER,
  plantEffect,
  sweepAndAudit,
  type ClassRow,
  type TwoDestinations,
} from "./sweep-explanation-support.js";

type Expected = Omit<ClassRow, "adapterId" | "destinationRef"> & {
  readonly adapterId?: string;
};

interface Case {
  readonly name: string;
  /** Plants the case; returns the expected class of each effect it caused, by destination ref. */
  plant(t: TwoDestinations): Promise<Record<string, Expected>>;
}

function at(t: TwoDestinations, adapterId: string) {
  const refdest = t.destinations[adapterId];
  if (refdest === undefined) throw new Error(`no destination ${adapterId}`);
  return refdest;
}

/** The ref of the only effect at MAIN carrying `clientRef`. */
function refOf(t: TwoDestinations, clientRef: string): string {
  const refs = at(t, MAIN)
    .truthDump()
    .effects.filter((e) => e.client_ref === clientRef)
    .map((e) => e.destination_ref);
  expect(refs).toHaveLength(1);
  return refs[0] ?? "";
}

const CASES: readonly Case[] = [
  { name: "clean baseline", plant: () => Promise.resolve({}) },
  {
    name: "an extra copy of a committed effect",
    async plant(t) {
      const { operationId } = await committedOrder(t);
      const own = refOf(t, operationId);
      const copy = plantEffect(at(t, MAIN), operationId);
      return { [own]: { effectClass: "EXPLAINED" }, [copy]: { effectClass: "DUPLICATE" } };
    },
  },
  {
    name: "a late step 0 after re-dispatch of step 1",
    async plant(t) {
      const { effectId, step0 } = await lostThenRedispatched(t);
      const step1 = refOf(t, `${effectId}:1`);
      const late = plantEffect(at(t, MAIN), step0);
      return { [step1]: { effectClass: "EXPLAINED" }, [late]: { effectClass: "CONTRADICTED" } };
    },
  },
  {
    name: "a denied execution's key",
    async plant(t) {
      await t.irrevon.operator.addDenyEntry({ scope: "acme-store/frozen", reason: "frozen" });
      const { effectId, operationId } = await t.irrevon.register(
        orderContract({ scope: "acme-store/frozen" }),
      );
      expect(await t.irrevon.dispatch(effectId)).toMatchObject({ status: "denied" });
      const ref = plantEffect(at(t, MAIN), operationId);
      return { [ref]: { effectClass: "ORPHANED", reason: "denied" } };
    },
  },
  {
    name: "a cancelled execution's key",
    async plant(t) {
      const { operationId } = await t.irrevon.register(orderContract({ branch_ref: "plan-3" }));
      await t.irrevon.operator.cancelBranch("plan-3", "plan abandoned", { cancelPersisted: true });
      const ref = plantEffect(at(t, MAIN), operationId);
      return { [ref]: { effectClass: "ORPHANED", reason: "cancelled" } };
    },
  },
  {
    name: "a never-dispatched execution's key",
    async plant(t) {
      const { operationId } = await t.irrevon.register(orderContract());
      const ref = plantEffect(at(t, MAIN), operationId);
      return { [ref]: { effectClass: "ORPHANED", reason: "never_dispatched" } };
    },
  },
  {
    name: "another adapter's key",
    async plant(t) {
      const { operationId } = await committedOrder(t);
      const own = refOf(t, operationId);
      const foreign = plantEffect(at(t, OTHER), operationId);
      return {
        [own]: { effectClass: "EXPLAINED" },
        [foreign]: { adapterId: OTHER, effectClass: "ORPHANED", reason: "other_adapter" },
      };
    },
  },
];

describeEachBackend("sweep and audit agree with the history checker", (backend) => {
  let t: TwoDestinations | undefined;
  afterEach(async () => {
    if (t !== undefined) await expectAuditClean(t.ledger);
    await t?.close();
    t = undefined;
  });

  it.each(CASES)("$name", async (c) => {
    t = await openTwoDestinations(backend);
    const baseline = await committedOrder(t);
    const planted = await c.plant(t);
    await sweepAndAudit(t);

    const expected: ClassRow[] = [];
    for (const [adapterId, refdest] of Object.entries(t.destinations)) {
      for (const e of refdest.truthDump().effects) {
        const want: Expected =
          planted[e.destination_ref] ??
          (e.client_ref === baseline.operationId
            ? { effectClass: "EXPLAINED" }
            : { effectClass: "unexpected effect" });
        if ((want.adapterId ?? MAIN) !== adapterId) continue;
        const { adapterId: _ignored, ...rest } = want;
        expected.push({ adapterId, destinationRef: e.destination_ref, ...rest });
      }
    }
    const checker = await checkerClasses(t);
    expect(checker).toEqual(expected);
    expect(await ledgerClasses(t)).toEqual(checker);

    // Everything the destination holds is explained or reported: the checker's invariants
    // about reporting are silent (denied, cancelled and never-dispatched effects still break
    // the history's authorization invariants: the ledger reports them, it cannot undo them).
    const counts = countByInvariant((await checkRun(t.ledger.read, at(t, MAIN))).violations);
    expect({
      duplicate_effect: counts.duplicate_effect,
      orphan_effect: counts.orphan_effect,
      false_suppression: counts.false_suppression,
      claim_contradiction: counts.claim_contradiction,
    }).toEqual({
      duplicate_effect: 0,
      orphan_effect: 0,
      false_suppression: 0,
      claim_contradiction: 0,
    });
  });
});
