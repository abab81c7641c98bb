/**
 * The reference destination's batch status lookup (`POST /effects/status`) and the adapter side
 * (`RefdestAdapter.statusQueryBatch`, `refdestDeclaration(tier, { batchMax })`): each element is
 * exactly what the single GET answers (status, body, digest; read lag included); one request in
 * the log (op `query_batch`) however many keys; read faults scheduled on `query_batch` take the
 * whole call (and a fault on `query` does not); more than 1000 keys is a 400 naming the field
 * and the limit; the adapter answers each key as `statusQuery` would and INDETERMINATE for every
 * key of a call that failed; and the declarations without `batchMax` keep their digests.
 */
import { describe, expect, it } from "vitest";
import type { QueryKey, StatusResult } from "../../src/adapters/contract.js";
import { declarationDigest, loadDeclaration } from "../../src/adapters/declaration.js";
import {
  REFDEST_C2_DECLARATION,
  refdestDeclaration,
} from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import {
  createInProcessTransport,
  frozenTimeSource,
  MAX_STATUS_BATCH_KEYS,
  Refdest,
  routeRefdestRequest,
  type FaultEntryInput,
  type RefdestReply,
} from "../../src/refdest/index.js";

type Json = Record<string, unknown>;
const MISSING = "dest_00000000000000000000000000000000";

