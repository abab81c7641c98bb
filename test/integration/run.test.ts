/**
 * `irrevon.run()` (issue 13) against in-process reference destinations on the migrated PGlite
 * template: committed by receipt; a replay collapses onto the original (same destination ref
 * and response, no second create) and reports a parameter variant with its changed fields;
 * denied by the deny list; failed terminal and retryable (a replayed call after a 429 retries
 * under a new step); a dropped response after commit reconciles to committed; on a C3
 * destination and under read lag the result is ambiguous with what happens next; a payload the
 * adapter refuses and an out-of-range budget write nothing. Model messages never carry
 * stable-id values.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Adapter } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { canonicalDigest } from "../../src/core/canonical.js";
import { ErrorCode, IrrevonError } from "../../src/core/errors.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import type { EngineEventSink } from "../../src/engine/events.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import type { RunRequest, RunResult } from "../../src/engine/run-result.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import { openTestLedger, type TestLedger } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";

/** The C2 refdest adapter, refusing any payload that carries `refuse_me` (a stricter destination). */
class StrictAdapter extends RefdestAdapter {
  override validatePayload(effectType: string, payload: Readonly<Record<string, unknown>>): void {
    if ("refuse_me" in payload)
      throw new IrrevonError(ErrorCode.payload_invalid, "refuse_me is not accepted", {
        details: { path: "payload.refuse_me" },
      });
    super.validatePayload(effectType, payload);
  }
}

let orderSeq = 0;
let ORDER_ID = "";

function adapterFor(refdest: Refdest, tier: "C2" | "C3", lagSeconds?: number): Adapter {
  const options = {
    baseUrl: "http://127.0.0.1:4100",
    declaration: refdestDeclaration(tier, lagSeconds === undefined ? {} : { lagSeconds }),
    transport: createInProcessTransport(refdest),
  };
  return tier === "C2" && lagSeconds === undefined
    ? new StrictAdapter(options)
    : new RefdestAdapter(options);
}

