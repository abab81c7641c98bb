/**
 * A dispatch that outlives its deadline, against the reference destination as a real child
 * process over HTTP (`node --import tsx src/refdest/main.ts`), on both ledger backends. The
 * adapter is slow before it sends (a connection pool, a rate limiter…) and ignores the
 * engine's AbortSignal: it sends the create 6 s after the engine's 500 ms deadline. With a
 * re-read gap of 0, no declared lag and a policy grant that re-sends every LOST, an engine that
 * gave up on its own call would prove absence at once and re-send: two orders. The engine
 * must instead treat the attempt as in flight until the call settles, keep the late success
 * (a late response), and settle COMMITTED from the destination — one create.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { Adapter, DispatchOrder, DispatchResult } from "../../src/adapters/contract.js";
import { REFDEST_C2_DECLARATION } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { REFDEST_TOKEN_ENV, RefdestControlClient } from "../../src/refdest/index.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { orderContract } from "../integration/engine-support.js";

const ROOT = join(import.meta.dirname, "..", "..");
const TOKEN = "unsettled-call-token-0123456789abcdef012345";
let child: ChildProcess | null = null;
let url = "";

beforeAll(async () => {
  child = spawn(
    process.execPath,
    ["--import", "tsx", "src/refdest/main.ts", "--tier", "C2", "--seed", "11", "--port", "0"],
    { cwd: ROOT, env: { ...process.env, [REFDEST_TOKEN_ENV]: TOKEN }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error("refdest not ready")), 60_000);
    child?.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const m = /^REFDEST READY (\d+)\n/.exec(buffer);
      if (m !== null) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child?.on("exit", (code) => reject(new Error(`refdest exited early with ${code}`)));
  });
  url = `http://127.0.0.1:${port}`;
}, 90_000);

afterAll(() => {
  if (child !== null && child.exitCode === null) child.kill("SIGKILL");
});

/** Waits `startDelayMs` before its first send, whatever the signal says; later calls are prompt. */
function slowStartAdapter(inner: RefdestAdapter, startDelayMs: number): Adapter {
  let first = true;
  return {
    adapterId: inner.adapterId,
    declare: () => inner.declare(),
    validatePayload: (t, p) => inner.validatePayload(t, p),
    async dispatch(order: DispatchOrder, _deadlineMs: number): Promise<DispatchResult> {
      if (first) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, startDelayMs));
      }
      return inner.dispatch(order, 5_000);
    },
    statusQuery: (key, deadlineMs, signal) => inner.statusQuery(key, deadlineMs, signal),
    listEffects: (w, c, d) => inner.listEffects(w, c, d),
  };
}

describeEachBackend("a call that outlives its deadline is never proven absent", (backend) => {
  let ledger: TestLedger;
  let engine: Irrevon | null = null;
  afterEach(async () => {
    await engine?.close();
    engine = null;
    await expectAuditClean(ledger);
    await ledger.close();
  });

  it("in flight until it settles; its late success is kept; one create", async () => {
    const control = new RefdestControlClient(url, TOKEN);
    await control.reset({ seed: 11 });
    ledger = await openTestLedger(backend);
    const declaration = { ...REFDEST_C2_DECLARATION };
    const adapter = slowStartAdapter(new RefdestAdapter({ baseUrl: url, declaration }), 6_000);
    engine = await openIrrevon({
      database: ledger.app,
      adapters: [adapter],
      config: {
        rereadGapSeconds: 0,
        dispatchDeadlineMs: 500,
        probeDeadlineMs: 2_000,
        leaseTtlMs: 60_000,
        autoRedispatch: { "order.create": { grantRef: "policy:auto-orders" } },
      },
      workerId: `worker-unsettled-${backend}`,
      crashPoints: NO_CRASH_POINTS,
    });
    const { effectId } = await engine.register(orderContract({ adapter_id: adapter.adapterId }));
    const sent = await engine.dispatch(effectId);
    expect(sent).toMatchObject({ status: "dispatched", transportOutcome: "TIMEOUT", lifecycle: "AMBIGUOUS" });

    // While the call is still running: nothing is probed, nothing concluded, nothing re-sent.
    expect(await engine.reconcile(effectId)).toMatchObject({ status: "in_flight" });
    await engine.recover();
    expect((await control.truth()).effects).toHaveLength(0);

    // The call sends at ~6 s and the destination commits; its answer arrives late.
    const deadline = Date.now() + 30_000;
    let status = "";
    while (Date.now() < deadline) {
      status = (await engine.reconcile(effectId)).status;
      if (status === "committed" || status === "failed" || status === "settled") break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await engine.recover();
    expect(status).toBe("committed");
    expect(await engine.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      classification: "CONFIRMED_UNIQUE",
    });
    const creates = (await control.log()).filter((e) => e.op === "create");
    expect(creates).toHaveLength(1);
    expect((await control.truth()).effects).toHaveLength(1);
    const late = await ledger.app.query<{ transport_outcome: string; evidence: Record<string, unknown> }>(
      "SELECT transport_outcome, evidence FROM late_responses",
    );
    expect(late.rows).toHaveLength(1);
    expect(late.rows[0]).toMatchObject({
      transport_outcome: "OK",
      evidence: { late_reason: "settled_after_deadline" },
    });
  }, 120_000);
});
