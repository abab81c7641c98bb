/**
 * In-process behaviour of the reference destination: tiers, determinism, its one clock,
 * C1 replay window and parameter check, read lag, quirks, out-of-band creation, and every fault
 * kind on the write path. Wire behaviour (HTTP) is covered in test/integration/refdest-http.test.ts.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import {
  Refdest,
  deriveDestinationRef,
  frozenTimeSource,
  type RefdestReply,
} from "../../src/refdest/index.js";

/** Destination time that moves only when the test moves it (byte-identical runs). */
const frozen = { clock: frozenTimeSource };

type Json = Record<string, unknown>;
function res(reply: RefdestReply): {
  status: number;
  body: Json;
  headers: Readonly<Record<string, string>>;
} {
  if (reply.kind !== "response") throw new Error("expected a response, got a drop");
  return { status: reply.status, body: reply.body as Json, headers: reply.headers ?? {} };
}
const errCode = (reply: RefdestReply): unknown =>
  (res(reply).body["error"] as Json | undefined)?.["code"];
const order = (client_ref: string, extra: Json = {}) => ({
  effect_type: "order.create",
  payload: { sku: "A1", qty: 1, ...extra },
  client_ref,
});
const WINDOW = { from: "2026-07-21T00:00:00Z", to: "2026-07-22T00:00:00Z" };

