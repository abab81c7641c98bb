/**
 * defineAdapter: the declaration defaults it derives, the refusals when declared capabilities
 * and provided functions disagree (naming the field, the allowed values and the fix), and the
 * contract's safety rules it holds for the author (throw ⇒ LOST / INDETERMINATE, never FAILED
 * or ABSENT; ABSENT with refs ⇒ INDETERMINATE).
 */
import { describe, expect, it } from "vitest";
import type { DispatchOrder } from "../../src/adapters/contract.js";
import { defineAdapter, type AdapterDefinition } from "../../src/adapters/define-adapter.js";
import { IrrevonError } from "../../src/core/errors.js";

const ORDER: DispatchOrder = {
  operationId: "op_1",
  effectType: "ticket.create",
  payload: { title: "x" },
  clientRef: "op_1",
  idempotencyKey: "op_1",
  stableIds: { ticket: "t1" },
};
const CITE = ["https://docs.example.com/api"] as const;
const ok = () =>
  Promise.resolve({ transportOutcome: "OK" as const, destinationRef: "d1", evidence: {} });
const absent = () => Promise.resolve({ result: "ABSENT" as const });

function refusal(def: unknown): IrrevonError {
  try {
    defineAdapter(def as AdapterDefinition);
  } catch (e) {
    if (e instanceof IrrevonError) return e;
    throw e;
  }
  throw new Error("accepted");
}

describe("defineAdapter builds the declaration", () => {
  it("C2: queryable keys from the find functions, listable from list, lags null, quality EI", () => {
    const a = defineAdapter({
      declaration: {
        adapter: "acme-c2",
        destination: "acme",
        api_version: "v1",
        tier: "C2",
        client_ref_field: "metadata.ref",
        citations: CITE,
      },
      create: ok,
      findByClientRef: absent,
      findByDestinationRef: absent,
      list: () => Promise.resolve({ effects: [], nextCursor: null }),
    });
    expect(a.adapterId).toBe("acme-c2");
    expect(a.declare()).toEqual({
      adapter: "acme-c2",
      destination: "acme",
      api_version: "v1",
      tier: "C2",
      idempotency: { supported: false, window: null, replay_semantics: null },
      queryable: { supported: true, by: ["destination_ref", "client_ref"] },
      client_ref_field: "metadata.ref",
      list_queryable: true,
      consistency: { status_settlement_lag: null, listing_lag: null },
      citations: CITE,
      evidence_quality: "EI",
    });
    expect(Object.isFrozen(a.declare())).toBe(true);
  });

  it("C1 takes the window; C3 defaults to opaque", () => {
    const c1 = defineAdapter({
      declaration: {
        adapter: "acme-c1",
        destination: "acme",
        api_version: "v1",
        tier: "C1",
        idempotency: { window: "PT24H", replay_semantics: "first outcome" },
        consistency: { status_settlement_lag: "PT5S" },
        citations: CITE,
      },
      create: ok,
      findByDestinationRef: absent,
    });
    expect(c1.declare().idempotency).toEqual({
      supported: true,
      window: "PT24H",
      replay_semantics: "first outcome",
    });
    expect(c1.declare().consistency).toEqual({ status_settlement_lag: "PT5S", listing_lag: null });
    expect(c1.declare().list_queryable).toBe(false);
    const c3 = defineAdapter({
      declaration: {
        adapter: "acme-c3",
        destination: "acme",
        api_version: "v1",
        tier: "C3",
        citations: CITE,
      },
      create: ok,
    });
    expect(c3.declare().queryable).toEqual({ supported: false, by: [] });
    expect(c3.declare().client_ref_field).toBeNull();
  });

  it("stable-id keys are declared from stableIdKeys", () => {
    const a = defineAdapter({
      declaration: {
        adapter: "acme-c2",
        destination: "acme",
        api_version: "v1",
        tier: "C2",
        citations: CITE,
      },
      create: ok,
      findByStableId: absent,
      stableIdKeys: ["order_id"],
    });
    expect(a.declare().queryable.by).toEqual(["stable_id:order_id"]);
  });
});

