/**
 * The absence rule (docs/engine.md, "The absence rule") on both backends: read lag counts
 * from the latest instant the destination could still commit the attempt — the end of the
 * wire call, or its deadline when that is later — never from the claim. Slow calls that commit
 * at their end or just before the deadline, and a dropped connection after which the server
 * keeps working until just before the deadline, against a destination that declares (and
 * really has) a 30 s read lag; every re-read gap including 0. The effect must end up
 * COMMITTED / CONFIRMED_UNIQUE with one create — never LOST, never re-sent.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { openAbsenceWorld, type AbsenceWorld, type CreateScript } from "../support/absence-world.js";
import { orderContract } from "./engine-support.js";

const LAG_SECONDS = 30;
const DEADLINE_MS = 30_000;
const GAPS_SECONDS = [0, 1, 30, 60];

const SCENARIOS: ReadonlyArray<{ readonly name: string; readonly script: CreateScript }> = [
  {
    name: "call runs 25 s of its 30 s deadline and commits at its end; the response is lost",
    script: { durationMs: 25_000, commitAtMs: 25_000, answer: "lost" },
  },
  {
    name: "call times out at the deadline; the destination commits exactly then",
    script: { durationMs: DEADLINE_MS, commitAtMs: DEADLINE_MS, answer: "timeout" },
  },
  {
    name: "connection dropped after 2 s; the server keeps working and commits at 29.9 s",
    script: { durationMs: 2_000, commitAtMs: 29_900, answer: "lost" },
  },
];

describeEachBackend("reconcile: the absence clock starts at the commit horizon", (backend) => {
  let ledger: TestLedger;
  let world: AbsenceWorld | undefined;
  beforeEach(async () => {
    ledger = await openTestLedger(backend);
  });
  afterEach(async () => {
    await world?.close();
    world = undefined;
    await expectAuditClean(ledger);
    await ledger.close();
  });

  for (const scenario of SCENARIOS) {
    for (const gap of GAPS_SECONDS) {
      it(`${scenario.name}; re-read gap ${gap} s`, async () => {
        const w = await openAbsenceWorld(ledger.app, {
          lagSeconds: LAG_SECONDS,
          config: {
            rereadGapSeconds: gap,
            dispatchDeadlineMs: DEADLINE_MS,
            autoRedispatch: { "order.create": { grantRef: "policy:auto-orders" } },
          },
        });
        world = w;
        const { effectId } = await w.irrevon.register(orderContract({ adapter_id: w.adapterId }));
        w.script(scenario.script);
        const sent = await w.irrevon.dispatch(effectId);
        expect(sent).toMatchObject({ status: "dispatched", lifecycle: "AMBIGUOUS" });
        const operationId = sent.status === "dispatched" ? sent.operationId : "";

        const seen: string[] = [];
        for (let t = 0; t < 100 && !seen.includes("committed") && !seen.includes("failed"); t += 1) {
          seen.push((await w.irrevon.reconcile(effectId)).status);
          await w.advance(2_000);
        }
        await w.irrevon.recover(); // a LOST would be re-sent here under the policy grant
        await w.advance(120_000);

        expect(seen).not.toContain("failed");
        expect(seen).toContain("committed");
        expect(await w.irrevon.status(effectId)).toMatchObject({
          lifecycle: "SETTLED_COMMITTED",
          classification: "CONFIRMED_UNIQUE",
        });
        expect(w.creates(operationId)).toBe(1);
        expect(w.refdest.truthDump().effects).toHaveLength(1);
      });
    }
  }

  it("every counted ABSENT probe records the clock it counted from", async () => {
    const w = await openAbsenceWorld(ledger.app, {
      lagSeconds: LAG_SECONDS,
      config: { rereadGapSeconds: 10, dispatchDeadlineMs: DEADLINE_MS },
    });
    world = w;
    const { effectId } = await w.irrevon.register(orderContract({ adapter_id: w.adapterId }));
    w.script({ durationMs: 1_000, commitAtMs: null, answer: "lost" });
    await w.irrevon.dispatch(effectId);
    let out = await w.irrevon.reconcile(effectId);
    for (let t = 0; t < 100 && out.status !== "failed"; t += 1) {
      await w.advance(2_000);
      out = await w.irrevon.reconcile(effectId);
    }
    expect(out).toMatchObject({ status: "failed", cause: "reconciled_absent" });
    const { rows } = await ledger.app.query<{
      queried_at: string;
      evidence: Record<string, unknown>;
    }>(
      `SELECT to_char(queried_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS queried_at, evidence
         FROM status_probes WHERE result = 'ABSENT' AND NOT (evidence ? 'lag_not_elapsed') ORDER BY probe_id`,
    );
    expect(rows).toHaveLength(2);
    const receipt = await ledger.app.query<{ evidence: Record<string, unknown> }>(
      "SELECT evidence FROM dispatch_receipts",
    );
    const horizon = receipt.rows[0]?.evidence["commit_horizon_at"];
    expect(typeof horizon).toBe("string");
    for (const r of rows) {
      expect(r.evidence["absence_clock_from"]).toBe(new Date(String(horizon)).toISOString());
      const countsFrom = Date.parse(String(r.evidence["counts_from"]));
      expect(countsFrom).toBe(Date.parse(String(horizon)) + LAG_SECONDS * 1000);
      expect(Date.parse(r.queried_at)).toBeGreaterThanOrEqual(countsFrom);
    }
  });
});
