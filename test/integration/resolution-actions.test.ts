/**
 * Resolution (§2.3, §7, I8, I9) on both backends: ACCEPTED_AS_IS closes in the same
 * transaction; ESCALATED_HUMAN is one edge; COMPENSATED cites a registered compensating effect
 * (stable id `compensates_finding_id`) and closes when it commits — at once, after its
 * dispatch, or by the worker's catch-up when the commit came through recovery; REDISPATCHED
 * (LOST only) needs fresh authority and fresh ABSENT evidence (a new probe when the stored one
 * is stale), opens a new step and closes when the replacement commits; a DUPLICATE is never
 * re-dispatched, also after escalation; concurrent resolutions of one finding: one wins;
 * advisory input is refused at run time.
 */
import type { IntentContractInput } from "../../src/core/contract-input.js";
import { afterEach, expect, it } from "vitest";
import { ClassifierProposal } from "../../src/advisory/classifier-proposal.js";
import { resolveChain } from "../../src/ledger/resolve-finding.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend } from "../support/databases.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
  countRows,
} from "./engine-support.js";

const AUTHORITY = () => ({
  fresh_authority_ref: "auth_ops_review_7",
  stamped_at: new Date().toISOString(),
});

const count = countRows;

async function chain(f: EngineFixture, findingId: number): Promise<string[]> {
  const { rows } = await f.ledger.app.query<{
    from_status: string;
    to_status: string;
    actor: string;
  }>(
    "SELECT from_status, to_status, actor FROM finding_resolutions WHERE finding_id = $1 ORDER BY resolution_seq",
    [findingId],
  );
  return rows.map((r) => `${r.from_status}>${r.to_status}:${r.actor}`);
}

/** An effect the destination holds twice: reconcile finds n=2 ⇒ COMMITTED + DUPLICATE. */
async function duplicate(f: EngineFixture): Promise<{ effectId: string; findingId: number }> {
  const { effectId, operationId } = await f.irrevon.register(orderContract());
  f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
  expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
  f.refdest.createOutOfBand({ effect_type: "order.create", payload: {}, client_ref: operationId });
  const outcome = await f.irrevon.reconcile(effectId);
  expect(outcome).toMatchObject({ status: "committed", classification: "DUPLICATE" });
  if (outcome.status !== "committed" || outcome.findingId === null) throw new Error("no finding");
  return { effectId, findingId: outcome.findingId };
}

/** A response lost before commit: two ABSENT reads ⇒ SETTLED_FAILED + LOST. */
async function lost(f: EngineFixture): Promise<{ effectId: string; findingId: number }> {
  const { effectId } = await f.irrevon.register(orderContract());
  f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
  // The absence rule: a dropped connection does not end the server's work, so an ABSENT read
  // counts only once the call's deadline (the fixture's 2 s) plus the declared lag (PT0S) passed.
  f.clock.advance(2_000);
  const outcome = await f.irrevon.reconcile(effectId);
  expect(outcome).toMatchObject({ status: "failed", escalated: false });
  if (outcome.status !== "failed" || outcome.findingId === null) throw new Error("no finding");
  return { effectId, findingId: outcome.findingId };
}

async function orphan(f: EngineFixture): Promise<number> {
  f.refdest.createOutOfBand({ effect_type: "order.create", payload: {} });
  await f.irrevon.sweep(f.adapterId);
  const run = await f.irrevon.sweep(f.adapterId);
  const [id] = run.orphansCreated;
  if (id === undefined) throw new Error("no orphan");
  return id;
}

function compensation(findingId: number): IntentContractInput {
  return orderContract({
    effect_type: "order.cancel",
    stable_ids: { order_id: `cancel-${findingId}`, compensates_finding_id: String(findingId) },
  });
}