describe("destination refs and the virtual clock", () => {
  it("derives the recorded refs for seed 777 and 42", () => {
    expect(deriveDestinationRef(777, 1)).toBe("dest_4dec67739b2a3b88d94e7f9502227114");
    expect(deriveDestinationRef(42, 1)).toBe("dest_03ddf851127d6cfea095f121d263f759");
  });

  it("stamps created_at from its one clock; requests are counted but do not move time", async () => {
    let nowMs = 0;
    const d = new Refdest({ tier: "C2", seed: 777, clock: { nowMs: () => nowMs } });
    const first = res(await d.create(order("op-1")));
    expect(first.status).toBe(201);
    expect(first.body["destination_ref"]).toBe("dest_4dec67739b2a3b88d94e7f9502227114");
    expect(first.body["created_at"]).toBe("2026-07-21T00:00:00Z");
    await d.query("op-1");
    await d.get("dest_x");
    nowMs += 4_250;
    const second = res(await d.create(order("op-2")));
    expect(second.body["created_at"]).toBe("2026-07-21T00:00:04.250Z");
    expect(second.body["destination_ref"]).toBe(deriveDestinationRef(777, 2));
    expect(d.state()["request_count"]).toBe(4);
  });

  it("by default destination time is real elapsed time", async () => {
    const d = new Refdest({ tier: "C2", seed: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const at = res(await d.create(order("x"))).body["created_at"] as string;
    expect(Date.parse(at) - Date.parse("2026-07-21T00:00:00Z")).toBeGreaterThanOrEqual(1_000);
  });

  it("advanceClock moves destination time without requests", async () => {
    const d = new Refdest({ tier: "C2", seed: 1, ...frozen });
    expect(d.advanceClock(100)).toBe("2026-07-21T00:01:40Z");
    expect(res(await d.create(order("x"))).body["created_at"]).toBe("2026-07-21T00:01:40Z");
    expect(() => d.advanceClock(-1)).toThrow(expect.objectContaining({ code: "config_invalid" }));
  });

  it("records payload digests as sha256 over RFC 8785 bytes", async () => {
    const d = new Refdest({ tier: "C2", seed: 3 });
    await d.create({ effect_type: "t", payload: { b: 2, a: [1, "x"] }, client_ref: "c" });
    const expected = "sha256:" + createHash("sha256").update('{"a":[1,"x"],"b":2}').digest("hex");
    expect(d.truthDump().effects[0]?.payload_digest).toBe(expected);
    expect(canonicalize(d.truthDump())).toBe(d.truthDumpJson());
  });
});

describe("tiers", () => {
  it("C2 never dedups: the same request twice makes two effects, both found by client_ref", async () => {
    const d = new Refdest({ tier: "C2", seed: 5 });
    await d.create({ ...order("op-1"), idempotency_key: "op-1" });
    await d.create({ ...order("op-1"), idempotency_key: "op-1" });
    const q = res(await d.query("op-1"));
    expect(q.status).toBe(200);
    expect((q.body["matches"] as unknown[]).length).toBe(2);
    expect(d.truthDump().effects.map((e) => e.idempotency_key)).toEqual(["op-1", "op-1"]);
  });

  it("C2 get answers 200 for a stored ref and 404 resource_missing otherwise", async () => {
    const d = new Refdest({ tier: "C2", seed: 5 });
    const ref = res(await d.create(order("op-1"))).body["destination_ref"] as string;
    expect(res(await d.get(ref)).status).toBe(200);
    const missing = await d.get(deriveDestinationRef(5, 2));
    expect(res(missing).status).toBe(404);
    expect(errCode(missing)).toBe("resource_missing");
  });

  it("C1 replays the first outcome of a key with the same parameters and creates nothing", async () => {
    const d = new Refdest({ tier: "C1", seed: 9 });
    const first = res(await d.create({ ...order("op-1"), idempotency_key: "op-1" }));
    const again = res(await d.create({ ...order("op-1"), idempotency_key: "op-1" }));
    expect(first.status).toBe(201);
    expect(first.body["replayed"]).toBe(false);
    expect(again.status).toBe(200);
    expect(again.body["replayed"]).toBe(true);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body["destination_ref"]).toBe(first.body["destination_ref"]);
    expect(d.truthDump().effects).toHaveLength(1);
  });

  it("C1 answers a key reused with different parameters with 409 idempotency_key_mismatch", async () => {
    const d = new Refdest({ tier: "C1", seed: 9 });
    await d.create({ ...order("op-1"), idempotency_key: "op-1" });
    const changed = await d.create({ ...order("op-1", { qty: 2 }), idempotency_key: "op-1" });
    expect(res(changed).status).toBe(409);
    expect(errCode(changed)).toBe("idempotency_key_mismatch");
    expect(d.truthDump().effects).toHaveLength(1);
  });

  it("C1 enforces the replay window on its clock", async () => {
    const d = new Refdest({ tier: "C1", seed: 9, idempotencyWindowSeconds: 10, ...frozen });
    await d.create({ ...order("op-1"), idempotency_key: "op-1" }); // t=0
    d.advanceClock(9); // t=9: inside the window
    expect(res(await d.create({ ...order("op-1"), idempotency_key: "op-1" })).status).toBe(200);
    d.advanceClock(1); // t=10: 10 s after the first: the key is forgotten and a new effect is made
    const late = res(await d.create({ ...order("op-1"), idempotency_key: "op-1" }));
    expect(late.status).toBe(201);
    expect(d.truthDump().effects).toHaveLength(2);
  });

  it("C1 replays a first 400 invalid_request outcome too", async () => {
    const d = new Refdest({ tier: "C1", seed: 9 });
    const rejected = {
      effect_type: "t",
      payload: { reject: true },
      client_ref: "c",
      idempotency_key: "k",
    };
    expect(res(await d.create(rejected)).status).toBe(400);
    const again = await d.create(rejected);
    expect(res(again).status).toBe(400);
    expect(res(again).headers["idempotent-replayed"]).toBe("true");
    expect(d.truthDump().effects).toHaveLength(0);
  });

  it("C3 only notifies: 202 {} with no ref, recorded in the truth log via notify", async () => {
    const d = new Refdest({ tier: "C3", seed: 2 });
    const r = res(await d.notify({ effect_type: "sms.send", payload: { to: "+1" } }));
    expect(r).toEqual({ status: 202, body: {}, headers: {} });
    expect(d.truthDump().effects[0]).toMatchObject({ via: "notify", client_ref: null });
    for (const reply of [
      await d.create(order("x")),
      await d.get("dest_x"),
      await d.query("x"),
      await d.list(WINDOW),
    ]) {
      expect(res(reply).status).toBe(404);
      expect(errCode(reply)).toBe("route_not_supported");
    }
    expect(
      res(await new Refdest({ tier: "C2", seed: 1 }).notify({ effect_type: "t", payload: {} }))
        .status,
    ).toBe(404);
  });

  it("payload.reject === true is a 400 invalid_request that stores nothing", async () => {
    const d = new Refdest({ tier: "C2", seed: 2 });
    const r = await d.create({ effect_type: "t", payload: { reject: true }, client_ref: "c" });
    expect(res(r).status).toBe(400);
    expect(errCode(r)).toBe("invalid_request");
    expect(d.truthDump().effects).toHaveLength(0);
  });
});

describe("listing", () => {
  it("lists by window with cursor pagination in creation order", async () => {
    const d = new Refdest({ tier: "C2", seed: 4 });
    for (let i = 0; i < 5; i++) await d.create(order(`op-${i}`));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = res(await d.list({ ...WINDOW, limit: 2, cursor }));
      seen.push(...(page.body["effects"] as Json[]).map((e) => e["client_ref"] as string));
      cursor = page.body["next_cursor"] as string | null;
      pages += 1;
    } while (cursor !== null);
    expect(seen).toEqual(["op-0", "op-1", "op-2", "op-3", "op-4"]);
    expect(pages).toBe(3);
  });

  it("filters by the created_at window (inclusive) and refuses bad bounds and cursors", async () => {
    const d = new Refdest({ tier: "C2", seed: 4, ...frozen });
    d.advanceClock(1);
    await d.create(order("a")); // t=1
    d.advanceClock(1);
    await d.create(order("b")); // t=2
    const only2 = res(await d.list({ from: "2026-07-21T00:00:02Z", to: "2026-07-21T00:00:02Z" }));
    expect((only2.body["effects"] as Json[]).map((e) => e["client_ref"])).toEqual(["b"]);
    expect(errCode(await d.list({ from: "yesterday", to: WINDOW.to }))).toBe("invalid_request");
    expect(errCode(await d.list({ ...WINDOW, cursor: "nope" }))).toBe("invalid_request");
    expect(errCode(await d.list({ ...WINDOW, limit: 101 }))).toBe("invalid_request");
  });
});

