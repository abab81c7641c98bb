/**
 * test/support/history/crash-scenarios — the crash suite's scenarios, one or more per crash
 * seam the engine hits, and `defineCrashSuite(backend)`, which runs each against real engine
 * processes (SIGKILL at the seam, restart, recovery) and requires the history checker, the
 * auditor and the leftovers check to be clean. The control runs the same crash with a naive
 * retry-on-restart client and requires the checker to catch the duplicate. Used by
 * test/process/crash-points-{postgres,pglite}.test.ts (separate files so they run in parallel).
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refdestDeclaration } from "../../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../../src/adapters/refdest-adapter.js";
import { countByInvariant } from "../../../src/testing/history-checker.js";
import { SKIP_POSTGRES, type Backend } from "../databases.js";
import { CRASH_CHILD_TIMING, CrashRun } from "./crash-run.js";
import { sleep } from "./engine-process.js";
import { intent } from "./intents.js";

/** Seams the engine source actually hits (a new seam without a scenario fails the suite). */
export function seamsHitByEngine(): string[] {
  const dir = fileURLToPath(new URL("../../../src/engine/", import.meta.url));
  const found = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    for (const m of readFileSync(`${dir}${file}`, "utf8").matchAll(/\.hit\("([a-z_.]+)"\)/g)) {
      if (m[1] !== undefined) found.add(m[1]);
    }
  }
  return [...found].sort();
}

export interface Outcome {
  /** Intents the scenario meant to cause. */
  readonly legitimate: readonly string[];
  /** Destination effects made behind the engine's back (each must end as an ORPHANED finding). */
  readonly outOfBand?: number;
}

