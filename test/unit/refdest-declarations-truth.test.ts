/**
 * Every packaged refdest declaration is TRUE of the reference destination it describes,
 * checked against the destination itself (in process, on an injected clock — the same one
 * clock the destination measures everything on):
 *   - consistency lags: an effect is visible to status reads (and to a listing) no later than
 *     the declared lag after its creation, in seconds of time — however little or much other
 *     traffic there was meanwhile (a destination that measured lag in request ticks kept an
 *     effect hidden for as long as nobody called it);
 *   - the C1 idempotency window: a replay with the same key and parameters just inside the
 *     declared window creates nothing, however many requests came in between (a tick clock
 *     forgot the key after 86 400 requests, minutes of busy traffic);
 *   - query keys: every key kind `queryable.by` lists answers PRESENT for an effect that
 *     exists and ABSENT for one that does not; `list_queryable` matches the list route;
 *   - idempotency.supported: C1 deduplicates a repeated key, C2 does not;
 *   - queryable.batch_max: the destination answers a batch of exactly that many keys in one
 *     request; without it the adapter offers no batch.
 */
import { describe, expect, it } from "vitest";
import type { CapabilityDeclaration, QueryKey } from "../../src/adapters/contract.js";
import { parseIsoDurationSeconds } from "../../src/adapters/declaration.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
  REFDEST_C2_LAGGED_DECLARATION,
  REFDEST_C3_DECLARATION,
  refdestDeclaration,
} from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";

const PACKAGED: ReadonlyArray<{ readonly name: string; readonly lagSeconds: number; readonly d: CapabilityDeclaration }> = [
  { name: "REFDEST_C1_DECLARATION", lagSeconds: 0, d: REFDEST_C1_DECLARATION },
  { name: "REFDEST_C2_DECLARATION", lagSeconds: 0, d: REFDEST_C2_DECLARATION },
  { name: "REFDEST_C3_DECLARATION", lagSeconds: 0, d: REFDEST_C3_DECLARATION },
  { name: "REFDEST_C2_LAGGED_DECLARATION", lagSeconds: 30, d: REFDEST_C2_LAGGED_DECLARATION },
  { name: "refdestDeclaration(C1, lag 5)", lagSeconds: 5, d: refdestDeclaration("C1", { lagSeconds: 5 }) },
  { name: "refdestDeclaration(C2, lag 600)", lagSeconds: 600, d: refdestDeclaration("C2", { lagSeconds: 600 }) },
  { name: "refdestDeclaration(C2, batch 100)", lagSeconds: 0, d: refdestDeclaration("C2", { batchMax: 100 }) },
  { name: "refdestDeclaration(C1, lag 5, batch 1000)", lagSeconds: 5, d: refdestDeclaration("C1", { lagSeconds: 5, batchMax: 1000 }) },
];

interface Rig {
  readonly refdest: Refdest;
  readonly adapter: RefdestAdapter;
  advance(ms: number): void;
}

function rig(d: CapabilityDeclaration, lagSeconds: number): Rig {
  let nowMs = 1_000_000;
  const refdest = createRefdest({
    tier: d.tier,
    seed: 7,
    lagSeconds,
    clock: { nowMs: () => nowMs },
  });
  const adapter = new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration: d,
    transport: createInProcessTransport(refdest),
  });
  return {
    refdest,
    adapter,
    advance: (ms) => {
      nowMs += ms;
    },
  };
}

function order(n: number): Parameters<RefdestAdapter["dispatch"]>[0] {
  const op = `${"c".repeat(64)}:${n}`;
  return {
    operationId: op,
    effectType: "order.create",
    payload: { sku: `SKU-${n}` },
    clientRef: op,
    idempotencyKey: op,
    stableIds: { order_id: String(n) },
  };
}

function keyFor(kind: string, op: string, ref: string): QueryKey {
  return kind === "destination_ref"
    ? { kind: "destination_ref", value: ref }
    : { kind: "client_ref", value: op };
}

const secondsOf = (d: string | null): number | null => (d === null ? null : parseIsoDurationSeconds(d));