describe("engine: run()", () => {
  let ledger: TestLedger;
  let c2: Refdest;
  let c3: Refdest;
  let lagged: Refdest;
  let irrevon: Irrevon;
  let onEvent: EngineEventSink = () => undefined;

  beforeAll(async () => {
    ledger = await openTestLedger("pglite");
  });
  afterAll(async () => {
    await expectAuditClean(ledger);
    await ledger.close();
  });
  beforeEach(async () => {
    orderSeq += 1;
    ORDER_ID = `order-${orderSeq}-55501`;
    c2 = createRefdest({ tier: "C2", seed: 3 });
    c3 = createRefdest({ tier: "C3", seed: 4 });
    lagged = createRefdest({ tier: "C2", seed: 5, lagSeconds: 30 });
    onEvent = () => undefined;
    irrevon = await openIrrevon({
      database: ledger.app,
      adapters: [adapterFor(c2, "C2"), adapterFor(c3, "C3"), adapterFor(lagged, "C2", 30)],
      config: { dispatchDeadlineMs: 2_000, probeDeadlineMs: 2_000, leaseTtlMs: 60_000 },
      workerId: "run-suite",
      crashPoints: NO_CRASH_POINTS,
      events: (e) => onEvent(e),
    });
  });
  afterEach(async () => {
    await irrevon.close();
  });

  function request(overrides: Partial<RunRequest> = {}): RunRequest {
    return {
      effectType: "order.create",
      scope: "acme-store/prod",
      stableIds: { order_id: ORDER_ID },
      parameters: { sku: "SKU-118", quantity: 2, note: "loading dock" },
      adapterId: "refdest-c2",
      authorityRef: "auth_task_18",
      ...overrides,
    };
  }

  const creates = (r: Refdest): number => r.requestLog().filter((e) => e.op === "create").length;

  function expectNoStableIdIn(result: RunResult): void {
    expect(result.modelMessage).not.toContain(ORDER_ID);
    expect(result.modelMessage.length).toBeGreaterThan(10);
  }

  it("commits by receipt; a replay returns the original result and reports changed fields", async () => {
    const first = await irrevon.run(request());
    expect(first).toMatchObject({
      status: "committed",
      evidence: "receipt",
      replayed: false,
      variant: null,
    });
    if (first.status !== "committed") return;
    expect(first.destinationRef).toMatch(/\S/);
    expect(first.response).toMatchObject({ http_status: 201 });
    expect(first.operationId).toBe(`${first.effectId}:0`);
    expectNoStableIdIn(first);

    const same = await irrevon.run(request());
    expect(same).toMatchObject({
      status: "committed",
      replayed: true,
      variant: null,
      destinationRef: first.destinationRef,
      response: first.response,
      evidence: "receipt",
    });

    const changed = { sku: "SKU-118", quantity: 3, gift: true };
    const variant = await irrevon.run(request({ parameters: changed }));
    expect(variant).toMatchObject({
      status: "committed",
      replayed: true,
      effectId: first.effectId,
      destinationRef: first.destinationRef,
      variant: { digest: canonicalDigest(changed), changedFields: ["gift", "note", "quantity"] },
    });
    expect(variant.modelMessage).toContain("gift, note, quantity");
    expectNoStableIdIn(variant);
    expect(creates(c2)).toBe(1);
    expect(c2.truthDump().effects).toHaveLength(1);
  });

  it("concurrent calls of one intent: one registration, one wire call; the others collapse onto it", async () => {
    const results = await Promise.all([1, 2, 3].map(() => irrevon.run(request())));
    expect(creates(c2)).toBe(1);
    expect(new Set(results.map((r) => r.effectId)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    // Each is committed, or (if the first call outlived a caller's budget) ambiguous: never a second send.
    for (const r of results)
      expect(["committed", "ambiguous"], JSON.stringify(r)).toContain(r.status);
    expect(results.filter((r) => r.status === "committed").length).toBeGreaterThanOrEqual(1);
  });

  it("denied by the deny list: which check and why, nothing sent", async () => {
    await irrevon.operator.addDenyEntry({ effectType: "refund.issue", reason: "refunds frozen" });
    const result = await irrevon.run(request({ effectType: "refund.issue" }));
    expect(result).toMatchObject({
      status: "denied",
      check: "deny_list",
      reason: "deny_listed",
      replayed: false,
    });
    expectNoStableIdIn(result);
    expect(creates(c2)).toBe(0);
  });

  it("failed terminal; failed retryable, and a replayed call after the 429 retries once as a new step", async () => {
    const terminal = await irrevon.run(request({ parameters: { reject: true } }));
    expect(terminal).toMatchObject({ status: "failed", retryable: false, reason: "TERMINAL" });
    expectNoStableIdIn(terminal);
    const again = await irrevon.run(request({ parameters: { reject: true } }));
    expect(again).toMatchObject({ status: "failed", retryable: false, replayed: true });
    expect(creates(c2)).toBe(1);

    c2.schedule([{ fault: "THROTTLE_429", match: { op: "create" } }]);
    const throttled = await irrevon.run(request({ stableIds: { order_id: `${ORDER_ID}-2` } }));
    expect(throttled).toMatchObject({ status: "failed", retryable: true, reason: "RETRYABLE" });
    const retried = await irrevon.run(request({ stableIds: { order_id: `${ORDER_ID}-2` } }));
    expect(retried).toMatchObject({ status: "committed", replayed: true, evidence: "receipt" });
    expect(retried.operationId).toBe(`${retried.effectId}:1`);
    expect(c2.truthDump().effects).toHaveLength(1);
  });

  it("a response dropped after commit is reconciled within the budget: committed, evidence reconciled", async () => {
    c2.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const result = await irrevon.run(request());
    expect(result).toMatchObject({ status: "committed", evidence: "reconciled", replayed: false });
    if (result.status !== "committed") return;
    expect(result.destinationRef).toBe(c2.truthDump().effects[0]?.destination_ref);
    expect(creates(c2)).toBe(1);
    const inspection = await irrevon.inspect(result.effectId);
    expect(inspection.dimensions).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      classification: "CONFIRMED_UNIQUE",
    });
    // The inspect document is typed: unions for closed sets, numbers for ids.
    expect(inspection.record.effect_class).toBe("IRREVERSIBLE");
    expect(typeof inspection.executions[0]?.execution_id).toBe("number");
    expect(inspection.receipts.map((r) => r.transport_outcome)).toEqual(["LOST"]);
    expect(inspection.probes.map((p) => [p.result, p.n_found])).toEqual([["PRESENT", 1]]);
    expect(inspection.timeline.map((t) => t.to_state).at(-1)).toBe("SETTLED_COMMITTED");
  });

  it("C3 lost response: ambiguous, a human decides; the message says do not retry", async () => {
    c3.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "notify" } }]);
    const result = await irrevon.run(
      request({ adapterId: "refdest-c3", effectType: "email.send" }),
    );
    expect(result).toMatchObject({
      status: "ambiguous",
      next: { action: "human", notBefore: null },
    });
    expect(result.modelMessage).toContain("do not retry; the outcome is being verified");
    expectNoStableIdIn(result);
    const replay = await irrevon.run(
      request({ adapterId: "refdest-c3", effectType: "email.send" }),
    );
    expect(replay).toMatchObject({
      status: "ambiguous",
      replayed: true,
      next: { action: "human" },
    });
    expect(c3.requestLog().filter((e) => e.op === "notify")).toHaveLength(1);
  });

  it("under read lag: ambiguous with the next reconcile and when; an abort ends the wait early", async () => {
    lagged.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const result = await irrevon.run(
      request({ adapterId: "refdest-c2-lag30s", reconcileWithinMs: 300 }),
    );
    expect(result).toMatchObject({ status: "ambiguous", next: { action: "reconcile" } });
    if (result.status !== "ambiguous") return;
    const notBefore = Date.parse(result.next.notBefore ?? "");
    // The absence rule: not before the end of the call's deadline plus the declared 30 s lag.
    expect(notBefore - Date.now()).toBeGreaterThan(25_000);
    expect(result.modelMessage).toContain("do not retry; the outcome is being verified");

    // A 60 s budget, aborted as soon as the engine parks the execution: still ambiguous.
    lagged.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const controller = new AbortController();
    onEvent = (e) => {
      if (e.event_name === "ambiguous_parked" || e.event_name === "dispatched") controller.abort();
    };
    const other = await irrevon.run(
      request({
        adapterId: "refdest-c2-lag30s",
        stableIds: { order_id: `${ORDER_ID}-3` },
        reconcileWithinMs: 60_000,
        signal: controller.signal,
      }),
    );
    expect(other).toMatchObject({ status: "ambiguous", next: { action: "reconcile" } });
    expect(controller.signal.aborted).toBe(true);
    expect(creates(lagged)).toBe(2);
  });

  it("bad input writes nothing: a refused payload, an out-of-range budget, an aborted signal", async () => {
    const countRows = async (): Promise<number> => {
      const { rows } = await ledger.app.query<{ n: unknown }>(
        "SELECT (SELECT count(*) FROM effect_records) + (SELECT count(*) FROM authorities) AS n",
      );
      return Number(rows[0]?.n);
    };
    const before = await countRows();
    await expect(irrevon.run(request({ parameters: { refuse_me: 1 } }))).rejects.toMatchObject({
      code: "payload_invalid",
    });
    await expect(
      irrevon.register({
        schema_version: "1",
        stable_ids: { order_id: ORDER_ID },
        effect_type: "order.create",
        scope: "acme-store/prod",
        effect_class: "IRREVERSIBLE",
        adapter_id: "refdest-c2",
        parameters: { refuse_me: true },
        authority_ref: "auth_task_18",
        stamped_at: new Date().toISOString(),
      }),
    ).rejects.toMatchObject({ code: "payload_invalid" });
    await expect(irrevon.run(request({ reconcileWithinMs: 60_001 }))).rejects.toMatchObject({
      code: "contract_invalid",
      details: { path: "$.reconcileWithinMs" },
    });
    const aborted = new AbortController();
    aborted.abort();
    await expect(irrevon.run(request({ signal: aborted.signal }))).rejects.toThrow();
    expect(await countRows()).toBe(before);
    expect(creates(c2)).toBe(0);
  });
});