describe("defineAdapter refuses a declaration that disagrees with the functions", () => {
  const base = {
    adapter: "acme-c2",
    destination: "acme",
    api_version: "v1",
    tier: "C2",
    client_ref_field: "ref",
    citations: CITE,
  };
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      "a C2 with no find function",
      { declaration: base, create: ok },
      "findByClientRef",
      /declare tier "C3"/,
    ],
    [
      "a declared key with no function",
      {
        declaration: { ...base, queryable: { supported: true, by: ["client_ref"] } },
        create: ok,
        findByDestinationRef: absent,
      },
      "findByClientRef",
      /provide findByClientRef/,
    ],
    [
      "a function with no declared key",
      {
        declaration: { ...base, queryable: { supported: true, by: ["client_ref"] } },
        create: ok,
        findByClientRef: absent,
        findByDestinationRef: absent,
      },
      "declaration.queryable.by",
      /add "destination_ref"/,
    ],
    [
      "findByClientRef without client_ref_field",
      { declaration: { ...base, client_ref_field: null }, create: ok, findByClientRef: absent },
      "declaration.client_ref_field",
      /set declaration.client_ref_field/,
    ],
    [
      "listable without list",
      { declaration: { ...base, list_queryable: true }, create: ok, findByDestinationRef: absent },
      "list",
      /provide list/,
    ],
    [
      "list while not listable",
      {
        declaration: { ...base, list_queryable: false },
        create: ok,
        findByDestinationRef: absent,
        list: ok,
      },
      "list",
      /set list_queryable to true/,
    ],
    [
      "findByStableId without names",
      { declaration: base, create: ok, findByStableId: absent },
      "stableIdKeys",
      /order_id/,
    ],
    [
      "a bad payload bound",
      { declaration: base, create: ok, findByDestinationRef: absent, maxPayloadBytes: 0 },
      "maxPayloadBytes",
      /default 262144/,
    ],
  ])("%s → config_invalid naming the field", (_name, def, field, fix) => {
    const e = refusal(def);
    expect(e.code).toBe("config_invalid");
    expect(e.details["field"]).toBe(field);
    expect(String(e.details["fix"])).toMatch(fix);
    expect(e.message).toContain(`${field}: `);
    expect(e.message).toContain("allowed: ");
  });

  it("a bad lag is refused by the declaration loader with the field and the fix", () => {
    const e = refusal({
      declaration: { ...base, consistency: { status_settlement_lag: "P1D" } },
      create: ok,
      findByDestinationRef: absent,
    });
    expect(e.code).toBe("declaration_invalid");
    expect(e.details["field"]).toBe("/consistency/status_settlement_lag");
    expect(e.details["fix"]).toMatch(/PT24H/);
  });

  it("a C3 with a find function is refused", () => {
    const e = refusal({
      declaration: { ...base, tier: "C3", client_ref_field: null },
      create: ok,
      findByDestinationRef: absent,
    });
    expect(e.code).toBe("declaration_invalid");
    expect(e.details["field"]).toBe("/tier");
  });
});

