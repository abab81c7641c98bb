/**
 * The worker loop (§8, D2, D3, D9) on both backends, in-process with an injected clock: a
 * backlog of AMBIGUOUS effects is drained by cycles (presence at once, absence once the
 * scheduled re-read is due — nothing sleeps); the health file carries the gauges; the events
 * come from the closed catalog; an abort stops it after the current cycle; two workers on one
 * ledger drain a backlog with one wire call per operation; a recorded re-dispatch whose
 * dispatch never ran is carried out; sweep failures are reported and the cycle goes on;
 * recently settled effects are audited, bounded per cycle.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { EngineEventName, type EngineEventSink } from "../../src/engine/events.js";
import { runWorker } from "../../src/engine/worker.js";
import { beginRedispatch } from "../../src/ledger/redispatch-resolution.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend } from "../support/databases.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

type Event = Parameters<EngineEventSink>[0];

function recorder(): { events: Event[]; sink: EngineEventSink } {
  const events: Event[] = [];
  return { events, sink: (e) => events.push(e) };
}

async function ambiguous(
  f: EngineFixture,
  fault: "DROP_RESPONSE_AFTER_COMMIT" | "DROP_RESPONSE_BEFORE_COMMIT",
): Promise<string> {
  const { effectId } = await f.irrevon.register(orderContract());
  f.refdest.schedule([{ fault, match: { op: "create" } }]);
  expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
  return effectId;
}

async function frontiers(f: EngineFixture): Promise<Record<string, number>> {
  const { rows } = await f.ledger.app.query<{ frontier: string; n: unknown }>(
    "SELECT frontier, count(*) AS n FROM effect_frontiers GROUP BY frontier ORDER BY frontier",
  );
  return Object.fromEntries(rows.map((r) => [r.frontier, Number(r.n)]));
}

describeEachBackend("worker cycles", (backend) => {
  let f: EngineFixture;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-worker-"));
  });
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("drains a backlog: presence in the first cycle, absence once the re-read is due; health file gauges", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 60 } });
    const present = [];
    const absent = [];
    for (let i = 0; i < 6; i += 1) present.push(await ambiguous(f, "DROP_RESPONSE_AFTER_COMMIT"));
    for (let i = 0; i < 3; i += 1) absent.push(await ambiguous(f, "DROP_RESPONSE_BEFORE_COMMIT"));
    // The absence rule: an ABSENT read counts only once the dropped calls' deadline (the
    // fixture's 2 s) has passed, whatever real time the backlog took to build.
    f.clock.advance(2_000);
    const healthFile = join(dir, "nested", "health.json");
    const log = recorder();

    const started = Date.now();
    const first = await runWorker(f.irrevon, {
      intervalMs: 0,
      sweepIntervalMs: 3_600_000,
      maxCycles: 2,
      healthFile,
      events: log.sink,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(first).toMatchObject({ cycles: 2, stoppedBy: "max_cycles" });
    expect(first.recovery).toMatchObject({ scanned: 9, adjudicated: 6, parked: 3 });
    expect(await frontiers(f)).toEqual({ AMBIGUOUS: 3, SETTLED_COMMITTED: 6 });
    const health = JSON.parse(readFileSync(healthFile, "utf8")) as Record<string, unknown>;
    expect(health).toMatchObject({
      schema_version: "1",
      worker_id: f.irrevon.workerId,
      state: "stopped",
      cycle: 2,
      open_executions: 3,
      ambiguous_executions: 3,
      open_findings: 0,
    });
    expect(typeof health["oldest_open_age_s"]).toBe("number");
    expect(Number.isFinite(Date.parse(String(health["at"])))).toBe(true);

    const names = log.events.map((e) => e.event_name);
    expect(names[0]).toBe("worker.started");
    expect(names.filter((n) => n === "worker.cycle")).toHaveLength(2);
    expect(names.slice(-2)).toEqual(["worker.completed", "worker.stopped"]);
    const catalog: readonly string[] = Object.values(EngineEventName);
    expect(names.every((n) => catalog.includes(n))).toBe(true);
    const cycle = log.events.find((e) => e.event_name === "worker.cycle");
    expect(cycle).toMatchObject({ cycle: 1, gauges: { ambiguous_executions: 3 } });
    expect(typeof cycle?.["duration_ms"]).toBe("number");

    f.clock.advance(60_000);
    const second = await runWorker(f.irrevon, {
      intervalMs: 0,
      sweepIntervalMs: 3_600_000,
      maxCycles: 1,
      healthFile,
      recoverFirst: false,
    });
    expect(second.lastCycle).toMatchObject({ reconciled: 3, adjudicated: 3 });
    expect(await frontiers(f)).toEqual({ SETTLED_COMMITTED: 6, SETTLED_FAILED: 3 });
    expect(JSON.parse(readFileSync(healthFile, "utf8"))).toMatchObject({
      open_executions: 0,
      ambiguous_executions: 0,
      oldest_open_age_s: 0,
      open_findings: 3,
    });
    expect(destinationEffects(f.refdest)).toBe(6);
    expect(f.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(9);
  });

  it("an abort stops the worker after the current cycle", async () => {
    f = await openEngineFixture(backend);
    const controller = new AbortController();
    const log = recorder();
    const summary = await runWorker(f.irrevon, {
      intervalMs: 60_000,
      sweepIntervalMs: 60_000,
      signal: controller.signal,
      events: (e) => {
        log.sink(e);
        if (e.event_name === "worker.cycle") controller.abort();
      },
    });
    expect(summary).toMatchObject({ cycles: 1, stoppedBy: "signal" });
    expect(log.events.map((e) => e.event_name).slice(-1)).toEqual(["worker.stopped"]);
  });

  it("two workers drain one backlog together: one create per operation, every effect settled once", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const effects = [];
    for (let i = 0; i < 12; i += 1) effects.push(await ambiguous(f, "DROP_RESPONSE_AFTER_COMMIT"));
    const other = await f.openAnother("worker-b", { rereadGapSeconds: 0 });
    const options = { intervalMs: 0, sweepIntervalMs: 0, maxCycles: 2 };
    await Promise.all([runWorker(f.irrevon, options), runWorker(other, options)]);
    expect(await frontiers(f)).toEqual({ SETTLED_COMMITTED: 12 });
    const unique = await f.ledger.app.query<{ effect_id: string; n: unknown }>(
      "SELECT effect_id, count(*) AS n FROM findings WHERE classification = 'CONFIRMED_UNIQUE' GROUP BY effect_id",
    );
    expect(unique.rows).toHaveLength(12);
    expect(unique.rows.every((r) => Number(r.n) === 1)).toBe(true);
    expect(f.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(12);
    const orphans = await f.ledger.app.query(
      "SELECT 1 FROM findings WHERE classification = 'ORPHANED'",
    );
    expect(orphans.rows).toHaveLength(0);
  });

  it("carries out a recorded re-dispatch whose dispatch never ran", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const effectId = await ambiguous(f, "DROP_RESPONSE_BEFORE_COMMIT");
    // The absence rule: an ABSENT read counts only once the dropped call's deadline (the
    // fixture's 2 s) plus the declared lag (PT0S) has passed.
    f.clock.advance(2_000);
    const lost = await f.irrevon.reconcile(effectId);
    if (lost.status !== "failed" || lost.findingId === null) throw new Error("expected LOST");
    // The deciding process wrote its decision (one transaction) and died before dispatching.
    await beginRedispatch(f.ledger.app, {
      findingId: lost.findingId,
      actor: "human",
      authority: { authorityRef: "auth_ops_9", stampedAt: new Date().toISOString() },
      // 0045: a re-dispatch cites the NEWEST probe of the latest execution, answered ABSENT.
      evidence: { note: "resend", absent_probe_id: lost.probeIds[lost.probeIds.length - 1] },
    });
    const report = await f.irrevon.cycle({ sweep: false });
    expect(report).toMatchObject({ resumed: 1 });
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      step: 1,
    });
    expect((await f.irrevon.findings({ classification: "LOST" }))[0]?.status).toBe("CLOSED");
    expect((await f.irrevon.cycle({ sweep: false })).resumed).toBe(0);
    expect(destinationEffects(f.refdest)).toBe(1);
  });

  it("a failing sweep is reported and the cycle goes on; a later cycle sweeps and finds orphans", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 0 } });
    f.refdest.createOutOfBand({ effect_type: "order.create", payload: {} });
    f.refdest.schedule([{ fault: "THROTTLE_429", match: { op: "list" } }]);
    const log = recorder();
    const summary = await runWorker(f.irrevon, {
      intervalMs: 0,
      sweepIntervalMs: 0,
      maxCycles: 3,
      events: log.sink,
    });
    expect(summary.cycles).toBe(3);
    const errors = log.events.filter((e) => e.event_name === "worker.sweep_error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ adapter_id: f.adapterId, code: "destination_unavailable" });
    const orphans = await f.irrevon.findings({ classification: "ORPHANED" });
    expect(orphans).toHaveLength(1);
  });

  it("audits recently settled effects, at most auditPerCycle per cycle, each once", async () => {
    f = await openEngineFixture(backend, { config: { auditPerCycle: 1 } });
    const settled = [];
    for (let i = 0; i < 2; i += 1) {
      const { effectId, operationId } = await f.irrevon.register(orderContract());
      await f.irrevon.dispatch(effectId);
      // Someone else created a second copy with our client ref: only an audit can see it.
      f.refdest.createOutOfBand({
        effect_type: "order.create",
        payload: {},
        client_ref: operationId,
      });
      settled.push(effectId);
    }
    expect((await f.irrevon.cycle({ sweep: false })).audited).toBe(1);
    expect((await f.irrevon.cycle({ sweep: false })).audited).toBe(1);
    expect((await f.irrevon.cycle({ sweep: false })).audited).toBe(0);
    const duplicates = await f.irrevon.findings({ classification: "DUPLICATE" });
    expect(duplicates.map((d) => d.effectId).sort()).toEqual(settled.sort());
  });
});