describeEachBackend("resolution", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("ACCEPTED_AS_IS closes in the same call; ESCALATED_HUMAN is one edge, then an action", async () => {
    f = await openEngineFixture(backend, {
      config: { orphanGraceSeconds: 0, rereadGapSeconds: 0 },
    });
    const orphanId = await orphan(f);
    const accepted = await f.irrevon.resolve(orphanId, "ACCEPTED_AS_IS", { note: "test order" });
    expect(accepted).toMatchObject({ from: "OPEN", current: "CLOSED", closed: true });
    expect(await chain(f, orphanId)).toEqual([
      "OPEN>ACCEPTED_AS_IS:human",
      "ACCEPTED_AS_IS>CLOSED:system",
    ]);

    const dup = await duplicate(f);
    const escalated = await f.irrevon.resolve(dup.findingId, "ESCALATED_HUMAN", {
      note: "ask finance",
    });
    expect(escalated).toMatchObject({ current: "ESCALATED_HUMAN", closed: false });
    await f.irrevon.resolve(dup.findingId, "ACCEPTED_AS_IS", { note: "customer keeps both" });
    expect(await chain(f, dup.findingId)).toEqual([
      "OPEN>ESCALATED_HUMAN:human",
      "ESCALATED_HUMAN>ACCEPTED_AS_IS:human",
      "ACCEPTED_AS_IS>CLOSED:system",
    ]);
    await expect(
      f.irrevon.resolve(dup.findingId, "ESCALATED_HUMAN", { note: "again" }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
    });
    await expect(f.irrevon.resolve(orphanId, "ACCEPTED_AS_IS", {})).rejects.toMatchObject({
      code: "resolution_invalid",
    });
    await expect(f.irrevon.resolve(999_999, "ACCEPTED_AS_IS", { note: "x" })).rejects.toMatchObject(
      {
        code: "not_found",
      },
    );
  });

  it("a DUPLICATE is never re-dispatched, before or after escalation; nothing is sent or written", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const dup = await duplicate(f);
    const before = {
      executions: await count(f, "SELECT count(*) AS n FROM effect_executions"),
      probes: await count(f, "SELECT count(*) AS n FROM status_probes"),
      requests: f.refdest.requestLog().length,
    };
    await expect(
      f.irrevon.resolve(dup.findingId, "REDISPATCHED", { note: "resend", ...AUTHORITY() }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
      details: { classification: "DUPLICATE", from: "OPEN", to: "REDISPATCHED" },
    });
    await f.irrevon.resolve(dup.findingId, "ESCALATED_HUMAN", { note: "look" });
    await expect(
      f.irrevon.resolve(dup.findingId, "REDISPATCHED", { note: "resend", ...AUTHORITY() }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
      details: { from: "ESCALATED_HUMAN" },
    });
    // The SQL function refuses it too, whatever the caller claims.
    await expect(
      resolveChain(f.ledger.app, dup.findingId, [
        {
          from: "ESCALATED_HUMAN",
          to: "REDISPATCHED",
          actor: "human",
          evidence: { note: "bypass" },
        },
      ]),
    ).rejects.toMatchObject({ code: "resolution_invalid" });
    expect(
      await f.irrevon
        .redispatchLost(
          dup.findingId,
          { authorityRef: "a", stampedAt: new Date().toISOString() },
          "x",
        )
        .catch((e: unknown) => e),
    ).toMatchObject({
      code: "resolution_invalid",
    });
    expect(await count(f, "SELECT count(*) AS n FROM effect_executions")).toBe(before.executions);
    expect(await count(f, "SELECT count(*) AS n FROM status_probes")).toBe(before.probes);
    expect(f.refdest.requestLog()).toHaveLength(before.requests);
    expect(await chain(f, dup.findingId)).toEqual(["OPEN>ESCALATED_HUMAN:human"]);
  });

  it("COMPENSATED cites a registered compensating effect and closes when it commits", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const dup = await duplicate(f);
    const unrelated = await f.irrevon.register(orderContract({ effect_type: "order.cancel" }));
    await expect(
      f.irrevon.resolve(dup.findingId, "COMPENSATED", {
        note: "cancel",
        compensating_effect_id: unrelated.effectId,
      }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
      details: { field: "stable_ids.compensates_finding_id" },
    });
    await expect(
      f.irrevon.resolve(dup.findingId, "COMPENSATED", {
        note: "cancel",
        compensating_effect_id: "f".repeat(64),
      }),
    ).rejects.toMatchObject({ code: "resolution_invalid" });
    await expect(
      f.irrevon.resolve(dup.findingId, "COMPENSATED", { note: "cancel" }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
    });

    const cancel = await f.irrevon.register(compensation(dup.findingId));
    const compensated = await f.irrevon.resolve(dup.findingId, "COMPENSATED", {
      note: "cancel the extra order",
      compensating_effect_id: cancel.effectId,
    });
    expect(compensated).toMatchObject({ current: "COMPENSATED", closed: false });
    expect((await f.irrevon.status(dup.effectId)).resolution).toBe("COMPENSATED");
    expect(await f.irrevon.dispatch(cancel.effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
    });
    expect(await chain(f, dup.findingId)).toEqual([
      "OPEN>COMPENSATED:human",
      "COMPENSATED>CLOSED:system",
    ]);
    const closing = await f.ledger.app.query<{ evidence: Record<string, unknown> }>(
      "SELECT evidence FROM finding_resolutions WHERE finding_id = $1 AND to_status = 'CLOSED'",
      [dup.findingId],
    );
    expect(closing.rows[0]?.evidence).toMatchObject({
      compensating_effect_id: cancel.effectId,
      compensating_operation_id: cancel.operationId,
    });
  });

  it("COMPENSATED by an effect that already committed closes at once; one committed via recovery closes on the next cycle", async () => {
    f = await openEngineFixture(backend, {
      config: { rereadGapSeconds: 0, orphanGraceSeconds: 0 },
    });
    const first = await orphan(f);
    const done = await f.irrevon.register(compensation(first));
    await f.irrevon.dispatch(done.effectId);
    expect(
      await f.irrevon.resolve(first, "COMPENSATED", {
        note: "refunded",
        compensating_effect_id: done.effectId,
      }),
    ).toMatchObject({ current: "CLOSED", closed: true });

    const dup = await duplicate(f);
    const cancel = await f.irrevon.register(compensation(dup.findingId));
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(cancel.effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    await f.irrevon.resolve(dup.findingId, "COMPENSATED", {
      note: "cancel",
      compensating_effect_id: cancel.effectId,
    });
    // Recovery settles the compensating effect but runs no after-commit hook (a crash could
    // equally have come between the commit and the hook) …
    expect(await f.irrevon.recover()).toMatchObject({ adjudicated: 1 });
    expect((await f.irrevon.findings({ effectId: dup.effectId }))[0]?.status).toBe("COMPENSATED");
    // … and the worker's catch-up closes it.
    const cycle = await f.irrevon.cycle({ sweep: false });
    expect(cycle.closedFindings).toBe(1);
    expect((await f.irrevon.findings({ effectId: dup.effectId }))[0]?.status).toBe("CLOSED");
  });

  it("REDISPATCHED: fresh authority + fresh ABSENT evidence + new step; closes when the replacement commits", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const { effectId, findingId } = await lost(f);
    await expect(
      f.irrevon.resolve(findingId, "REDISPATCHED", { note: "resend" }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
      details: { field: "authority_ref" },
    });
    expect(await count(f, "SELECT count(*) AS n FROM effect_executions")).toBe(1);

    const outcome = await f.irrevon.resolve(findingId, "REDISPATCHED", {
      note: "customer confirmed",
      ...AUTHORITY(),
    });
    expect(outcome).toMatchObject({
      current: "CLOSED",
      closed: true,
      redispatch: {
        freshProbe: false,
        operationId: `${effectId}:1`,
        dispatch: { lifecycle: "SETTLED_COMMITTED" },
      },
    });
    expect(await chain(f, findingId)).toEqual([
      "OPEN>REDISPATCHED:human",
      "REDISPATCHED>CLOSED:system",
    ]);
    const executions = await f.ledger.app.query<{
      step: number;
      opened_by: string;
      frontier: string;
    }>(
      "SELECT step, opened_by, frontier FROM execution_frontiers WHERE effect_id = $1 ORDER BY step",
      [effectId],
    );
    expect(executions.rows).toEqual([
      { step: 0, opened_by: "register", frontier: "SETTLED_FAILED" },
      { step: 1, opened_by: "resolve_redispatch", frontier: "SETTLED_COMMITTED" },
    ]);
    const gate = await f.ledger.app.query<{ variant: string; outcome: string }>(
      "SELECT variant, outcome FROM gate_decisions WHERE effect_id = $1 ORDER BY decision_id DESC LIMIT 1",
      [effectId],
    );
    expect(gate.rows[0]).toEqual({ variant: "resolve_redispatch", outcome: "ALLOW" });
    expect(destinationEffects(f.refdest)).toBe(1);
  });

  it("REDISPATCHED with stale absence takes a new probe; if the effect now exists it is refused", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    const a = await lost(f);
    f.clock.advance(601_000);
    const probes = await count(f, "SELECT count(*) AS n FROM status_probes");
    const fresh = await f.irrevon.resolve(a.findingId, "REDISPATCHED", {
      note: "resend",
      ...AUTHORITY(),
    });
    expect(fresh).toMatchObject({ redispatch: { freshProbe: true }, closed: true });
    expect(await count(f, "SELECT count(*) AS n FROM status_probes")).toBe(probes + 1);

    const b = await lost(f);
    f.clock.advance(601_000);
    const executions = await count(f, "SELECT count(*) AS n FROM effect_executions");
    f.refdest.createOutOfBand({
      effect_type: "order.create",
      payload: {},
      client_ref: `${b.effectId}:0`,
    });
    await expect(
      f.irrevon.resolve(b.findingId, "REDISPATCHED", { note: "resend", ...AUTHORITY() }),
    ).rejects.toMatchObject({
      code: "resolution_invalid",
      details: { classification: "CONTRADICTED" },
    });
    expect(await count(f, "SELECT count(*) AS n FROM effect_executions")).toBe(executions);
    expect(
      (await f.irrevon.findings({ effectId: b.effectId })).map((x) => [x.classification, x.status]),
    ).toEqual([
      ["LOST", "OPEN"],
      ["CONTRADICTED", "OPEN"],
    ]);
  });

  it("concurrent resolutions of one finding: exactly one wins, the loser writes nothing", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 0 } });
    // Two callers asking for the same terminal step: whichever order they run in, one wins
    // (stale_state when they overlap, resolution_invalid when the loser reads the winner's
    // step). Different targets are not a race to one winner: ESCALATED_HUMAN → ACCEPTED_AS_IS
    // is a legal edge, so an escalation that commits first lets a later acceptance through.
    for (const action of ["ACCEPTED_AS_IS", "ESCALATED_HUMAN", "ACCEPTED_AS_IS"] as const) {
      const findingId = await orphan(f);
      const results = await Promise.allSettled([
        f.irrevon.resolve(findingId, action, { note: "a" }),
        f.irrevon.resolve(findingId, action, { note: "b" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const loser = results.find((r) => r.status === "rejected");
      expect(["stale_state", "resolution_invalid"]).toContain(
        (loser?.reason as { code?: string }).code,
      );
      const edges = await chain(f, findingId);
      expect(edges[0]?.startsWith("OPEN>")).toBe(true);
      expect(edges.filter((e) => e.startsWith("OPEN>"))).toHaveLength(1);
    }
    // Both callers saw OPEN: the compare-and-set in ledger_resolve lets exactly one through.
    const findingId = await orphan(f);
    const raced = await Promise.allSettled([
      resolveChain(f.ledger.app, findingId, [
        { from: "OPEN", to: "ESCALATED_HUMAN", actor: "human", evidence: { note: "a" } },
      ]),
      resolveChain(f.ledger.app, findingId, [
        { from: "OPEN", to: "ACCEPTED_AS_IS", actor: "human", evidence: { note: "b" } },
      ]),
    ]);
    expect(raced.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((raced.find((r) => r.status === "rejected")?.reason as { code?: string }).code).toBe(
      "stale_state",
    );
    expect(await chain(f, findingId)).toHaveLength(1);
  });

  it("advisory proposals are refused by resolve and settle at run time, also JSON-laundered", async () => {
    f = await openEngineFixture(backend, { config: { orphanGraceSeconds: 0 } });
    const findingId = await orphan(f);
    const proposal = new ClassifierProposal({
      subjectEffectId: "a".repeat(64),
      proposedAction: "ACCEPTED_AS_IS",
      confidence: 0.9,
      rationale: "looks like the same order",
    });
    const laundered = JSON.parse(JSON.stringify(proposal.toPayload())) as Record<string, unknown>;
    for (const evidence of [
      { note: "x", proposal: laundered },
      { note: "x", ...laundered },
      proposal as unknown as Record<string, unknown>,
    ]) {
      await expect(f.irrevon.resolve(findingId, "ACCEPTED_AS_IS", evidence)).rejects.toMatchObject({
        code: "advisory_rejected",
      });
    }
    expect(await chain(f, findingId)).toEqual([]);
    const { effectId } = await f.irrevon.register(orderContract());
    await expect(
      f.irrevon.settleManually(effectId, {
        committed: true,
        decidedBy: "ops",
        note: "x",
        ...laundered,
      } as never),
    ).rejects.toMatchObject({ code: "advisory_rejected" });
  });
});
