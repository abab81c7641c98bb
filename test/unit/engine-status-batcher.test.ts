/**
 * The engine's batch status lookups (engine/status-batcher, engine/call-adapter): keys asked in
 * the same turn of the event loop leave as one statusQueryBatch call; no call carries more
 * than batch_max keys; at most maxInFlight calls are in flight per destination, and keys that
 * arrive meanwhile join the next batch; every answer goes through the single query's checks
 * (ABSENT with refs ⇒ INDETERMINATE); and a batch that throws, answers a non-array or the wrong
 * number of results, or overruns its deadline is INDETERMINATE for every key, naming the
 * violation. The registry refuses a declared batch_max without statusQueryBatch.
 */
import { describe, expect, it } from "vitest";
import type { Adapter, QueryKey, StatusResult } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { buildAdapterRegistry } from "../../src/engine/adapter-registry.js";
import { callStatusQueryBatch } from "../../src/engine/call-adapter.js";
import {
  largestBatchMax,
  recoveryProbeChannel,
  StatusBatcher,
  WireSlots,
} from "../../src/engine/status-batcher.js";
import { isIrrevonError } from "../../src/core/errors.js";

const key = (i: number): QueryKey => ({ kind: "client_ref", value: `op-${i}` });
const present = (ref: string): StatusResult => ({
  result: "PRESENT",
  nFound: 1,
  destinationRefs: [ref],
  evidence: {},
});
const absent: StatusResult = { result: "ABSENT", nFound: 0, destinationRefs: [], evidence: {} };

/** An adapter whose batch answers are computed by `answer`; records every call's keys. */
function batchAdapter(
  answer: (keys: readonly QueryKey[]) => Promise<readonly unknown[]> | readonly unknown[],
  options: { readonly batchMax?: number; readonly delayMs?: number } = {},
): Adapter & { calls: QueryKey[][]; maxInFlight: number } {
  let inFlight = 0;
  const self = {
    calls: [] as QueryKey[][],
    maxInFlight: 0,
    adapterId: "refdest-c2",
    declare: () => refdestDeclaration("C2", { batchMax: options.batchMax ?? 10 }),
    validatePayload: () => undefined,
    dispatch: () => Promise.reject(new Error("unused")),
    statusQuery: () => Promise.reject(new Error("single query not expected")),
    listEffects: () => Promise.reject(new Error("unused")),
    async statusQueryBatch(keys: readonly QueryKey[]): Promise<readonly StatusResult[]> {
      self.calls.push([...keys]);
      inFlight += 1;
      self.maxInFlight = Math.max(self.maxInFlight, inFlight);
      try {
        if (options.delayMs !== undefined) await new Promise((r) => setTimeout(r, options.delayMs));
        return (await answer(keys)) as readonly StatusResult[];
      } finally {
        inFlight -= 1;
      }
    },
  };
  return self;
}

/** Present when the key's number is even, absent when odd. */
const evenPresent = (keys: readonly QueryKey[]): StatusResult[] =>
  keys.map((k) => (Number(k.value.slice(3)) % 2 === 0 ? present(`dest-${k.value}`) : absent));

/** A batcher over `adapter` with `batchMax` keys a call and `slots` calls in flight at most. */
function batcherFor(adapter: Adapter, batchMax: number, slots: number): StatusBatcher {
  return new StatusBatcher(adapter, { batchMax, deadlineMs: 1000, slots: new WireSlots(slots) });
}