describe("read lag", () => {
  it("a profile lag hides a created effect from get, query and list until N destination seconds pass", async () => {
    const d = new Refdest({ tier: "C2", seed: 8, lagSeconds: 30, ...frozen });
    d.advanceClock(1);
    const ref = res(await d.create(order("op-1"))).body["destination_ref"] as string; // t=1, visible from t=31
    expect(res(await d.get(ref)).status).toBe(404);
    expect((res(await d.query("op-1")).body["matches"] as unknown[]).length).toBe(0);
    expect(
      (res(await d.list({ ...WINDOW, include_all: true })).body["effects"] as unknown[]).length,
    ).toBe(0);
    d.advanceClock(29); // t=30: still hidden, however many requests there were
    for (let i = 0; i < 100; i += 1) await d.get("dest_none");
    expect(res(await d.get(ref)).status).toBe(404);
    d.advanceClock(1); // t=31
    expect(res(await d.get(ref)).status).toBe(200);
    expect(d.truthDump().effects[0]?.visible_from).toBe("2026-07-21T00:00:31Z");
  });

  it("a READ_LAG fault lags one effect only; the write path (C1 replay) still sees it", async () => {
    const d = new Refdest({ tier: "C1", seed: 8 });
    d.schedule([{ fault: "READ_LAG", match: { client_ref: "slow" }, param: { seconds: 100 } }]);
    const slow = res(await d.create({ ...order("slow"), idempotency_key: "k-slow" })).body[
      "destination_ref"
    ] as string;
    const fast = res(await d.create({ ...order("fast"), idempotency_key: "k-fast" })).body[
      "destination_ref"
    ] as string;
    expect(res(await d.get(slow)).status).toBe(404);
    expect(res(await d.get(fast)).status).toBe(200);
    expect(
      res(await d.create({ ...order("slow"), idempotency_key: "k-slow" })).body["replayed"],
    ).toBe(true);
  });
});

