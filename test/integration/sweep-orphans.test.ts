/**
 * Orphan sweep (§7, I10) on both backends, against the in-process reference destination:
 * matched effects are never orphans; an unmatched one becomes ORPHANED only after two distinct
 * runs and the grace period (destination time, or the engine clock when the destination is
 * quiet); the sweep never creates records; a ref already ORPHANED is "already known"; an
 * out-of-window listing is empty; the list filter quirk is compensated (include_all); every
 * page is listed; a pending ref is re-sighted even after traffic moved the window on; an
 * in-flight dispatch is never an orphan; a C3 destination is refused.
 */
import { afterEach, expect, it } from "vitest";
import type {
  Adapter,
  CapabilityDeclaration,
  DispatchOrder,
  ListPage,
  QueryKey,
} from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { IrrevonError } from "../../src/core/errors.js";
import { manualClock } from "../../src/engine/clock.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger } from "../support/databases.js";
import {
  countRows,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

const OOB = { effect_type: "order.create", payload: { note: "created by another client" } };

const count = countRows;

async function orphanRefs(f: EngineFixture): Promise<string[]> {
  const { rows } = await f.ledger.app.query<{ destination_ref: string; effect_id: string | null }>(
    "SELECT destination_ref, effect_id FROM findings WHERE classification = 'ORPHANED' ORDER BY destination_ref",
  );
  expect(rows.every((r) => r.effect_id === null)).toBe(true);
  return rows.map((r) => r.destination_ref);
}

function oob(f: EngineFixture, input: Record<string, unknown> = {}): string {
  const [view] = f.refdest.createOutOfBand({ ...OOB, ...input });
  if (view === undefined) throw new Error("no effect created");
  return view.destination_ref;
}

/** A refdest adapter whose listing also exposes a stable-id projection (like EasyPost's `reference`). */
class ProjectingAdapter implements Adapter {
  readonly adapterId: string;
  readonly projections = new Map<string, Record<string, string>>();
  readonly #inner: RefdestAdapter;
  readonly #declaration: CapabilityDeclaration;
  constructor(inner: RefdestAdapter, declaration: CapabilityDeclaration) {
    this.#inner = inner;
    this.#declaration = declaration;
    this.adapterId = inner.adapterId;
  }
  declare(): CapabilityDeclaration {
    return this.#declaration;
  }
  validatePayload(effectType: string, payload: Readonly<Record<string, unknown>>): void {
    this.#inner.validatePayload(effectType, payload);
  }
  dispatch(order: DispatchOrder, deadlineMs: number) {
    return this.#inner.dispatch(order, deadlineMs);
  }
  statusQuery(key: QueryKey, deadlineMs: number) {
    return this.#inner.statusQuery(key, deadlineMs);
  }
  async listEffects(
    window: { readonly from: string; readonly to: string },
    cursor: string | null,
    deadlineMs: number,
  ): Promise<ListPage> {
    const page = await this.#inner.listEffects(window, cursor, deadlineMs);
    return {
      nextCursor: page.nextCursor,
      effects: page.effects.map((e) => {
        // Like EasyPost: the listing carries no client ref, only the projected stable ids.
        const fields = this.projections.get(e.destinationRef);
        const listed = { ...e, clientRef: null };
        return fields === undefined ? listed : { ...listed, fields };
      }),
    };
  }
}

describeEachBackend("sweep: stable-id projections", (backend) => {
  it("matches a listed effect by a declared queryable stable-id projection of a claimed record of the same effect type", async () => {
    const ledger = await openTestLedger(backend);
    const refdest = createRefdest({ tier: "C2", seed: 42 });
    const base = refdestDeclaration("C2");
    const declaration: CapabilityDeclaration = {
      ...base,
      queryable: { supported: true, by: [...base.queryable.by, "stable_id:order_id"] },
    };
    const adapter = new ProjectingAdapter(
      new RefdestAdapter({
        baseUrl: "http://127.0.0.1:4100",
        declaration: base,
        transport: createInProcessTransport(refdest),
      }),
      declaration,
    );
    const irrevon = await openIrrevon({
      database: ledger.app,
      adapters: [adapter],
      clock: manualClock(),
      config: { orphanGraceSeconds: 0 },
      workerId: "projection",
      crashPoints: NO_CRASH_POINTS,
    });
    try {
      const { effectId } = await irrevon.register(
        orderContract({ stable_ids: { order_id: "A-1", customer_ref: "C-0007" } }),
      );
      // Committed, but the response is lost: no receipt names the destination ref.
      refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
      expect(await irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      const ours = refdest.truthDump().effects[0]?.destination_ref ?? "";
      // Registered but never dispatched: its stable id explains nothing.
      await irrevon.register(
        orderContract({ stable_ids: { order_id: "B-2", customer_ref: "C-0007" } }),
      );
      const unclaimed = refdest.createOutOfBand(OOB)[0]?.destination_ref ?? "";
      const otherType =
        refdest.createOutOfBand({ ...OOB, effect_type: "order.refund" })[0]?.destination_ref ?? "";
      const unknown = refdest.createOutOfBand(OOB)[0]?.destination_ref ?? "";
      adapter.projections.set(ours, { order_id: "A-1" });
      adapter.projections.set(unclaimed, { order_id: "B-2" });
      adapter.projections.set(otherType, { order_id: "A-1" });
      adapter.projections.set(unknown, { order_id: "Z-9" });
      await irrevon.sweep(adapter.adapterId);
      const run = await irrevon.sweep(adapter.adapterId);
      expect(run).toMatchObject({ listed: 4, matched: 1 });
      const sightings = await ledger.app.query<{
        destination_ref: string;
        match_path: string | null;
        matched_effect: string | null;
      }>(
        "SELECT DISTINCT destination_ref, match_path, matched_effect FROM sweep_sightings WHERE match_path IS NOT NULL",
      );
      expect(sightings.rows).toEqual([
        { destination_ref: ours, match_path: "stable_id:order_id", matched_effect: effectId },
      ]);
      const orphans = await ledger.app.query<{
        destination_ref: string;
        evidence: Record<string, unknown>;
      }>(
        "SELECT destination_ref, evidence FROM findings WHERE classification = 'ORPHANED' ORDER BY destination_ref",
      );
      expect(orphans.rows.map((r) => r.destination_ref)).toEqual(
        [otherType, unknown, unclaimed].sort(),
      );
      expect(orphans.rows[0]?.evidence["failed_match_paths"]).toEqual([
        "client_ref",
        "destination_ref",
        "stable_id:order_id",
      ]);
      await expectAuditClean(ledger);
    } finally {
      await irrevon.close();
      await ledger.close();
    }
  });
});

describeEachBackend("sweep: orphans", (backend) => {
  let f: EngineFixture | undefined;
  afterEach(async () => {
    if (f !== undefined) {
      await expectAuditClean(f.ledger);
      await f.close();
      f = undefined;
    }
  });

  it("2 legit + 3 out-of-band: no orphan after run 1, exactly 3 after run 2, no records created, idempotent", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 0 } });
    for (let i = 0; i < 2; i += 1) {
      const { effectId } = await f.irrevon.register(orderContract());
      expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
    }
    const strangers = [oob(f), oob(f), oob(f)].sort();
    const records = await count(f, "SELECT count(*) AS n FROM effect_records");
    const executions = await count(f, "SELECT count(*) AS n FROM effect_executions");

    const run1 = await f.irrevon.sweep(f.adapterId);
    expect(run1).toMatchObject({
      listed: 5,
      matched: 2,
      unmatched: 3,
      pending: 3,
      alreadyKnown: 0,
    });
    expect(run1.orphansCreated).toEqual([]);
    expect(await orphanRefs(f)).toEqual([]);

    const run2 = await f.irrevon.sweep(f.adapterId);
    expect(run2).toMatchObject({ listed: 5, matched: 2, unmatched: 3, pending: 0 });
    expect(run2.orphansCreated).toHaveLength(3);
    expect(await orphanRefs(f)).toEqual(strangers);

    const run3 = await f.irrevon.sweep(f.adapterId);
    expect(run3).toMatchObject({ listed: 5, matched: 2, alreadyKnown: 3 });
    expect(run3.orphansCreated).toEqual([]);
    expect(await orphanRefs(f)).toEqual(strangers);

    expect(await count(f, "SELECT count(*) AS n FROM effect_records")).toBe(records);
    expect(await count(f, "SELECT count(*) AS n FROM effect_executions")).toBe(executions);
    expect(f.refdest.requestLog().filter((e) => e.op === "create")).toHaveLength(2);
    const paths = await f.ledger.app.query<{ match_path: string | null; n: unknown }>(
      "SELECT match_path, count(*) AS n FROM sweep_sightings GROUP BY match_path ORDER BY match_path",
    );
    expect(paths.rows.map((r) => [r.match_path, Number(r.n)])).toEqual([
      ["client_ref", 6],
      [null, 9],
    ]);
    const evidence = await f.ledger.app.query<{
      evidence: Record<string, unknown>;
      created_by: string;
    }>("SELECT evidence, created_by FROM findings WHERE finding_id = $1", [run2.orphansCreated[0]]);
    expect(evidence.rows[0]).toMatchObject({
      created_by: "sweep",
      evidence: { runs_sighted: 2, failed_match_paths: ["client_ref", "destination_ref"] },
    });
    const status = (await f.irrevon.findings({ classification: "ORPHANED" })).map((x) => x.status);
    expect(status).toEqual(["OPEN", "OPEN", "OPEN"]);
  });

  it("the grace period holds an orphan back until destination time (or the engine clock) has moved past it", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 1_800 } });
    const first = oob(f);
    await f.irrevon.sweep(f.adapterId);
    const held = await f.irrevon.sweep(f.adapterId);
    expect(held).toMatchObject({ unmatched: 1, pending: 1 });
    expect(held.orphansCreated).toEqual([]);

    // Destination time moves on (seen through a newer listed effect): the first one is due.
    f.refdest.advanceClock(1_900);
    const second = oob(f);
    const due = await f.irrevon.sweep(f.adapterId);
    expect(due).toMatchObject({ unmatched: 2, pending: 1 });
    expect(await orphanRefs(f)).toEqual([first]);

    // A quiet destination: only the engine clock moves; that counts too.
    await f.irrevon.sweep(f.adapterId);
    expect(await orphanRefs(f)).toEqual([first]);
    f.clock.advance(1_801_000);
    await f.irrevon.sweep(f.adapterId);
    expect(await orphanRefs(f)).toEqual([first, second].sort());
  });

  it("an out-of-window listing is empty and records nothing unmatched", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 0 } });
    oob(f);
    const window = { from: "2020-01-01T00:00:00Z", to: "2020-01-02T00:00:00Z" };
    for (let i = 0; i < 2; i += 1) {
      const run = await f.irrevon.sweep(f.adapterId, window);
      expect(run).toMatchObject({
        listed: 0,
        matched: 0,
        unmatched: 0,
        window: { source: "explicit" },
      });
    }
    expect(await orphanRefs(f)).toEqual([]);
    expect(await count(f, "SELECT count(*) AS n FROM sweep_sightings")).toBe(0);
    expect(await count(f, "SELECT count(*) AS n FROM sweep_runs")).toBe(2);
    await expect(
      f.irrevon.sweep(f.adapterId, { from: "2020-01-02T00:00:00Z", to: "2020-01-01T00:00:00Z" }),
    ).rejects.toMatchObject({ code: "usage" });
  });

  it("the list filter quirk cannot hide an effect from the sweep (include_all)", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 0 } });
    f.refdest.schedule([{ fault: "LIST_FILTER_QUIRK", match: { op: "oob" } }]);
    const hidden = oob(f);
    const plain = await f.refdest.list({
      from: "2000-01-01T00:00:00Z",
      to: "2999-01-01T00:00:00Z",
    });
    expect(JSON.stringify(plain)).not.toContain(hidden);
    await f.irrevon.sweep(f.adapterId);
    await f.irrevon.sweep(f.adapterId);
    expect(await orphanRefs(f)).toEqual([hidden]);
  });

  it("lists every page; a pending ref is seen again after traffic moved the default window on", async () => {
    f = await openEngineFixture(backend, {
      config: { orphanGraceSeconds: 0, sweepOverlapSeconds: 60 },
    });
    const early = oob(f);
    f.refdest.advanceClock(10_000);
    const many = Array.from({ length: 104 }, () => oob(f as EngineFixture));
    const run1 = await f.irrevon.sweep(f.adapterId);
    expect(run1).toMatchObject({ pages: 2, listed: 105, truncated: false });
    // The default window now starts before `early` only because `early` is still pending.
    const run2 = await f.irrevon.sweep(f.adapterId);
    expect(Date.parse(run2.window.from)).toBeLessThan(
      Date.parse(run1.destinationNow ?? "") - 60_000,
    );
    expect(run2.orphansCreated).toHaveLength(105);
    expect(await orphanRefs(f)).toEqual([early, ...many].sort());
    const run3 = await f.irrevon.sweep(f.adapterId);
    expect(run3.listed).toBeLessThan(105);
  });

  it("an effect being dispatched right now matches by its stamped client ref, never an orphan", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 0 } });
    const { effectId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DELAY", match: { op: "create" }, param: { ms: 1_000 } }]);
    const fixture = f;
    const inFlight = fixture.irrevon.dispatch(effectId);
    while (fixture.refdest.truthDump().effects.length === 0)
      await new Promise((r) => setTimeout(r, 10));
    const during = [await f.irrevon.sweep(f.adapterId), await f.irrevon.sweep(f.adapterId)];
    expect(during.map((r) => [r.listed, r.matched])).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(await inFlight).toMatchObject({ status: "dispatched", lifecycle: "SETTLED_COMMITTED" });
    await f.irrevon.sweep(f.adapterId);
    expect(await orphanRefs(f)).toEqual([]);
  });

  it("matches by a receipt's destination ref when the destination stamps no client ref", async () => {
    const base = refdestDeclaration("C2");
    f = await openEngineFixture(backend, {
      config: { orphanGraceSeconds: 0 },
      declaration: {
        ...base,
        client_ref_field: null,
        queryable: { supported: true, by: ["destination_ref"] },
      },
    });
    const { effectId } = await f.irrevon.register(orderContract());
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
    await f.irrevon.sweep(f.adapterId);
    const run = await f.irrevon.sweep(f.adapterId);
    expect(run).toMatchObject({ listed: 1, matched: 1 });
    const path = await f.ledger.app.query<{ match_path: string; matched_effect: string }>(
      "SELECT DISTINCT match_path, matched_effect FROM sweep_sightings",
    );
    expect(path.rows).toEqual([{ match_path: "destination_ref", matched_effect: effectId }]);
    expect(await orphanRefs(f)).toEqual([]);
  });

  it("a matched effect its record never saw is audited once, even when the audit's key cannot see it", async () => {
    const base = refdestDeclaration("C2");
    // Client refs are listed but cannot be queried: the audit asks by destination ref.
    f = await openEngineFixture(backend, {
      config: { orphanGraceSeconds: 0 },
      declaration: { ...base, queryable: { supported: true, by: ["destination_ref"] } },
    });
    const { effectId, operationId } = await f.irrevon.register(orderContract());
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
    await f.irrevon.sweep(f.adapterId);
    f.refdest.createOutOfBand({ ...OOB, client_ref: operationId });
    const first = await f.irrevon.sweep(f.adapterId);
    expect(first).toMatchObject({ listed: 2, matched: 2, audited: [effectId] });
    const again = await f.irrevon.sweep(f.adapterId);
    expect(again).toMatchObject({ listed: 2, matched: 2, audited: [] });
    expect(
      await count(f, "SELECT count(*) AS n FROM status_probes WHERE probe_kind = 'audit'"),
    ).toBe(1);
  });

  it("a destination that cannot list (C3) is refused and nothing is recorded", async () => {
    f = await openEngineFixture(backend, { tier: "C3" });
    const error = await f.irrevon.sweep("refdest-c3").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IrrevonError);
    expect(error).toMatchObject({ code: "capability_unsupported" });
    await expect(f.irrevon.sweep("no-such-adapter")).rejects.toMatchObject({
      code: "capability_unsupported",
    });
    expect(await count(f, "SELECT count(*) AS n FROM sweep_runs")).toBe(0);
  });
});
