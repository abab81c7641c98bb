/**
 * Crash windows in real child processes (reference §12 process rows), on a Postgres server:
 * SIGKILL at persist.pre_commit leaves no record and no destination effect; a lost response
 * followed by SIGKILL is adjudicated by the next process's recovery — a status query before
 * any create — to SETTLED_COMMITTED + CONFIRMED_UNIQUE with exactly one destination effect;
 * SIGKILL at adapter.pre_call leaves an open attempt that the next process (same worker id,
 * started once the dead one's lease has run out) closes as LOST and reconciles to confirmed
 * absence.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { EngineChild } from "./engine-child-support.js";

const ORDER_9410 = {
  schema_version: "1",
  stable_ids: { order_id: "9410", customer_ref: "C-0007" },
  effect_type: "order.create",
  scope: "acme-store/prod",
  effect_class: "IRREVERSIBLE",
  adapter_id: "refdest-c2",
  parameters: {
    line_items: [{ sku: "SKU-118", quantity: 2 }],
    shipping_method: "standard",
    note: "please deliver to the loading dock",
  },
  authority_ref: "auth_approved_task_18",
  stamped_at: new Date().toISOString(),
};
const EFFECT_9410 = "0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5";
const RESYNTHESIZED = {
  items: [{ sku: "SKU-118", qty: 2, gift_wrap: false }],
  shipping: { method: "standard", priority: "normal" },
  customer_note: "Deliver at loading dock please!",
};

describe.skipIf(SKIP_POSTGRES)("engine child processes [postgres]", () => {
  let ledger: TestLedger;
  let server: RefdestServer;
  let env: Record<string, string>;

  beforeEach(async () => {
    ledger = await openTestLedger("postgres");
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    env = {
      IRREVON_DATABASE_URL: ledger.url ?? "",
      IRREVON_REFDEST_URL: server.url,
      IRREVON_REFDEST_TIER: "C2",
      IRREVON_WORKER_ID: "engine-1",
      IRREVON_TEST_HOOKS: "1",
    };
  });
  afterEach(async () => {
    await server.close();
    await ledger.close();
  });

  const creates = (): number => server.refdest.requestLog().filter((e) => e.op === "create").length;
  const effects = (): number => server.refdest.truthDump().effects.length;

  it("SIGKILL at persist.pre_commit: no record, no destination effect", async () => {
    const child = await EngineChild.start({ ...env, IRREVON_CRASH_AT: "persist.pre_commit" });
    const reply = await child.send(`REGISTER ${JSON.stringify(ORDER_9410)}`);
    expect(reply.kind).toBe("exited");
    if (reply.kind === "exited") expect(reply.exit.signal).toBe("SIGKILL");
    const records = await ledger.app.query("SELECT 1 FROM effect_records");
    expect(records.rows).toHaveLength(0);
    expect(effects()).toBe(0);
    await expectAuditClean(ledger);
  });

  it("lost response + SIGKILL: recovery queries before any create; exactly one effect; re-synthesis denied", async () => {
    const first = await EngineChild.start(env);
    const registered = await first.call(`REGISTER ${JSON.stringify(ORDER_9410)}`);
    expect(registered).toMatchObject({
      effectId: EFFECT_9410,
      lifecycle: "PERSISTED",
      replayed: false,
    });
    server.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const dispatched = await first.call(`DISPATCH ${EFFECT_9410}`);
    expect(dispatched).toMatchObject({
      status: "dispatched",
      transportOutcome: "LOST",
      lifecycle: "AMBIGUOUS",
    });
    const exit = await first.kill();
    expect(exit.signal).toBe("SIGKILL");
    const logBefore = server.refdest.requestLog().length;

    const second = await EngineChild.start({ ...env, IRREVON_WORKER_ID: "engine-2" });
    expect(second.recovery).toMatchObject({ scanned: 1, adjudicated: 1 });
    const sinceRestart = server.refdest.requestLog().slice(logBefore);
    expect(sinceRestart.length).toBeGreaterThan(0);
    expect(sinceRestart.every((e) => e.op !== "create")).toBe(true);
    const status = await second.call(`STATUS ${EFFECT_9410}`);
    expect(status).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      classification: "CONFIRMED_UNIQUE",
    });

    const replay = await second.call(
      `REGISTER ${JSON.stringify({ ...ORDER_9410, parameters: RESYNTHESIZED, authority_ref: "auth_approved_task_22" })}`,
    );
    expect(replay).toMatchObject({
      effectId: EFFECT_9410,
      replayed: true,
      parameterVariantDigest:
        "sha256:074abd639c1ad62f7ad769c6261bfa1f7b93021f8171644ebe3d4ce3df98c2cd",
    });
    const denied = await second.call(`DISPATCH ${EFFECT_9410}`);
    expect(denied).toMatchObject({ status: "denied", check: "dedup", cause: "duplicate_intent" });
    expect((denied["evidence"] as Record<string, unknown>)["parameter_variants"]).toEqual([
      replay["parameterVariantDigest"],
    ]);
    expect(await second.exit()).toMatchObject({ code: 0 });
    expect(creates()).toBe(1);
    expect(effects()).toBe(1);
    await expectAuditClean(ledger);
  });

  it("SIGKILL at adapter.pre_call: the open attempt is closed by the next owner and absence is confirmed, nothing sent", async () => {
    // A short lease (≥ 2 × deadline + 1 s) so the dead holder's lease runs out soon.
    const shortLease = {
      ...env,
      IRREVON_DISPATCH_DEADLINE_MS: "2000",
      IRREVON_PROBE_DEADLINE_MS: "2000",
      IRREVON_LEASE_TTL_MS: "6000",
    };
    const first = await EngineChild.start({ ...shortLease, IRREVON_CRASH_AT: "adapter.pre_call" });
    await first.call(`REGISTER ${JSON.stringify(ORDER_9410)}`);
    const reply = await first.send(`DISPATCH ${EFFECT_9410}`);
    expect(reply.kind).toBe("exited");
    const open = await ledger.app.query("SELECT attempt_id FROM open_attempts");
    expect(open.rows).toHaveLength(1);
    expect(creates()).toBe(0);

    // Same worker id: one live engine per worker id, so the restarted process is refused
    // (worker_id_in_use) until the dead one's lease runs out; then its recovery closes the
    // abandoned attempt.
    const second = await EngineChild.startAfterLease(shortLease);
    expect(second.recovery).toMatchObject({ closedAttempts: 1, scanned: 1, adjudicated: 1 });
    const status = await second.call(`STATUS ${EFFECT_9410}`);
    expect(status).toMatchObject({ lifecycle: "SETTLED_FAILED", classification: "LOST" });
    await second.exit();
    expect(creates()).toBe(0);
    expect(effects()).toBe(0);
    await expectAuditClean(ledger);
  });
});