describe("coalescing", () => {
  it("keys asked in one turn leave as one batch, answered key by key in order", async () => {
    const adapter = batchAdapter(evenPresent);
    const batcher = batcherFor(adapter, 10, 4);
    const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => batcher.query(key(i))));
    expect(adapter.calls.map((c) => c.map((k) => k.value))).toEqual([
      ["op-0", "op-1", "op-2", "op-3", "op-4"],
    ]);
    expect(answers.map((a) => [a.result, a.destinationRefs, a.batchSize])).toEqual([
      ["PRESENT", ["dest-op-0"], 5],
      ["ABSENT", [], 5],
      ["PRESENT", ["dest-op-2"], 5],
      ["ABSENT", [], 5],
      ["PRESENT", ["dest-op-4"], 5],
    ]);
  });

  it("keys asked in later turns make later batches", async () => {
    const adapter = batchAdapter(evenPresent);
    const batcher = batcherFor(adapter, 10, 4);
    const first = await Promise.all([batcher.query(key(0)), batcher.query(key(1))]);
    const second = await batcher.query(key(2));
    expect(adapter.calls.map((c) => c.length)).toEqual([2, 1]);
    expect([...first, second].map((a) => a.result)).toEqual(["PRESENT", "ABSENT", "PRESENT"]);
  });

  it("never sends more than batch_max keys; a full queue leaves at once", async () => {
    const adapter = batchAdapter(evenPresent, { batchMax: 4 });
    const batcher = batcherFor(adapter, 4, 8);
    const answers = await Promise.all(Array.from({ length: 11 }, (_, i) => batcher.query(key(i))));
    expect(adapter.calls.map((c) => c.length)).toEqual([4, 4, 3]);
    expect(adapter.calls.flat().map((k) => k.value)).toEqual(
      Array.from({ length: 11 }, (_, i) => `op-${i}`),
    );
    expect(answers.map((a) => a.result)).toEqual(
      Array.from({ length: 11 }, (_, i) => (i % 2 === 0 ? "PRESENT" : "ABSENT")),
    );
  });

  it("the rest of a turn's keys after its full batches leaves with them, in parallel", async () => {
    const adapter = batchAdapter(evenPresent, { batchMax: 4, delayMs: 20 });
    const batcher = batcherFor(adapter, 4, 8);
    await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.query(key(i))));
    expect(adapter.calls.map((c) => c.length)).toEqual([4, 4, 2]);
    expect(adapter.maxInFlight).toBe(3);
  });

  it("keys that trickle in while a batch is in flight wait for it and leave together", async () => {
    const adapter = batchAdapter(evenPresent, { batchMax: 10, delayMs: 20 });
    const batcher = batcherFor(adapter, 10, 8);
    const first = batcher.query(key(0));
    await new Promise((r) => setImmediate(r));
    const later: Promise<unknown>[] = [];
    for (let i = 1; i <= 5; i++) {
      later.push(batcher.query(key(i)));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all([first, ...later]);
    // Not one call per key: a free wire slot alone does not send a partial batch.
    expect(adapter.calls.map((c) => c.length)).toEqual([1, 5]);
    expect(adapter.maxInFlight).toBe(1);
  });

  it("keeps at most maxInFlight calls in flight; keys that wait join the next batch", async () => {
    const adapter = batchAdapter(evenPresent, { batchMax: 3, delayMs: 20 });
    const batcher = batcherFor(adapter, 3, 1);
    const first = batcher.query(key(0)); // leaves alone on the next turn
    await new Promise((r) => setImmediate(r));
    // While it is in flight, five more keys arrive one turn apart: they wait for the slot.
    const later: Promise<unknown>[] = [];
    for (let i = 1; i <= 5; i++) {
      later.push(batcher.query(key(i)));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all([first, ...later]);
    expect(adapter.maxInFlight).toBe(1);
    expect(adapter.calls.map((c) => c.length)).toEqual([1, 3, 2]);
  });
});

describe("a batch that fails as a whole is INDETERMINATE for every key", () => {
  const cases: ReadonlyArray<
    readonly [string, (keys: readonly QueryKey[]) => readonly unknown[] | Promise<never>, string]
  > = [
    ["throws", () => Promise.reject(new Error("boom")), "threw"],
    ["answers one result too few", (keys) => evenPresent(keys).slice(1), "wrong_length"],
    ["answers one result too many", (keys) => [...evenPresent(keys), absent], "wrong_length"],
    ["answers something that is not a list", () => ({ results: [] }) as never, "not_an_array"],
  ];
  it.each(cases)("a batch that %s", async (_label, answer, violation) => {
    const adapter = batchAdapter(answer);
    const batcher = batcherFor(adapter, 10, 2);
    const answers = await Promise.all([0, 1, 2].map((i) => batcher.query(key(i))));
    for (const a of answers) {
      expect(a.result).toBe("INDETERMINATE");
      expect(a.nFound).toBeNull();
      expect(a.evidence).toMatchObject({ engine: "batch_contract_violation", violation });
      expect(a.batchSize).toBe(3);
    }
  });

  it("a batch that overruns its deadline: INDETERMINATE, adapter_overran_deadline", async () => {
    const adapter = batchAdapter(() => new Promise<never>(() => undefined));
    const answers = await callStatusQueryBatch(adapter, [key(0), key(1)], 20);
    expect(answers.map((a) => [a.result, a.evidence["engine"]])).toEqual([
      ["INDETERMINATE", "adapter_overran_deadline"],
      ["INDETERMINATE", "adapter_overran_deadline"],
    ]);
  }, 5_000);

  it("an adapter without statusQueryBatch answers nothing for any key", async () => {
    const { statusQueryBatch: _omit, ...single } = batchAdapter(evenPresent);
    const answers = await callStatusQueryBatch(single, [key(0)], 1000);
    expect(answers[0]?.evidence).toMatchObject({
      engine: "batch_contract_violation",
      violation: "no_batch_method",
    });
  });
});