function post(d: Refdest, body: unknown, path = "/effects/status"): Promise<RefdestReply> {
  return routeRefdestRequest(d, {
    method: "POST",
    target: path,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
function res(reply: RefdestReply): { status: number; body: Json } {
  if (reply.kind !== "response") throw new Error("expected a response, got a drop");
  return { status: reply.status, body: reply.body as Json };
}
const errorOf = (reply: RefdestReply): Json => res(reply).body["error"] as Json;

async function seeded(faults: FaultEntryInput[] = []) {
  const d = new Refdest({ tier: "C2", seed: 42, clock: frozenTimeSource });
  const a = res(await d.create({ effect_type: "t", payload: { n: 1 }, client_ref: "op-a" }));
  const b = res(await d.create({ effect_type: "t", payload: { n: 2 }, client_ref: "op-b" }));
  d.schedule(faults);
  return {
    d,
    refA: a.body["destination_ref"] as string,
    refB: b.body["destination_ref"] as string,
  };
}

describe("POST /effects/status", () => {
  it("answers each key as the single GET does, in key order, as one logged request", async () => {
    const { d, refA, refB } = await seeded();
    const logBefore = d.requestLog().length;
    const keys = [
      { by: "destination_ref", value: MISSING },
      { by: "client_ref", value: "op-b" },
      { by: "destination_ref", value: refA },
      { by: "client_ref", value: "op-none" },
      { by: "destination_ref", value: refB },
    ];
    const reply = res(await post(d, { keys }));
    expect(reply.status).toBe(200);
    const results = reply.body["results"] as Json[];
    const singles = [
      await d.get(MISSING),
      await d.query("op-b"),
      await d.get(refA),
      await d.query("op-none"),
      await d.get(refB),
    ].map(res);
    expect(results).toEqual(singles.map((s) => ({ status: s.status, body: s.body })));
    expect(results.map((r) => r["status"])).toEqual([404, 200, 200, 200, 200]);
    const log = d.requestLog().slice(logBefore);
    expect(log.map((e) => [e.op, e.outcome])).toEqual([
      ["query_batch", 200],
      ["get", 404],
      ["query", 200],
      ["get", 200],
      ["query", 200],
      ["get", 200],
    ]);
  });

  it("read lag hides a new effect from a batch as from a single GET", async () => {
    const d = new Refdest({ tier: "C2", seed: 1, clock: frozenTimeSource, lagSeconds: 30 });
    await d.create({ effect_type: "t", payload: {}, client_ref: "op-lag" });
    const ask = async () =>
      (
        res(await post(d, { keys: [{ by: "client_ref", value: "op-lag" }] })).body[
          "results"
        ] as Json[]
      )[0];
    expect(await ask()).toEqual({ status: 200, body: { matches: [] } });
    d.advanceClock(30);
    expect(((await ask())?.["body"] as Json)["matches"]).toHaveLength(1);
  });

  it(`refuses more than ${MAX_STATUS_BATCH_KEYS} keys, none, and unknown members, naming the field`, async () => {
    const { d } = await seeded();
    const before = d.requestCount;
    const tooMany = Array.from({ length: MAX_STATUS_BATCH_KEYS + 1 }, (_, i) => ({
      by: "client_ref",
      value: `k${i}`,
    }));
    const refusedMany = await post(d, { keys: tooMany });
    expect(res(refusedMany).status).toBe(400);
    expect(errorOf(refusedMany)).toMatchObject({ code: "invalid_request", field: "keys" });
    expect(String(errorOf(refusedMany)["message"])).toContain(String(MAX_STATUS_BATCH_KEYS));
    const empty = await post(d, { keys: [] });
    expect([res(empty).status, errorOf(empty)["field"]]).toEqual([400, "keys"]);
    const badKind = await post(d, { keys: [{ by: "stable_id", value: "x" }] });
    expect([res(badKind).status, errorOf(badKind)["field"]]).toEqual([400, "keys.0.by"]);
    const extra = await post(d, { keys: [{ by: "client_ref", value: "x" }], more: 1 });
    expect([res(extra).status, errorOf(extra)["field"]]).toEqual([400, "more"]);
    // Exactly the limit is accepted.
    const atLimit = res(await post(d, { keys: tooMany.slice(0, MAX_STATUS_BATCH_KEYS) }));
    expect([atLimit.status, (atLimit.body["results"] as unknown[]).length]).toEqual([
      200,
      MAX_STATUS_BATCH_KEYS,
    ]);
    // Refusals never ran an operation: only the accepted batch was numbered.
    expect(d.requestCount).toBe(before + 1);
  });

  it("is offered by C1 and C2 only; GET /effects/status still asks for a ref", async () => {
    const c3 = new Refdest({ tier: "C3", seed: 1 });
    const refused = await post(c3, { keys: [{ by: "client_ref", value: "x" }] });
    expect([res(refused).status, errorOf(refused)["code"]]).toEqual([404, "route_not_supported"]);
    const c1 = new Refdest({ tier: "C1", seed: 1 });
    expect(res(await post(c1, { keys: [{ by: "client_ref", value: "x" }] })).status).toBe(200);
    const get = await routeRefdestRequest(c1, {
      method: "GET",
      target: "/effects/status",
      headers: {},
      body: "",
    });
    expect([res(get).status, errorOf(get)["code"]]).toEqual([404, "resource_missing"]);
  });

  const faults: ReadonlyArray<readonly [FaultEntryInput["fault"], number | "dropped"]> = [
    ["THROTTLE_429", 429],
    ["ERROR_5XX_NO_COMMIT", 500],
    ["DROP_RESPONSE_BEFORE_COMMIT", "dropped"],
  ];
  it.each(faults)("a %s scheduled on query_batch takes the whole call", async (fault, outcome) => {
    const { d } = await seeded([{ fault, match: { op: "query_batch" } } as FaultEntryInput]);
    const reply = await post(d, { keys: [{ by: "client_ref", value: "op-a" }] });
    if (outcome === "dropped") expect(reply.kind).toBe("drop");
    else expect(res(reply).status).toBe(outcome);
    expect(d.requestLog().at(-1)).toMatchObject({ op: "query_batch", fault, outcome });
    // Consumed: the next batch is answered.
    expect(res(await post(d, { keys: [{ by: "client_ref", value: "op-a" }] })).status).toBe(200);
  });

  it("a DELAY on query_batch answers late with the answer computed at arrival", async () => {
    const { d } = await seeded([
      { fault: "DELAY", match: { op: "query_batch" }, param: { ms: 50 } },
    ]);
    const t = Date.now();
    const reply = res(await post(d, { keys: [{ by: "client_ref", value: "op-a" }] }));
    expect(Date.now() - t).toBeGreaterThanOrEqual(45);
    expect(reply.status).toBe(200);
  });

  it("a fault scheduled on single queries does not fire on a batch", async () => {
    const { d } = await seeded([{ fault: "THROTTLE_429", match: { op: "query" } }]);
    expect(res(await post(d, { keys: [{ by: "client_ref", value: "op-a" }] })).status).toBe(200);
    expect(res(await d.query("op-a")).status).toBe(429);
  });
});

function batchAdapter(d: Refdest, batchMax = 10) {
  return new RefdestAdapter({
    baseUrl: "http://127.0.0.1:1",
    declaration: refdestDeclaration("C2", { batchMax }),
    transport: createInProcessTransport(d),
  });
}
const summary = (r: StatusResult) => ({
  result: r.result,
  nFound: r.nFound,
  destinationRefs: r.destinationRefs,
  responseDigest: r.responseDigest,
});

describe("RefdestAdapter.statusQueryBatch", () => {
  it("answers each key as statusQuery does (result, count, refs, digest), in key order", async () => {
    const { d, refA } = await seeded([{ fault: "DUPLICATE_ACCEPT", match: { op: "create" } }]);
    await d.create({ effect_type: "t", payload: { n: 3 }, client_ref: "op-dup" });
    const adapter = batchAdapter(d);
    const keys: QueryKey[] = [
      { kind: "client_ref", value: "op-dup" },
      { kind: "destination_ref", value: MISSING },
      { kind: "client_ref", value: "op-none" },
      { kind: "destination_ref", value: refA },
    ];
    const batch = await adapter.statusQueryBatch(keys, 1000);
    const singles = await Promise.all(keys.map((k) => adapter.statusQuery(k, 1000)));
    expect(batch.map(summary)).toEqual(singles.map(summary));
    expect(batch.map((r) => [r.result, r.nFound])).toEqual([
      ["PRESENT", 2],
      ["ABSENT", 0],
      ["ABSENT", 0],
      ["PRESENT", 1],
    ]);
    expect(batch[0]?.evidence).toMatchObject({ endpoint: "POST /effects/status", batch_size: 4 });
  });

  const failing: ReadonlyArray<readonly [string, FaultEntryInput]> = [
    ["429", { fault: "THROTTLE_429", match: { op: "query_batch" } }],
    ["5xx", { fault: "ERROR_5XX_NO_COMMIT", match: { op: "query_batch" } }],
    [
      "a dropped connection",
      { fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "query_batch" } },
    ],
    [
      "a delay past the deadline",
      { fault: "DELAY", match: { op: "query_batch" }, param: { ms: 300 } },
    ],
  ];
  it.each(failing)("%s is INDETERMINATE for every key, never ABSENT", async (_name, fault) => {
    const { d } = await seeded([fault]);
    const out = await batchAdapter(d).statusQueryBatch(
      [
        { kind: "destination_ref", value: MISSING },
        { kind: "client_ref", value: "op-a" },
      ],
      100,
    );
    expect(out.map((r) => [r.result, r.nFound, r.destinationRefs])).toEqual([
      ["INDETERMINATE", null, []],
      ["INDETERMINATE", null, []],
    ]);
    d.cancelPendingDelays();
  });

  it("refuses more keys than batch_max (usage) and a declaration without it", async () => {
    const { d } = await seeded();
    const keys = Array.from({ length: 3 }, (_, i): QueryKey => ({
      kind: "client_ref",
      value: `k${i}`,
    }));
    await expect(batchAdapter(d, 2).statusQueryBatch(keys, 1000)).rejects.toMatchObject({
      code: "usage",
      details: { field: "keys", limit: 2 },
    });
    const plain = new RefdestAdapter({
      baseUrl: "http://127.0.0.1:1",
      declaration: REFDEST_C2_DECLARATION,
      transport: createInProcessTransport(d),
    });
    await expect(plain.statusQueryBatch(keys, 1000)).rejects.toMatchObject({
      code: "capability_unsupported",
    });
    await expect(
      batchAdapter(d).statusQueryBatch([{ kind: "stable_id", name: "x", value: "1" }], 1000),
    ).rejects.toMatchObject({ code: "capability_unsupported" });
    expect(d.requestLog().filter((e) => e.op === "query_batch")).toHaveLength(0);
  });
});

describe("refdestDeclaration with batchMax", () => {
  it("keeps every existing profile's declaration and digest; batchMax adds the field and its citation", () => {
    for (const tier of ["C1", "C2", "C3"] as const) {
      expect(refdestDeclaration(tier).queryable).not.toHaveProperty("batch_max");
    }
    const plain = refdestDeclaration("C2");
    const batch = refdestDeclaration("C2", { batchMax: 100 });
    expect(batch.queryable.batch_max).toBe(100);
    expect(batch.adapter).toBe(plain.adapter);
    expect(batch.citations).toContain("urn:irrevon:docs:refdest#batch-status-lookup");
    expect(declarationDigest(batch)).not.toBe(declarationDigest(plain));
    // An explicit null is the same declaration as an absent member: one digest.
    const withNull = loadDeclaration({
      ...plain,
      queryable: { ...plain.queryable, batch_max: null },
    });
    expect(withNull.queryable).not.toHaveProperty("batch_max");
    expect(declarationDigest(withNull)).toBe(declarationDigest(plain));
    // The digests every profile had before batch lookups existed (bench fixtures hash them).
    expect(
      [
        refdestDeclaration("C1"),
        refdestDeclaration("C2"),
        refdestDeclaration("C3"),
        refdestDeclaration("C2", { lagSeconds: 30 }),
      ].map(declarationDigest),
    ).toEqual([
      "sha256:d7089d38bf625dff9c17693b26f41a247664989f225a40e83412fa149e3fee23",
      "sha256:99583f9c983dc06cbee8bb62050c82c913f2d20f504bc4975cc2a291e8ff593f",
      "sha256:1b9446c8aed8f8e386bdd4093d1e299430a60686df74465ec4d71880aaa2642e",
      "sha256:3cce2ecfba369e23b17262a0afa54648b33517117780c2e99624ecf2468418fe",
    ]);
  });

  it("refuses batchMax on C3 (nothing can be looked up)", () => {
    expect(() => refdestDeclaration("C3", { batchMax: 10 })).toThrow(
      expect.objectContaining({
        code: "declaration_invalid",
        details: expect.objectContaining({ field: "/queryable/batch_max" }),
      }),
    );
  });
});