describe("the wrapper holds the contract's safety rules", () => {
  const make = (over: Partial<Record<string, unknown>>) =>
    defineAdapter({
      declaration: {
        adapter: "acme-c2",
        destination: "acme",
        api_version: "v1",
        tier: "C2",
        client_ref_field: "ref",
        citations: CITE,
      },
      create: ok,
      findByClientRef: absent,
      findByDestinationRef: absent,
      list: () => Promise.resolve({ effects: [], nextCursor: null }),
      effectTypes: ["ticket.create"],
      validatePayload: (_t, p) =>
        p["title"] === "" ? { path: "payload.title", reason: "must not be empty" } : null,
      ...over,
    } as AdapterDefinition);

  it("a throwing create is LOST, never FAILED", async () => {
    const a = make({ create: () => Promise.reject(new TypeError("boom")) });
    expect(await a.dispatch(ORDER, 1000)).toEqual({
      transportOutcome: "LOST",
      evidence: { thrown: "TypeError" },
    });
  });

  it("a malformed create result is LOST naming the violation", async () => {
    const a = make({ create: () => Promise.resolve({ transportOutcome: "FAILED", evidence: {} }) });
    const r = await a.dispatch(ORDER, 1000);
    expect(r.transportOutcome).toBe("LOST");
    expect(r.evidence["contract_violation"]).toMatch(/failureKind/);
  });

  it("the create function receives the order, deadline and signal", async () => {
    let seen: unknown = null;
    const a = make({ create: (o: DispatchOrder, c: unknown) => ((seen = { o, c }), ok()) });
    const signal = new AbortController().signal;
    expect((await a.dispatch(ORDER, 1234, signal)).transportOutcome).toBe("OK");
    expect(seen).toEqual({ o: ORDER, c: { deadlineMs: 1234, signal } });
    await expect(a.dispatch(ORDER, 0)).rejects.toMatchObject({ code: "usage" });
  });

  it("a throwing find is INDETERMINATE, never ABSENT", async () => {
    const a = make({ findByClientRef: () => Promise.reject(new Error("404")) });
    const r = await a.statusQuery({ kind: "client_ref", value: "op_1" }, 1000);
    expect(r).toEqual({
      result: "INDETERMINATE",
      nFound: null,
      destinationRefs: [],
      evidence: { thrown: "Error" },
    });
  });

  it("ABSENT with refs and PRESENT without refs are INDETERMINATE", async () => {
    const a = make({
      findByClientRef: () => Promise.resolve({ result: "ABSENT", destinationRefs: ["d1"] }),
      findByDestinationRef: () => Promise.resolve({ result: "PRESENT" }),
    });
    expect((await a.statusQuery({ kind: "client_ref", value: "op_1" }, 1000)).result).toBe(
      "INDETERMINATE",
    );
    // By destination ref, PRESENT without refs means the ref asked for.
    expect(await a.statusQuery({ kind: "destination_ref", value: "d9" }, 1000)).toMatchObject({
      result: "PRESENT",
      nFound: 1,
      destinationRefs: ["d9"],
    });
    const b = make({ findByClientRef: () => Promise.resolve({ result: "PRESENT" }) });
    expect((await b.statusQuery({ kind: "client_ref", value: "op_1" }, 1000)).result).toBe(
      "INDETERMINATE",
    );
  });

  it("PRESENT counts the refs found", async () => {
    const a = make({
      findByClientRef: () => Promise.resolve({ result: "PRESENT", destinationRefs: ["d1", "d2"] }),
    });
    expect(await a.statusQuery({ kind: "client_ref", value: "op_1" }, 1000)).toMatchObject({
      result: "PRESENT",
      nFound: 2,
    });
  });

  it("an undeclared key is capability_unsupported", async () => {
    await expect(
      make({}).statusQuery({ kind: "stable_id", name: "x", value: "1" }, 1000),
    ).rejects.toMatchObject({ code: "capability_unsupported" });
  });

  it("payloads: effect types, plain JSON and the author's own check", () => {
    const a = make({});
    expect(() => a.validatePayload("ticket.create", { title: "x" })).not.toThrow();
    expect(() => a.validatePayload("ticket.delete", { title: "x" })).toThrow(
      expect.objectContaining({
        code: "payload_invalid",
        details: expect.objectContaining({ path: "effect_type" }),
      }),
    );
    expect(() => a.validatePayload("ticket.create", { n: 2 ** 60 })).toThrow(
      expect.objectContaining({
        code: "payload_invalid",
        details: expect.objectContaining({ path: "payload.n" }),
      }),
    );
    expect(() => a.validatePayload("ticket.create", { title: "" })).toThrow(
      expect.objectContaining({
        code: "payload_invalid",
        details: expect.objectContaining({ path: "payload.title", reason: "must not be empty" }),
      }),
    );
  });

  it("a malformed or failed list page is destination_unavailable (retryable)", async () => {
    const w = { from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z" };
    const bad = make({ list: () => Promise.resolve({ effects: "nope", nextCursor: null }) });
    await expect(bad.listEffects(w, null, 1000)).rejects.toMatchObject({
      code: "destination_unavailable",
      retryable: true,
    });
    const thrown = make({ list: () => Promise.reject(new Error("socket")) });
    await expect(thrown.listEffects(w, null, 1000)).rejects.toMatchObject({
      code: "destination_unavailable",
      retryable: true,
    });
  });
});