describe("quirks and out-of-band effects", () => {
  it("LIST_FILTER_QUIRK hides an effect from a default listing but not from include_all", async () => {
    const d = new Refdest({ tier: "C2", seed: 6 });
    d.schedule([{ fault: "LIST_FILTER_QUIRK", match: { op: "oob" } }]);
    d.createOutOfBand({ effect_type: "t", payload: {} });
    await d.create(order("a"));
    const plain = res(await d.list(WINDOW)).body["effects"] as unknown[];
    const all = res(await d.list({ ...WINDOW, include_all: true })).body["effects"] as unknown[];
    expect(plain).toHaveLength(1);
    expect(all).toHaveLength(2);
    expect(d.truthDump().effects[0]?.visible_by_default).toBe(false);
  });

  it("the enrichment quirk (fault or profile) stores a wrapped payload whose digest differs", async () => {
    const d = new Refdest({ tier: "C2", seed: 6 });
    d.schedule([{ fault: "ENRICHMENT_QUIRK", match: { client_ref: "e" } }]);
    await d.create({ effect_type: "t", payload: { a: 1 }, client_ref: "e" });
    await d.create({ effect_type: "t", payload: { a: 1 }, client_ref: "p" });
    const [enriched, plain] = d.truthDump().effects;
    expect(enriched?.payload).toEqual({
      normalized: true,
      server_fields: { region: "dev-1", revision: 1 },
      data: { a: 1 },
    });
    expect(plain?.payload).toEqual({ a: 1 });
    expect(enriched?.payload_digest).not.toBe(plain?.payload_digest);
    const profile = new Refdest({ tier: "C2", seed: 6, enrichmentQuirk: true });
    await profile.create(order("x"));
    expect(profile.truthDump().effects[0]?.payload).toMatchObject({ normalized: true });
  });

  it("out-of-band creation honors client_ref, is counted as a request and is marked via oob", async () => {
    const d = new Refdest({ tier: "C2", seed: 6, ...frozen });
    const [view] = d.createOutOfBand({ effect_type: "t", payload: {}, client_ref: "someone-else" });
    expect(view).toMatchObject({ client_ref: "someone-else", created_at: "2026-07-21T00:00:00Z" });
    expect(d.state()["request_count"]).toBe(1);
    expect(d.truthDump().effects[0]?.via).toBe("oob");
    expect((res(await d.query("someone-else")).body["matches"] as unknown[]).length).toBe(1);
  });

  it("the truth row keeps the payload as sent, even if the caller mutates its object later", async () => {
    const d = new Refdest({ tier: "C2", seed: 6 });
    const payload: Record<string, unknown> = { a: 1 };
    await d.create({ effect_type: "t", payload, client_ref: "c" });
    payload["a"] = 2;
    expect(d.truthDump().effects[0]?.payload).toEqual({ a: 1 });
  });
});

