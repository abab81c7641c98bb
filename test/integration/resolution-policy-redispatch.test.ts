/**
 * Automatic (policy-granted) re-dispatch of a LOST effect (reference §7, D2, D8) on both
 * backends. It takes the same path as a human re-dispatch: the ABSENT evidence it cites must be
 * fresh (≤ redispatchAbsenceMaxAgeSeconds, else a new probe must answer ABSENT). A LOST finding
 * left OPEN for days is probed again before anything is re-sent; if the destination now shows
 * the effect nothing is sent and the finding goes to a human. Two engines racing on the same
 * finding: the loser's stale_state never aborts its recovery run.
 */
import { afterEach, expect, it } from "vitest";
import type { Irrevon } from "../../src/engine/irrevon.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  destinationEffects,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

const DAY_MS = 86_400_000;
const GRANT = { "order.create": { grantRef: "policy:auto-orders" } };

async function count(f: EngineFixture, sql: string): Promise<number> {
  const { rows } = await f.ledger.app.query<{ n: string | number }>(sql);
  return Number(rows[0]?.n);
}

/** Dispatch with a dropped response, reconcile to SETTLED_FAILED + LOST (OPEN). */
async function lostEffect(
  f: EngineFixture,
): Promise<{ effectId: string; operationId: string; findingId: number }> {
  const { effectId, operationId } = await f.irrevon.register(orderContract());
  f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
  // The absence rule: a dropped call's deadline (the fixture's 2 s) still counts, so absence
  // counts only once the clock is past it (docs/engine.md, "The absence rule").
  f.clock.advance(2_000);
  const out = await f.irrevon.reconcile(effectId);
  expect(out).toMatchObject({ status: "failed", cause: "reconciled_absent", escalated: false });
  const findingId = out.status === "failed" ? (out.findingId ?? 0) : 0;
  expect(findingId).toBeGreaterThan(0);
  return { effectId, operationId, findingId };
}

const creates = (f: EngineFixture): number =>
  f.refdest.requestLog().filter((e) => e.op === "create").length;

describeEachBackend("policy re-dispatch: fresh absence, races", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("a LOST finding OPEN for 3 days whose effect now exists is not re-sent: CONTRADICTED, and LOST goes to a human", async () => {
    f = await openEngineFixture(backend, {
      config: { rereadGapSeconds: 0, autoRedispatch: GRANT },
    });
    const a = await lostEffect(f);
    f.clock.advance(3 * DAY_MS);
    // The first attempt did land after all (seen only now), under the execution's client ref.
    f.refdest.createOutOfBand({
      effect_type: "order.create",
      payload: { late: true },
      client_ref: a.operationId,
    });
    const report = await f.irrevon.recover();
    expect(report).toMatchObject({ redispatched: 0, errors: [] });
    expect(creates(f)).toBe(1); // only the original attempt: nothing was re-sent
    expect(destinationEffects(f.refdest)).toBe(1);
    expect(await count(f, "SELECT count(*) AS n FROM effect_executions")).toBe(1);
    expect(
      (await f.irrevon.findings({ effectId: a.effectId })).map((x) => [x.classification, x.status]),
    ).toEqual([
      ["LOST", "ESCALATED_HUMAN"],
      ["CONTRADICTED", "OPEN"],
    ]);
    // A later pass leaves the escalated finding alone: no new probe, no new finding.
    const probes = await count(f, "SELECT count(*) AS n FROM status_probes");
    expect(await f.irrevon.recover()).toMatchObject({ redispatched: 0, errors: [] });
    expect((await f.irrevon.cycle({ sweep: false })).redispatched).toBe(0);
    expect(await count(f, "SELECT count(*) AS n FROM status_probes")).toBe(probes);
    expect(await f.irrevon.findings({ effectId: a.effectId })).toHaveLength(2);
  });

  it("a 3-day-old absence is never cited: recovery takes a new ABSENT probe and the re-dispatch cites it", async () => {
    f = await openEngineFixture(backend, {
      config: { rereadGapSeconds: 0, autoRedispatch: GRANT },
    });
    const a = await lostEffect(f);
    const oldProbes = await count(f, "SELECT max(probe_id) AS n FROM status_probes");
    f.clock.advance(3 * DAY_MS);
    const report = await f.irrevon.recover();
    expect(report).toMatchObject({ redispatched: 1, errors: [] });
    const fresh = await f.ledger.app.query<{ probe_id: unknown; probe_kind: string }>(
      "SELECT probe_id, probe_kind, result FROM status_probes WHERE probe_id > $1 ORDER BY probe_id",
      [oldProbes],
    );
    expect(fresh.rows).toEqual([
      { probe_id: expect.anything() as unknown, probe_kind: "audit", result: "ABSENT" },
    ]);
    const edge = await f.ledger.app.query<{ actor: string; evidence: Record<string, unknown> }>(
      "SELECT actor, evidence FROM finding_resolutions WHERE finding_id = $1 AND to_status = 'REDISPATCHED'",
      [a.findingId],
    );
    expect(edge.rows[0]?.actor).toBe("policy_auto");
    expect(Number(edge.rows[0]?.evidence["absent_probe_id"])).toBe(Number(fresh.rows[0]?.probe_id));
    expect(edge.rows[0]?.evidence).toMatchObject({
      fresh_authority_ref: "policy:auto-orders",
      authority_ref: "policy:auto-orders",
    });
    expect(await f.irrevon.status(a.effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      step: 1,
      resolution: "CLOSED",
    });
    expect(destinationEffects(f.refdest)).toBe(1);
  });

  it("two engines race on one LOST finding: one re-dispatches, the loser's recovery completes and is recorded", async () => {
    f = await openEngineFixture(backend, {
      // Every re-dispatch takes a new probe, so the race can be staged inside it.
      config: { rereadGapSeconds: 0, autoRedispatch: GRANT, redispatchAbsenceMaxAgeSeconds: 0 },
    });
    const a = await lostEffect(f);
    const other: Irrevon = await f.openAnother("worker-b");
    // While worker-a probes for fresh absence, worker-b recovers and re-dispatches first.
    const query = f.refdest.query.bind(f.refdest);
    let staged = false;
    let otherReport: Awaited<ReturnType<Irrevon["recover"]>> | undefined;
    f.refdest.query = async (clientRef: string) => {
      if (!staged) {
        staged = true;
        otherReport = await other.recover();
      }
      return query(clientRef);
    };
    f.clock.advance(1_000); // the stored ABSENT probe is now older than the 0 s limit
    const runsBefore = await count(f, "SELECT count(*) AS n FROM recovery_runs");
    const report = await f.irrevon.recover();
    expect(staged).toBe(true);
    expect(otherReport).toMatchObject({ redispatched: 1, errors: [] });
    expect(report).toMatchObject({ redispatched: 0, errors: [] });
    expect(await count(f, "SELECT count(*) AS n FROM recovery_runs")).toBe(runsBefore + 2);
    expect(creates(f)).toBe(2); // the lost original + exactly one replacement
    expect(destinationEffects(f.refdest)).toBe(1);
    expect(await f.irrevon.status(a.effectId)).toMatchObject({
      lifecycle: "SETTLED_COMMITTED",
      step: 1,
      resolution: "CLOSED",
    });
  });
});
