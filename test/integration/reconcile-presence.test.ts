/**
 * Presence, C1 replay, audits of settled effects, and policy-granted re-dispatch (reference
 * §6, §7; D8) on both backends: n=2 ⇒ COMMITTED + DUPLICATE (OPEN, excess 1); settled ⇒ no
 * query; C1 inside its window ⇒ replay probe with the same key (attempt kinds primary,
 * c1_replay_probe; one effect), outside ⇒ status query; audit finds DUPLICATE and
 * CONTRADICTED (failed_but_present); a confirmed-LOST effect is re-dispatched by recovery only
 * under a grant, recorded as the authority, and the finding closes when the replacement commits.
 */
import { afterEach, expect, it } from "vitest";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

describeEachBackend("reconcile: presence, replay, audit, re-dispatch", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("n=2 ⇒ SETTLED_COMMITTED + DUPLICATE with excess 1, left OPEN for a decision", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const { effectId, operationId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    await f.irrevon.dispatch(effectId);
    f.refdest.createOutOfBand({
      effect_type: "order.create",
      payload: { copy: true },
      client_ref: operationId,
    });
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      classification: "DUPLICATE",
    });
    const { rows } = await f.ledger.app.query<{
      classification: string;
      excess_effect_count: number;
    }>("SELECT classification, excess_effect_count FROM findings");
    expect(rows).toEqual([{ classification: "DUPLICATE", excess_effect_count: 1 }]);
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      classification: "DUPLICATE",
      resolution: "OPEN",
    });
  });

  it("a settled effect is never queried again by reconcile", async () => {
    f = await openEngineFixture(backend);
    const { effectId } = await f.irrevon.register(orderContract());
    await f.irrevon.dispatch(effectId);
    const before = f.refdest.requestLog().length;
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "settled",
      lifecycle: "SETTLED_COMMITTED",
    });
    expect(f.refdest.requestLog().length).toBe(before);
  });

  it("C1 inside the idempotency window: a replay probe with the same key settles COMMITTED with one effect", async () => {
    f = await openEngineFixture(backend, { tier: "C1" });
    const { effectId, operationId } = await f.irrevon.register(
      orderContract({ adapter_id: "refdest-c1" }),
    );
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      classification: "CONFIRMED_UNIQUE",
      cause: "replay_ok",
    });
    const attempts = await f.ledger.app.query<{ kind: string; idempotency_key: string }>(
      "SELECT kind, idempotency_key FROM dispatch_attempts ORDER BY attempt_no",
    );
    expect(attempts.rows).toEqual([
      { kind: "primary", idempotency_key: operationId },
      { kind: "c1_replay_probe", idempotency_key: operationId },
    ]);
    expect(destinationEffects(f.refdest)).toBe(1);
    const t = await f.ledger.app.query<{ cause: string }>(
      "SELECT cause FROM effect_transitions ORDER BY transition_seq DESC LIMIT 1",
    );
    expect(t.rows[0]?.cause).toBe("replay_ok");
  });

  it("C1 outside the idempotency window falls back to a status query", async () => {
    f = await openEngineFixture(backend, { tier: "C1" });
    const { effectId } = await f.irrevon.register(orderContract({ adapter_id: "refdest-c1" }));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    await f.irrevon.dispatch(effectId);
    f.clock.advance(25 * 3_600_000);
    expect(await f.irrevon.reconcile(effectId)).toMatchObject({
      status: "committed",
      classification: "CONFIRMED_UNIQUE",
      cause: "reconciled_present",
    });
    const kinds = await f.ledger.app.query<{ kind: string }>("SELECT kind FROM dispatch_attempts");
    expect(kinds.rows.map((r) => r.kind)).toEqual(["primary"]);
  });

  it("audit finds a DUPLICATE behind an OK receipt, and CONTRADICTED (failed_but_present) behind a reconciled absence", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const dup = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DUPLICATE_ACCEPT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(dup.effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
    });
    expect(await f.irrevon.audit(dup.effectId)).toMatchObject({
      status: "finding",
      classification: "DUPLICATE",
    });
    expect(await f.irrevon.audit(dup.effectId)).toMatchObject({ status: "consistent" });

    const gone = await f.irrevon.register(orderContract({ scope: "acme-store/eu" }));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
    await f.irrevon.dispatch(gone.effectId);
    f.clock.advance(2_000); // past the call's deadline: the absence rule's clock starts there
    expect(await f.irrevon.reconcile(gone.effectId)).toMatchObject({
      status: "failed",
      cause: "reconciled_absent",
    });
    expect(await f.irrevon.audit(gone.effectId)).toMatchObject({ status: "consistent" });
    f.refdest.createOutOfBand({
      effect_type: "order.create",
      payload: { late: true },
      client_ref: gone.operationId,
    });
    expect(await f.irrevon.audit(gone.effectId)).toMatchObject({
      status: "finding",
      classification: "CONTRADICTED",
      direction: "failed_but_present",
    });
  });

  it("recovery re-dispatches a confirmed-LOST effect only under a policy grant, recorded as the authority", async () => {
    f = await openEngineFixture(backend, {
      config: {
        rereadGapSeconds: 0,
        autoRedispatch: { "order.create": { grantRef: "policy:auto-orders-2026" } },
      },
    });
    const { effectId } = await f.irrevon.register(orderContract());
    const other = await f.irrevon.register(orderContract({ effect_type: "invoice.send" }));
    f.refdest.schedule([
      {
        fault: "DROP_RESPONSE_BEFORE_COMMIT",
        match: { op: "create", effect_type: "order.create" },
      },
      {
        fault: "DROP_RESPONSE_BEFORE_COMMIT",
        match: { op: "create", effect_type: "invoice.send" },
      },
    ]);
    await f.irrevon.dispatch(effectId);
    await f.irrevon.dispatch(other.effectId);
    f.clock.advance(2_000); // past the calls' deadline: the absence rule's clock starts there
    const report = await f.irrevon.recover();
    expect(report).toMatchObject({ scanned: 2, adjudicated: 2, redispatched: 1 });
    expect(await f.irrevon.status(effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      step: 1,
      classification: "LOST",
      resolution: "CLOSED",
    });
    expect(await f.irrevon.status(other.effectId)).toMatchObject({
      lifecycle: "SETTLED_FAILED",
      classification: "LOST",
      resolution: "OPEN",
    });
    const auth = await f.ledger.app.query<{ authority_ref: string }>(
      "SELECT a.authority_ref FROM effect_authorities l JOIN authorities a ON a.authority_id = l.authority_id WHERE l.effect_id = $1 ORDER BY l.link_id DESC LIMIT 1",
      [effectId],
    );
    expect(auth.rows[0]?.authority_ref).toBe("policy:auto-orders-2026");
    const res = await f.ledger.app.query<{ to_status: string; actor: string }>(
      "SELECT to_status, actor FROM finding_resolutions ORDER BY resolution_seq",
    );
    expect(res.rows).toEqual([
      { to_status: "REDISPATCHED", actor: "policy_auto" },
      { to_status: "CLOSED", actor: "system" },
    ]);
    expect(destinationEffects(f.refdest)).toBe(1);
  });
});