describe("each answer of a batch is checked like a single query's", () => {
  it("ABSENT with refs, PRESENT without a count and garbage are INDETERMINATE; the rest stand", async () => {
    const adapter = batchAdapter(() => [
      { result: "ABSENT", nFound: 0, destinationRefs: ["dest-x"], evidence: {} },
      { result: "PRESENT", nFound: null, destinationRefs: ["dest-y"], evidence: {} },
      "garbage",
      present("dest-z"),
      absent,
    ]);
    const answers = await callStatusQueryBatch(
      adapter,
      [0, 1, 2, 3, 4].map((i) => key(i)),
      1000,
    );
    expect(answers.map((a) => [a.result, a.evidence["engine"] ?? null])).toEqual([
      ["INDETERMINATE", "adapter_contract_violation"],
      ["INDETERMINATE", "inconsistent_status_result"],
      ["INDETERMINATE", "malformed_status_result"],
      ["PRESENT", null],
      ["ABSENT", null],
    ]);
  });
});

describe("the recovery probe channel", () => {
  it("asks adapters without batch_max by single query, at most maxInFlight at once", async () => {
    let inFlight = 0;
    let most = 0;
    const single: Adapter = {
      adapterId: "refdest-c2",
      declare: () => refdestDeclaration("C2"),
      validatePayload: () => undefined,
      dispatch: () => Promise.reject(new Error("unused")),
      async statusQuery() {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight -= 1;
        return absent;
      },
      listEffects: () => Promise.reject(new Error("unused")),
    };
    const registry = buildAdapterRegistry([single]);
    expect(largestBatchMax(registry)).toBeNull();
    const channel = recoveryProbeChannel({ maxInFlight: 3, deadlineMs: 1000 });
    const entry = registry.require("refdest-c2");
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => channel.status(entry, key(i))),
    );
    expect(most).toBe(3);
    expect(answers.every((a) => a.result === "ABSENT" && a.batchSize === undefined)).toBe(true);
  });

  it("batches for an adapter with batch_max; replays share its in-flight bound", async () => {
    const adapter = batchAdapter(evenPresent, { batchMax: 50, delayMs: 10 });
    const registry = buildAdapterRegistry([adapter]);
    expect(largestBatchMax(registry)).toBe(50);
    const entry = registry.require("refdest-c2");
    const channel = recoveryProbeChannel({ maxInFlight: 1, deadlineMs: 1000 });
    let replaysRunning = 0;
    const replay = channel.replay(entry, async () => {
      replaysRunning += 1;
      await new Promise((r) => setTimeout(r, 10));
      // No batch call may be in flight while the replay holds the only slot.
      expect(adapter.calls).toHaveLength(0);
      replaysRunning -= 1;
      return "replayed";
    });
    const answers = await Promise.all(
      Array.from({ length: 7 }, (_, i) => channel.status(entry, key(i))),
    );
    expect(await replay).toBe("replayed");
    expect(replaysRunning).toBe(0);
    expect(adapter.calls.map((c) => c.length)).toEqual([7]);
    expect(answers.map((a) => a.batchSize)).toEqual(Array(7).fill(7));
  });
});

describe("the adapter registry", () => {
  it("refuses a declared batch_max without statusQueryBatch, naming the field and the fix", () => {
    const { statusQueryBatch: _omit, ...single } = batchAdapter(evenPresent);
    let caught: unknown;
    try {
      buildAdapterRegistry([single]);
    } catch (e) {
      caught = e;
    }
    expect(isIrrevonError(caught)).toBe(true);
    if (!isIrrevonError(caught)) return;
    expect(caught.code).toBe("config_invalid");
    expect(caught.details).toMatchObject({
      adapter_id: "refdest-c2",
      field: "/queryable/batch_max",
    });
    expect(String(caught.details["fix"])).toContain("statusQueryBatch");
  });

  it("records batch_max on the entry (null without it)", () => {
    const registry = buildAdapterRegistry([batchAdapter(evenPresent, { batchMax: 25 })]);
    expect(registry.require("refdest-c2").batchMax).toBe(25);
  });
});
