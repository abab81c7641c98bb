/**
 * Recovery with batch status lookups (issue 11, build item 4), on both backends: a backlog of
 * AMBIGUOUS effects on a reference destination whose declaration has `queryable.batch_max`
 * (half committed before their response was lost, half never committed) is recovered with the
 * status keys coalesced into `POST /effects/status` calls. Every effect ends exactly as the
 * destination's truth says — PRESENT ⇒ COMMITTED + CONFIRMED_UNIQUE after one probe, absent ⇒
 * LOST after two (re-read gap 0) — each answer recorded as its own probe with `batch_size`;
 * the destination saw no single status query, far fewer calls than reads, none over batch_max,
 * and never more than `recoveryConcurrency` calls in flight at once.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import type { HttpTransport } from "../../src/adapters/http-kit.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { manualClock, type ManualClock } from "../../src/engine/clock.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { orderContract } from "./engine-support.js";

const EFFECTS = 36;
const BATCH_MAX = 10;
const CONCURRENCY = 4;
/** Destination latency of every status call (a DELAY fault), so calls overlap as on a network. */
const LATENCY_MS = 20;

describeEachBackend("recovery: batch status lookups", (backend) => {
  let ledger: TestLedger;
  let refdest: Refdest;
  let irrevon: Irrevon;
  let clock: ManualClock;
  /** Wire calls in flight now, and the most at once. */
  const wire = { inFlight: 0, most: 0, keys: [] as number[] };

  beforeEach(async () => {
    ledger = await openTestLedger(backend);
    refdest = createRefdest({ tier: "C2", seed: 42 });
    const inner = createInProcessTransport(refdest);
    const transport: HttpTransport = async (spec) => {
      if (spec.url.endsWith("/effects/status") && spec.body !== null)
        wire.keys.push((JSON.parse(spec.body) as { keys: unknown[] }).keys.length);
      wire.inFlight += 1;
      wire.most = Math.max(wire.most, wire.inFlight);
      try {
        return await inner(spec);
      } finally {
        wire.inFlight -= 1;
      }
    };
    const adapter = new RefdestAdapter({
      baseUrl: "http://127.0.0.1:4100",
      declaration: refdestDeclaration("C2", { batchMax: BATCH_MAX }),
      transport,
    });
    clock = manualClock();
    irrevon = await openIrrevon({
      database: ledger.app,
      adapters: [adapter],
      clock,
      config: {
        rereadGapSeconds: 0,
        dispatchDeadlineMs: 2_000,
        probeDeadlineMs: 2_000,
        leaseTtlMs: 60_000,
        recoveryConcurrency: CONCURRENCY,
      },
      workerId: "worker-batch",
      crashPoints: NO_CRASH_POINTS,
    });
  });
  afterEach(async () => {
    await expectAuditClean(ledger);
    await irrevon.close();
    await ledger.close();
  });

  it(`${EFFECTS} AMBIGUOUS effects settle as the destination's truth says, in batches of at most ${BATCH_MAX}`, async () => {
    // Every create's response is lost: alternately after and before the destination committed.
    const effects: Array<{ effectId: string; operationId: string }> = [];
    for (let i = 0; i < EFFECTS; i++) {
      refdest.schedule([
        {
          fault: i % 2 === 0 ? "DROP_RESPONSE_AFTER_COMMIT" : "DROP_RESPONSE_BEFORE_COMMIT",
          match: { op: "create" },
        },
      ]);
      const { effectId } = await irrevon.register(
        orderContract({ scope: `acme-store/batch/${i}` }),
      );
      const sent = await irrevon.dispatch(effectId);
      expect(sent).toMatchObject({ status: "dispatched", lifecycle: "AMBIGUOUS" });
      effects.push({ effectId, operationId: sent.status === "dispatched" ? sent.operationId : "" });
    }
    const held = new Set(refdest.truthDump().effects.map((e) => e.client_ref));
    const present = new Set(effects.filter((e) => held.has(e.operationId)).map((e) => e.effectId));
    expect(present.size).toBe(EFFECTS / 2);
    refdest.schedule([
      { fault: "DELAY", match: { op: "query_batch" }, param: { ms: LATENCY_MS }, once: false },
    ]);
    // Past every call's deadline (the absence rule), on the engine's clock.
    clock.advance(10_000);
    const logBefore = refdest.requestLog().length;

    const report = await irrevon.recover();
    expect(report.errors).toEqual([]);
    expect(report).toMatchObject({
      scanned: EFFECTS,
      adjudicated: EFFECTS,
      parked: 0,
      inFlight: 0,
    });

    const rows = await ledger.app.query<{
      effect_id: string;
      frontier: string;
      probes: unknown;
      classes: string;
    }>(
      `SELECT x.effect_id,
              (SELECT f.frontier FROM execution_frontiers f WHERE f.execution_id = x.execution_id) AS frontier,
              (SELECT count(*) FROM status_probes p WHERE p.execution_id = x.execution_id
                 AND p.probe_kind = 'reconcile_open') AS probes,
              (SELECT string_agg(g.classification, ',') FROM findings g WHERE g.effect_id = x.effect_id) AS classes
         FROM effect_executions x`,
    );
    expect(rows.rows).toHaveLength(EFFECTS);
    for (const r of rows.rows) {
      const isPresent = present.has(r.effect_id);
      expect({
        id: r.effect_id,
        frontier: r.frontier,
        probes: Number(r.probes),
        classes: r.classes,
      }).toEqual({
        id: r.effect_id,
        frontier: isPresent ? "SETTLED_COMMITTED" : "SETTLED_FAILED",
        probes: isPresent ? 1 : 2,
        classes: isPresent ? "CONFIRMED_UNIQUE" : "LOST",
      });
    }
    // Each answer is its own probe, and says which batch it came in.
    const probes = await ledger.app.query<{ evidence: Record<string, unknown> }>(
      "SELECT evidence FROM status_probes WHERE probe_kind = 'reconcile_open'",
    );
    const reads = EFFECTS / 2 + 2 * (EFFECTS / 2);
    expect(probes.rows).toHaveLength(reads);
    for (const p of probes.rows) {
      expect(p.evidence["mode"]).toBe("recovery");
      expect(p.evidence["batch_size"]).toEqual(expect.any(Number));
      expect(Number(p.evidence["batch_size"])).toBeLessThanOrEqual(BATCH_MAX);
    }

    // The wire: batch calls only, far fewer than reads, none over batch_max, bounded in flight.
    const during = refdest.requestLog().slice(logBefore);
    expect(during.filter((e) => e.op === "get" || e.op === "query")).toHaveLength(0);
    const batches = during.filter((e) => e.op === "query_batch");
    expect(batches.every((e) => e.outcome === 200)).toBe(true);
    expect(wire.keys).toHaveLength(batches.length);
    expect(wire.keys.reduce((a, b) => a + b, 0)).toBe(reads);
    expect(Math.max(...wire.keys)).toBeLessThanOrEqual(BATCH_MAX);
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(reads / BATCH_MAX) * 3);
    expect(wire.most).toBeLessThanOrEqual(CONCURRENCY);
    // A second run finds nothing left to do.
    expect(await irrevon.recover()).toMatchObject({ scanned: 0, adjudicated: 0, errors: [] });
  }, 120_000);
});