describe.each(PACKAGED)("$name is true of the reference destination", ({ d, lagSeconds }) => {
  it("status lag: visible to every listed key no later than the declared lag, with no traffic in between", async () => {
    const lag = secondsOf(d.consistency.status_settlement_lag);
    if (d.tier === "C3" || !d.queryable.supported) {
      expect(lag).toBeNull();
      return;
    }
    expect(lag).not.toBeNull();
    const r = rig(d, lagSeconds);
    const sent = await r.adapter.dispatch(order(1), 1_000);
    expect(sent.transportOutcome).toBe("OK");
    const ref = sent.destinationRef ?? "";
    r.advance((lag ?? 0) * 1000);
    for (const kind of d.queryable.by) {
      const answer = await r.adapter.statusQuery(keyFor(kind, order(1).operationId, ref), 1_000);
      expect({ kind, result: answer.result }).toEqual({ kind, result: "PRESENT" });
    }
    const other = await r.adapter.statusQuery(keyFor("client_ref", order(2).operationId, ""), 1_000);
    expect(other.result).toBe("ABSENT");
  });

  it("batch_max: a batch of exactly that many keys is answered key by key; none declared, none offered", async () => {
    const r = rig(d, lagSeconds);
    const max = d.queryable.batch_max ?? null;
    const probe: QueryKey[] = [{ kind: "client_ref", value: order(9).operationId }];
    if (max === null) {
      await expect(r.adapter.statusQueryBatch(probe, 1_000)).rejects.toMatchObject({
        code: "capability_unsupported",
      });
      return;
    }
    const sent = await r.adapter.dispatch(order(5), 1_000);
    r.advance((secondsOf(d.consistency.status_settlement_lag) ?? 0) * 1000);
    const keys: QueryKey[] = [
      keyFor("destination_ref", "", sent.destinationRef ?? ""),
      ...Array.from({ length: max - 1 }, (_, i) => keyFor("client_ref", order(100 + i).operationId, "")),
    ];
    const answers = await r.adapter.statusQueryBatch(keys, 1_000);
    expect(answers.map((a) => a.result)).toEqual(["PRESENT", ...Array<string>(max - 1).fill("ABSENT")]);
    expect(r.refdest.requestLog().filter((e) => e.op === "query_batch")).toHaveLength(1);
  });

  it("listing lag and list_queryable: a listing shows the effect no later than the declared lag", async () => {
    const r = rig(d, lagSeconds);
    if (!d.list_queryable) {
      await expect(
        r.adapter.listEffects({ from: "2026-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z" }, null, 1_000),
      ).rejects.toMatchObject({ code: "capability_unsupported" });
      return;
    }
    const lag = secondsOf(d.consistency.listing_lag);
    expect(lag).not.toBeNull();
    await r.adapter.dispatch(order(3), 1_000);
    r.advance((lag ?? 0) * 1000);
    const page = await r.adapter.listEffects(
      { from: "2026-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z" },
      null,
      1_000,
    );
    expect(page.effects.map((e) => e.clientRef)).toEqual([order(3).operationId]);
  });

  it("idempotency: the declared window holds under busy traffic; undeclared means no dedup", async () => {
    if (d.tier === "C3") return;
    const r = rig(d, lagSeconds);
    const first = await r.adapter.dispatch(order(4), 1_000);
    expect(first.transportOutcome).toBe("OK");
    if (d.idempotency.supported) {
      const windowSeconds = secondsOf(d.idempotency.window);
      expect(windowSeconds).not.toBeNull();
      // 90 000 requests (more than the 86 400 a tick clock counted as the window) in a few ms of time, then to just inside the window.
      for (let i = 0; i < 90_000; i += 1) await r.refdest.get("dest_none");
      r.advance((windowSeconds ?? 0) * 1000 - 1);
      const replay = await r.adapter.dispatch(order(4), 1_000);
      expect(replay).toMatchObject({ transportOutcome: "OK", destinationRef: first.destinationRef });
      expect(r.refdest.truthDump().effects).toHaveLength(1);
    } else {
      await r.adapter.dispatch(order(4), 1_000);
      expect(r.refdest.truthDump().effects).toHaveLength(2);
    }
  });
});