describe("write-path faults", () => {
  const cases = [
    { fault: "THROTTLE_429", reply: 429, code: "rate_limited", stored: 0 },
    { fault: "DROP_RESPONSE_BEFORE_COMMIT", reply: "drop", stored: 0 },
    { fault: "ERROR_5XX_NO_COMMIT", reply: 500, code: "server_error", stored: 0 },
    { fault: "DROP_RESPONSE_AFTER_COMMIT", reply: "drop", stored: 1 },
    { fault: "ERROR_5XX_AFTER_COMMIT", reply: 500, code: "server_error", stored: 1 },
    { fault: "DUPLICATE_ACCEPT", reply: 201, stored: 2 },
  ] as const;
  for (const c of cases) {
    it(`${c.fault} answers ${c.reply} and leaves ${c.stored} effect(s)`, async () => {
      const d = new Refdest({ tier: "C2", seed: 11 });
      d.schedule([{ fault: c.fault, match: { op: "create" } }]);
      const reply = await d.create(order("op-1"));
      if (c.reply === "drop") expect(reply.kind).toBe("drop");
      else expect(res(reply).status).toBe(c.reply);
      if ("code" in c) expect(errCode(reply)).toBe(c.code);
      expect(d.truthDump().effects).toHaveLength(c.stored);
      expect(d.requestLog()[0]).toMatchObject({
        seq: 1,
        op: "create",
        fault: c.fault,
        outcome: c.reply === "drop" ? "dropped" : c.reply,
      });
      // once: the next identical request is clean
      expect(res(await d.create(order("op-2"))).status).toBe(201);
    });
  }

  it("DELAY with commit stores at arrival and answers after the delay", async () => {
    const d = new Refdest({ tier: "C2", seed: 11 });
    d.schedule([{ fault: "DELAY", match: { op: "create" }, param: { ms: 150, commit: true } }]);
    const started = Date.now();
    const pending = d.create(order("op-1"));
    expect(d.truthDump().effects).toHaveLength(1); // committed before the answer
    expect(res(await pending).status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("DELAY without commit stores nothing and answers 504 upstream_timeout late", async () => {
    const d = new Refdest({ tier: "C2", seed: 11 });
    d.schedule([{ fault: "DELAY", match: { op: "create" }, param: { ms: 50, commit: false } }]);
    const reply = await d.create(order("op-1"));
    expect(res(reply).status).toBe(504);
    expect(errCode(reply)).toBe("upstream_timeout");
    expect(d.truthDump().effects).toHaveLength(0);
  });

  it("a pending DELAY is cut (dropped) by reset", async () => {
    const d = new Refdest({ tier: "C2", seed: 11 });
    d.schedule([{ fault: "DELAY", match: { op: "create" }, param: { ms: 30_000 } }]);
    const pending = d.create(order("op-1"));
    d.reset();
    expect((await pending).kind).toBe("drop");
    expect(d.truthDump().effects).toHaveLength(0);
  });

  it("C3 notify honors the drop-after-commit fault (the bench's C3 response-lost cell)", async () => {
    const d = new Refdest({ tier: "C3", seed: 11 });
    d.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "notify" }, once: true }]);
    expect((await d.notify({ effect_type: "t", payload: {} })).kind).toBe("drop");
    expect(d.truthDump().effects).toHaveLength(1);
  });

  it("read faults: 429, 5xx, drop and delay on status and list", async () => {
    const d = new Refdest({ tier: "C2", seed: 11 });
    d.schedule([
      { fault: "THROTTLE_429", match: { op: "get" } },
      { fault: "ERROR_5XX_NO_COMMIT", match: { op: "query" } },
      { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "list" } },
    ]);
    expect(res(await d.get("dest_x")).status).toBe(429);
    expect(res(await d.query("x")).status).toBe(500);
    expect((await d.list(WINDOW)).kind).toBe("drop");
    expect(res(await d.list(WINDOW)).status).toBe(200);
  });
});

describe("determinism", () => {
  async function run(seed: number): Promise<string> {
    const d = new Refdest({ tier: "C2", seed, ...frozen });
    d.schedule([
      { fault: "DUPLICATE_ACCEPT", match: { nth_request: 2 } },
      { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { client_ref: "op-3" } },
      { fault: "READ_LAG", match: { effect_type: "slow.thing" }, param: { seconds: 7 } },
    ]);
    for (let i = 0; i < 6; i++) {
      await d.create({
        effect_type: i === 4 ? "slow.thing" : "order.create",
        payload: { i },
        client_ref: `op-${i}`,
      });
      await d.query(`op-${i}`);
      d.advanceClock(1);
    }
    d.createOutOfBand({ effect_type: "t", payload: { oob: true }, client_ref: null });
    return d.truthDumpJson() + JSON.stringify(d.requestLog());
  }

  it("same seed and schedule ⇒ byte-identical truth dumps and logs; another seed differs", async () => {
    const a = await run(777);
    expect(await run(777)).toBe(a);
    expect(await run(778)).not.toBe(a);
  });

  it("reset with a new seed starts a fresh ref sequence", async () => {
    const d = new Refdest({ tier: "C2", seed: 1 });
    await d.create(order("a"));
    d.reset({ seed: 42 });
    expect(res(await d.create(order("a"))).body["destination_ref"]).toBe(
      "dest_03ddf851127d6cfea095f121d263f759",
    );
    expect(d.truthDump().effects).toHaveLength(1);
  });
});