export interface Scenario {
  readonly seam: string;
  readonly name: string;
  run(r: CrashRun): Promise<Outcome>;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    seam: "persist.pre_commit",
    name: "kill before the record commits: no record, no effect; a restart registers afresh",
    async run(r) {
      const a = intent("pre-persist");
      const first = await r.startArmed("persist.pre_commit");
      expect(await first.send(a.registerLine)).toMatchObject({ exit: { signal: "SIGKILL" } });
      expect(await r.count("SELECT effect_id FROM effect_records")).toBe(0);
      expect(r.effects()).toBe(0);
      const early = await r.verdict({ prePersistCrash: [a.effectId] });
      expect(early.history.violations).toEqual([]);
      const second = await r.start();
      expect(second.recovery).toMatchObject({ scanned: 0 });
      expect(await second.call(a.registerLine)).toMatchObject({
        replayed: false,
        lifecycle: "PERSISTED",
      });
      expect(await second.call(a.dispatchLine)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
      await second.exit();
      return { legitimate: [a.effectId] };
    },
  },
  {
    seam: "persist.post_commit",
    name: "kill after the record commits: PERSISTED survives, nothing sent; dispatch after restart",
    async run(r) {
      const a = intent("post-persist");
      const first = await r.startArmed("persist.post_commit");
      expect(await first.send(a.registerLine)).toMatchObject({ exit: { signal: "SIGKILL" } });
      expect(await r.lifecycle(a.effectId)).toBe("PERSISTED");
      expect(r.writes()).toBe(0);
      const second = await r.start();
      expect(await second.call(a.registerLine)).toMatchObject({ replayed: true });
      expect(await second.call(a.dispatchLine)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
      await second.exit();
      return { legitimate: [a.effectId] };
    },
  },
  ...(["gate.post_allow", "adapter.pre_call"] as const).map((seam): Scenario => ({
    seam,
    name: "kill after the claim, before any byte is sent: recovery proves absence (LOST), nothing sent",
    async run(r) {
      const a = intent(`claimed-${seam}`);
      const first = await r.startArmed(seam);
      await first.call(a.registerLine);
      expect(await first.send(a.dispatchLine)).toMatchObject({ exit: { signal: "SIGKILL" } });
      expect(await r.count("SELECT attempt_id FROM open_attempts")).toBe(1);
      expect(r.writes()).toBe(0);
      const second = await r.start();
      await r.settle(second);
      expect(await second.call(`STATUS ${a.effectId}`)).toMatchObject({
        lifecycle: "SETTLED_FAILED",
        classification: "LOST",
      });
      // The gate refuses a second wire call for the same operation: re-dispatch needs a human.
      expect(await second.call(a.dispatchLine)).toMatchObject({ status: "denied" });
      await second.exit();
      expect(r.writes()).toBe(0);
      return { legitimate: [a.effectId] };
    },
  })),
  ...(["adapter.post_call", "receipt.pre_commit"] as const).map((seam): Scenario => ({
    seam,
    name: "kill after the effect happened, before its receipt: recovery finds it (CONFIRMED_UNIQUE), no resend",
    async run(r) {
      const a = intent(`sent-${seam}`);
      const first = await r.startArmed(seam);
      await first.call(a.registerLine);
      expect(await first.send(a.dispatchLine)).toMatchObject({ exit: { signal: "SIGKILL" } });
      expect(r.effects(a.operationId)).toBe(1);
      expect(await r.count("SELECT attempt_id FROM open_attempts")).toBe(1);
      const second = await r.start();
      await r.settle(second);
      expect(await second.call(`STATUS ${a.effectId}`)).toMatchObject({
        lifecycle: "SETTLED_COMMITTED",
        classification: "CONFIRMED_UNIQUE",
      });
      expect(await second.call(a.dispatchLine)).toMatchObject({ status: "denied", check: "dedup" });
      await second.exit();
      return { legitimate: [a.effectId] };
    },
  })),
  {
    seam: "receipt.post_commit",
    name: "kill after the receipt commits: settled, recovery has nothing to do",
    async run(r) {
      const a = intent("receipted");
      const first = await r.startArmed("receipt.post_commit");
      await first.call(a.registerLine);
      expect(await first.send(a.dispatchLine)).toMatchObject({ exit: { signal: "SIGKILL" } });
      expect(await r.lifecycle(a.effectId)).toBe("SETTLED_COMMITTED");
      const second = await r.start();
      expect(second.recovery).toMatchObject({ scanned: 0, closedAttempts: 0 });
      await second.exit();
      return { legitimate: [a.effectId] };
    },
  },
  {
    seam: "settle.pre_commit",
    name: "lost response, kill while settling PRESENT: the next process settles COMMITTED once",
    async run(r) {
      const a = intent("settle-present");
      const first = await r.startArmed("settle.pre_commit");
      await first.call(a.registerLine);
      r.server.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
      expect(await first.call(a.dispatchLine)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      expect(await first.send(`RECONCILE ${a.effectId}`)).toMatchObject({
        exit: { signal: "SIGKILL" },
      });
      expect(await r.lifecycle(a.effectId)).toBe("AMBIGUOUS");
      const second = await r.start();
      expect(second.recovery).toMatchObject({ adjudicated: 1 });
      await r.settle(second);
      await second.exit();
      expect(await r.findings(a.effectId)).toEqual(["CONFIRMED_UNIQUE"]);
      return { legitimate: [a.effectId] };
    },
  },
  {
    seam: "settle.pre_commit",
    name: "dropped request, kill while settling ABSENT: the next process proves absence (LOST)",
    async run(r) {
      const a = intent("settle-absent");
      const first = await r.startArmed("settle.pre_commit");
      await first.call(a.registerLine);
      r.server.refdest.schedule([
        { fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } },
      ]);
      expect(await first.call(a.dispatchLine)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      // The absence rule: ABSENT counts only once the dropped call's deadline has passed, so the
      // settle (and its seam) is reached however fast the machine is.
      await sleep(Number(CRASH_CHILD_TIMING.IRREVON_DISPATCH_DEADLINE_MS) + 200);
      expect(await first.send(`RECONCILE ${a.effectId}`)).toMatchObject({
        exit: { signal: "SIGKILL" },
      });
      const second = await r.start();
      await r.settle(second);
      expect(await second.call(`STATUS ${a.effectId}`)).toMatchObject({
        lifecycle: "SETTLED_FAILED",
        classification: "LOST",
      });
      await second.exit();
      expect(r.effects()).toBe(0);
      return { legitimate: [a.effectId] };
    },
  },
  {
    seam: "reconcile.pre_settle",
    name: "kill between the probe and the settle: the probe is re-asked, settled once",
    async run(r) {
      const a = intent("pre-settle");
      const first = await r.startArmed("reconcile.pre_settle");
      await first.call(a.registerLine);
      r.server.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
      expect(await first.call(a.dispatchLine)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      expect(await first.send(`RECONCILE ${a.effectId}`)).toMatchObject({
        exit: { signal: "SIGKILL" },
      });
      expect(await r.count("SELECT probe_id FROM status_probes")).toBe(1);
      const second = await r.start();
      await r.settle(second);
      expect(await second.call(`STATUS ${a.effectId}`)).toMatchObject({
        lifecycle: "SETTLED_COMMITTED",
        classification: "CONFIRMED_UNIQUE",
      });
      await second.exit();
      return { legitimate: [a.effectId] };
    },
  },
  {
    seam: "sweep.pre_finding",
    name: "kill after a sweep run is recorded, before its orphan is written: the next sweep writes it once",
    async run(r) {
      const a = intent("swept-legit");
      const engine = await r.start();
      await engine.call(a.registerLine);
      expect(await engine.call(a.dispatchLine)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
      await engine.exit();
      r.server.refdest.createOutOfBand({ effect_type: "order.create", payload: { note: "oob" } });
      const first = await r.startSweeper({ IRREVON_CRASH_AT: "sweep.pre_finding:2" });
      expect(await first.call("SWEEP")).toMatchObject({
        listed: 2,
        matched: 1,
        orphansCreated: [],
      });
      expect(await first.send("SWEEP")).toMatchObject({ exit: { signal: "SIGKILL" } });
      const orphans = "SELECT finding_id FROM findings WHERE classification = 'ORPHANED'";
      expect(await r.count(orphans)).toBe(0);
      expect(await r.count("SELECT run_id FROM sweep_runs")).toBe(2);
      const second = await r.startSweeper();
      const swept = await second.call("SWEEP");
      expect(swept["orphansCreated"]).toHaveLength(1);
      expect(await second.call("SWEEP")).toMatchObject({ alreadyKnown: 1, orphansCreated: [] });
      await second.exit();
      expect(await r.count(orphans)).toBe(1);
      return { legitimate: [a.effectId], outOfBand: 1 };
    },
  },
  {
    seam: "recovery.after_record",
    name: "kill in the middle of recovery: recovery is re-entrant, each record settled once",
    async run(r) {
      const a = intent("recover-a");
      const b = intent("recover-b");
      const first = await r.start();
      await first.call(a.registerLine);
      await first.call(b.registerLine);
      r.server.refdest.schedule([
        { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create", client_ref: a.operationId } },
        { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create", client_ref: b.operationId } },
      ]);
      expect(await first.call(a.dispatchLine)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      expect(await first.call(b.dispatchLine)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      await first.kill();
      expect(await r.bootToDeath({ IRREVON_CRASH_AT: "recovery.after_record" })).toBe("SIGKILL");
      const settledByDeadOne =
        ((await r.lifecycle(a.effectId)) === "SETTLED_COMMITTED" ? 1 : 0) +
        ((await r.lifecycle(b.effectId)) === "SETTLED_COMMITTED" ? 1 : 0);
      expect(settledByDeadOne).toBe(1);
      const third = await r.start();
      expect(third.recovery).toMatchObject({ scanned: 1, adjudicated: 1 });
      await r.settle(third);
      await third.exit();
      expect(r.writes()).toBe(2);
      return { legitimate: [a.effectId, b.effectId] };
    },
  },
];

/** The crash suite on one backend. */
export function defineCrashSuite(backend: Backend): void {
  describe.skipIf(backend === "postgres" && SKIP_POSTGRES)(
    `crash at every seam, restart, recover [${backend}]`,
    () => {
      let run: CrashRun;
      beforeEach(async () => {
        run = await CrashRun.open(backend);
      });
      afterEach(async () => {
        await run.close();
      });

      for (const scenario of SCENARIOS) {
        it(`${scenario.seam}: ${scenario.name}`, async () => {
          const { legitimate, outOfBand = 0 } = await scenario.run(run);
          const v = await run.verdict({ legitimate });
          expect(v.history.violations).toEqual([]);
          expect(v.audit).toEqual([]);
          // Every effect maps to a record; only the out-of-band ones do not (and the checker has
          // already required an ORPHANED finding for each of those).
          expect(v.history.unattributedEffects).toBe(outOfBand);
          expect(Math.max(0, ...v.history.wireCallsByOperation.values())).toBeLessThanOrEqual(1);
          expect(Math.max(0, ...v.history.effectsByOperation.values())).toBeLessThanOrEqual(1);
          expect({ openAttempts: v.openAttempts, openExecutions: v.openExecutions }).toEqual({
            openAttempts: 0,
            openExecutions: 0,
          });
        });
      }

      it("control: a naive retry-on-restart client after the same crash is caught by the checker", async () => {
        const a = intent("naive-retry");
        const first = await run.startArmed("adapter.post_call");
        await first.call(a.registerLine);
        expect(await first.send(a.dispatchLine)).toMatchObject({ exit: { signal: "SIGKILL" } });
        // The broken "engine": on restart it re-sends the operation it never saw answered.
        const naive = new RefdestAdapter({
          baseUrl: run.server.url,
          declaration: refdestDeclaration("C2"),
        });
        const resent = await naive.dispatch(
          {
            operationId: a.operationId,
            effectType: "order.create",
            payload: a.parameters,
            clientRef: a.operationId,
            idempotencyKey: a.operationId,
            stableIds: {},
          },
          2_000,
        );
        expect(resent.transportOutcome).toBe("OK");
        const caught = countByInvariant(
          (await run.verdict({ legitimate: [a.effectId] })).history.violations,
        );
        expect(caught.duplicate_effect).toBe(1);
        expect(caught.unclaimed_wire_call).toBe(1);
        // Even after the real engine reports the duplicate honestly, the resend stays visible.
        const second = await run.start();
        await run.settle(second);
        await second.exit();
        expect(await run.findings(a.effectId)).toEqual(["DUPLICATE"]);
        const after = countByInvariant(
          (await run.verdict({ legitimate: [a.effectId] })).history.violations,
        );
        expect(after.duplicate_effect).toBe(0);
        expect(after.unclaimed_wire_call).toBe(1);
      });
    },
  );
}
