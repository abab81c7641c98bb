/**
 * The absence rule as a property (fast-check, virtual time, in-process reference destination
 * on one ledger): over random declared lag, call duration, deadline, re-read gap, commit
 * instant (or none) and reconcile timing, with a policy grant that re-sends every LOST,
 *   - never LOST while the destination holds or will show the effect, and
 *   - never a second create: the intent has at most one effect at the destination.
 * The destination commits at any instant up to the attempt's commit horizon (the end of the
 * call or its deadline, whichever is later) — what the rule assumes of it — and shows the
 * effect exactly `lag` later. Runs: 40 locally, 60 when CI is set (IRREVON_ABSENCE_RUNS for longer soaks).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestLedger, type TestLedger } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { openAbsenceWorld } from "../support/absence-world.js";
import { orderContract } from "./engine-support.js";

const RUNS = Number(process.env["IRREVON_ABSENCE_RUNS"] ?? (process.env["CI"] === undefined ? 40 : 60));

const scenario = fc
  .record({
    lagSeconds: fc.integer({ min: 0, max: 120 }),
    deadlineMs: fc.integer({ min: 1_000, max: 60_000 }),
    durationShare: fc.double({ min: 0, max: 1, noNaN: true }),
    commitShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    gapSeconds: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 120 })),
    jitterMs: fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 8, maxLength: 8 }),
  })
  .map((s) => {
    const durationMs = Math.round(s.deadlineMs * s.durationShare);
    const horizonMs = Math.max(durationMs, s.deadlineMs);
    return {
      ...s,
      durationMs,
      answer: durationMs >= s.deadlineMs ? ("timeout" as const) : ("lost" as const),
      commitAtMs: s.commitShare === null ? null : Math.floor(horizonMs * s.commitShare),
    };
  });

describe("property: the absence rule never yields a false LOST or a second create [pglite]", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await openTestLedger("pglite");
  });
  afterAll(async () => {
    await expectAuditClean(ledger);
    await ledger.close();
  });

  it(`holds over ${RUNS} random timings`, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const w = await openAbsenceWorld(ledger.app, {
          lagSeconds: s.lagSeconds,
          config: {
            rereadGapSeconds: s.gapSeconds,
            dispatchDeadlineMs: s.deadlineMs,
            autoRedispatch: { "order.create": { grantRef: "policy:auto-orders" } },
          },
        });
        try {
          const { effectId } = await w.irrevon.register(orderContract({ adapter_id: w.adapterId }));
          w.script({ durationMs: s.durationMs, commitAtMs: s.commitAtMs, answer: s.answer });
          const sent = await w.irrevon.dispatch(effectId);
          if (sent.status !== "dispatched") throw new Error(`not dispatched: ${sent.status}`);
          const intent = sent.operationId.split(":")[0] ?? "";

          let lifecycle = "AMBIGUOUS";
          for (let i = 0; i < 40 && lifecycle === "AMBIGUOUS"; i += 1) {
            const out = await w.irrevon.reconcile(effectId);
            const jitter = s.jitterMs[i % s.jitterMs.length] ?? 0;
            switch (out.status) {
              case "awaiting_lag":
                await w.advance(Math.max(0, Date.parse(out.notBefore) - w.clock.nowMs()) + jitter % 3);
                break;
              case "reread_scheduled":
                await w.advance(Math.max(0, Date.parse(out.rereadNotBefore) - w.clock.nowMs()) + jitter % 3);
                break;
              case "committed":
              case "failed":
              case "settled":
                lifecycle = out.status;
                break;
              case "in_flight":
              case "parked":
                await w.advance(1_000 + jitter);
                break;
            }
          }
          if (lifecycle === "failed") await w.irrevon.recover(); // re-sends a LOST under the grant
          await w.advance(s.deadlineMs + s.lagSeconds * 1000 + 1_000);
          expect(w.pendingCommits()).toBe(0);

          const effects = w.refdest
            .truthDump()
            .effects.filter((e) => (e.client_ref ?? "").startsWith(`${intent}:`));
          const first = effects.filter((e) => e.client_ref === sent.operationId);
          expect(first.length).toBe(s.commitAtMs === null ? 0 : 1);
          expect(effects.length).toBeLessThanOrEqual(1);
          if (s.commitAtMs !== null) expect(lifecycle).not.toBe("failed");
        } finally {
          await w.close();
        }
      }),
      { numRuns: RUNS },
    );
  }, 900_000);
});
