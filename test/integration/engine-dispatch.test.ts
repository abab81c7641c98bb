/**
 * Dispatch and the transport taxonomy (reference §5.1–5.2; I4, I5, D6) on both backends:
 * OK ⇒ SETTLED_COMMITTED; cited 400 ⇒ FAILED/TERMINAL and 429 ⇒ FAILED/RETRYABLE ⇒
 * SETTLED_FAILED; 5xx, a dropped connection and a blown deadline ⇒ AMBIGUOUS; an adapter that
 * throws or answers garbage ⇒ LOST (the attempt is still closed); a payload the adapter
 * refuses is payload_invalid BEFORE any claim — no gate decision, no attempt. One wire call
 * per claim.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Adapter, DispatchOrder, DispatchResult } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { ErrorCode, IrrevonError } from "../../src/core/errors.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { orderContract } from "./engine-support.js";

type Mode = "normal" | "throw" | "garbage" | "refuse_payload";

/** Wraps the refdest adapter so a test can make it misbehave; counts wire calls. */
class MisbehavingAdapter implements Adapter {
  readonly adapterId: string;
  mode: Mode = "normal";
  calls = 0;
  readonly #inner: RefdestAdapter;
  constructor(inner: RefdestAdapter) {
    this.#inner = inner;
    this.adapterId = inner.adapterId;
  }
  declare() {
    return this.#inner.declare();
  }
  validatePayload(effectType: string, payload: Readonly<Record<string, unknown>>): void {
    if (this.mode === "refuse_payload")
      throw new IrrevonError(ErrorCode.payload_invalid, "refused", { details: { path: "/" } });
    this.#inner.validatePayload(effectType, payload);
  }
  async dispatch(order: DispatchOrder, deadlineMs: number): Promise<DispatchResult> {
    this.calls += 1;
    if (this.mode === "throw") throw new Error("socket exploded");
    if (this.mode === "garbage") return { transportOutcome: "MAYBE" } as unknown as DispatchResult;
    return this.#inner.dispatch(order, deadlineMs);
  }
  statusQuery: Adapter["statusQuery"] = (key, deadlineMs) =>
    this.#inner.statusQuery(key, deadlineMs);
  listEffects: Adapter["listEffects"] = (window, cursor, deadlineMs) =>
    this.#inner.listEffects(window, cursor, deadlineMs);
}

describeEachBackend("engine: dispatch taxonomy", (backend) => {
  let ledger: TestLedger;
  let refdest: Refdest;
  let adapter: MisbehavingAdapter;
  let irrevon: Irrevon;

  beforeEach(async () => {
    ledger = await openTestLedger(backend);
    refdest = createRefdest({ tier: "C2", seed: 7 });
    adapter = new MisbehavingAdapter(
      new RefdestAdapter({
        baseUrl: "http://127.0.0.1:4100",
        declaration: refdestDeclaration("C2"),
        transport: createInProcessTransport(refdest),
      }),
    );
    irrevon = await openIrrevon({
      database: ledger.app,
      adapters: [adapter],
      config: { dispatchDeadlineMs: 400, leaseTtlMs: 60_000 },
      workerId: "taxonomy",
      crashPoints: NO_CRASH_POINTS,
    });
  });
  afterEach(async () => {
    await expectAuditClean(ledger);
    await irrevon.close();
    await ledger.close();
  });

  async function dispatchWith(fault: Record<string, unknown> | null, contract = orderContract()) {
    const { effectId } = await irrevon.register(contract);
    if (fault !== null) refdest.schedule([fault]);
    return irrevon.dispatch(effectId);
  }

  it("maps each transport outcome to its lifecycle state, one wire call per claim", async () => {
    expect(await dispatchWith(null)).toMatchObject({
      transportOutcome: "OK",
      lifecycle: "SETTLED_COMMITTED",
    });
    expect(await dispatchWith(null, orderContract({ parameters: { reject: true } }))).toMatchObject(
      { transportOutcome: "FAILED", lifecycle: "SETTLED_FAILED" },
    );
    expect(await dispatchWith({ fault: "THROTTLE_429", match: { op: "create" } })).toMatchObject({
      transportOutcome: "FAILED",
      lifecycle: "SETTLED_FAILED",
    });
    expect(
      await dispatchWith({ fault: "ERROR_5XX_NO_COMMIT", match: { op: "create" } }),
    ).toMatchObject({ transportOutcome: "LOST", lifecycle: "AMBIGUOUS" });
    expect(
      await dispatchWith({ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }),
    ).toMatchObject({ transportOutcome: "LOST", lifecycle: "AMBIGUOUS" });
    expect(
      await dispatchWith({ fault: "DELAY", match: { op: "create" }, param: { ms: 1_500 } }),
    ).toMatchObject({ transportOutcome: "TIMEOUT", lifecycle: "AMBIGUOUS" });
    expect(adapter.calls).toBe(6);
    const kinds = await ledger.app.query<{
      transport_outcome: string;
      failure_kind: string | null;
    }>("SELECT transport_outcome, failure_kind FROM dispatch_receipts ORDER BY receipt_id");
    expect(kinds.rows.map((r) => [r.transport_outcome, r.failure_kind])).toEqual([
      ["OK", null],
      ["FAILED", "TERMINAL"],
      ["FAILED", "RETRYABLE"],
      ["LOST", null],
      ["LOST", null],
      ["TIMEOUT", null],
    ]);
  });

  it("an adapter that throws or answers garbage yields LOST, never an open attempt", async () => {
    adapter.mode = "throw";
    expect(await dispatchWith(null)).toMatchObject({
      transportOutcome: "LOST",
      lifecycle: "AMBIGUOUS",
    });
    adapter.mode = "garbage";
    expect(await dispatchWith(null, orderContract({ scope: "acme-store/other" }))).toMatchObject({
      transportOutcome: "LOST",
      lifecycle: "AMBIGUOUS",
    });
    const open = await ledger.app.query("SELECT 1 FROM open_attempts");
    expect(open.rows).toHaveLength(0);
    const ev = await ledger.app.query<{ evidence: Record<string, unknown> }>(
      "SELECT evidence FROM dispatch_receipts ORDER BY receipt_id",
    );
    expect(ev.rows.map((r) => r.evidence["engine"])).toEqual([
      "adapter_threw",
      "unknown_transport_outcome",
    ]);
  });

  it("D6: a payload the adapter refuses is payload_invalid before the claim — no decision, no attempt, no call", async () => {
    const { effectId } = await irrevon.register(orderContract());
    adapter.mode = "refuse_payload";
    await expect(irrevon.dispatch(effectId)).rejects.toMatchObject({ code: "payload_invalid" });
    const decisions = await ledger.app.query("SELECT 1 FROM gate_decisions");
    const attempts = await ledger.app.query("SELECT 1 FROM dispatch_attempts");
    expect(decisions.rows).toHaveLength(0);
    expect(attempts.rows).toHaveLength(0);
    expect(adapter.calls).toBe(0);
    expect((await irrevon.status(effectId)).lifecycle).toBe("PERSISTED");
    adapter.mode = "normal";
    expect(await irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
  });

  it("concurrent dispatches of one effect make at most one attempt and one wire call", async () => {
    const { effectId } = await irrevon.register(orderContract());
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => irrevon.dispatch(effectId)));
    expect(outcomes.filter((o) => o.status === "dispatched")).toHaveLength(1);
    expect(adapter.calls).toBe(1);
    const attempts = await ledger.app.query("SELECT 1 FROM dispatch_attempts");
    expect(attempts.rows).toHaveLength(1);
  });
});
