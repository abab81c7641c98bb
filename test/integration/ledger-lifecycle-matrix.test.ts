/**
 * The 56 lifecycle cells ((genesis + 7) × 7) on both backends, through ledger_transition:
 * every legal (from, to, cause, actor) tuple writes exactly one row; every other tuple —
 * illegal pair, or legal pair with the wrong cause or actor — raises DT001 and writes nothing;
 * a stale expected state raises DT002 before edge legality is looked at.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  LIFECYCLE_EDGES,
  LIFECYCLE_STATES,
  isLegalLifecycleEdge,
  legalLifecyclePairs,
  type LifecycleState,
} from "../../src/core/state-tables.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import {
  effectAt,
  insertAttempt,
  insertEffect,
  insertProbe,
  insertReceipt,
  openExecution,
  rawExecution,
  transition,
  type ExecutionRef,
} from "../support/ledger-fixtures.js";

const FROM_STATES: readonly (LifecycleState | null)[] = [null, ...LIFECYCLE_STATES];
/** Every (cause, actor) combination that appears on some legal edge. */
const CAUSE_ACTORS = [
  ...new Map(
    LIFECYCLE_EDGES.map((e) => [`${e.cause}/${e.actor}`, { cause: e.cause, actor: e.actor }]),
  ).values(),
];

/** A C1 replay probe passes the gate like any send (0040): an ALLOW decision of its own first. */
async function gatedReplayProbe(l: TestLedger, ex: ExecutionRef): Promise<number> {
  const d = await l.app.query<{ decision_id: number }>(
    `INSERT INTO gate_decisions (effect_id, execution_id, variant, outcome, checks, evidence)
     VALUES ($1, $2, 'c1_replay_probe', 'ALLOW', '[]'::jsonb, '{}'::jsonb) RETURNING decision_id`,
    [ex.effectId, ex.executionId],
  );
  return insertAttempt(l.app, ex, "c1_replay_probe", Number(d.rows[0]?.decision_id));
}

async function executionAt(l: TestLedger, state: LifecycleState | null): Promise<ExecutionRef> {
  if (state === null) {
    const e = await insertEffect(l.superuser);
    return rawExecution(l.superuser, e.effectId, 0);
  }
  return effectAt(l.superuser, state);
}

async function transitionsOf(l: TestLedger, executionId: number): Promise<number> {
  const { rows } = await l.superuser.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM effect_transitions WHERE execution_id = $1",
    [executionId],
  );
  return Number(rows[0]?.n);
}

describeEachBackend("lifecycle matrix", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
  });
  afterEach(async () => {
    await l.close();
  });

  it("has exactly the 10 legal pairs of the 56 cells", () => {
    const legal = FROM_STATES.flatMap((from) =>
      LIFECYCLE_STATES.filter((to) =>
        legalLifecyclePairs().some(([f, t]) => f === from && t === to),
      ),
    );
    expect(FROM_STATES.length * LIFECYCLE_STATES.length).toBe(56);
    expect(legal).toHaveLength(10);
  });

  it("each of the 24 legal tuples writes exactly one row, as irrevon_app", async () => {
    expect(LIFECYCLE_EDGES).toHaveLength(24);
    for (const edge of LIFECYCLE_EDGES) {
      const ex = await executionAt(l, edge.from);
      // An exit from AMBIGUOUS cites evidence that supports it (sql/migrations/0044).
      const evidence =
        edge.from !== "AMBIGUOUS"
          ? {}
          : edge.to === "SETTLED_COMMITTED"
            ? { probe_ids: [await insertProbe(l.superuser, ex.executionId, "PRESENT")] }
            : {
                probe_ids: [
                  await insertProbe(l.superuser, ex.executionId, "ABSENT"),
                  await insertProbe(l.superuser, ex.executionId, "ABSENT"),
                ],
              };
      const before = await transitionsOf(l, ex.executionId);
      const seq = await transition(
        l.app,
        ex.executionId,
        edge.from,
        edge.to,
        edge.cause,
        edge.actor,
        evidence,
      );
      expect(seq).toBeGreaterThan(0);
      expect(await transitionsOf(l, ex.executionId)).toBe(before + 1);
      const { rows } = await l.read.query<{ frontier: string }>(
        "SELECT frontier FROM execution_frontiers WHERE execution_id = $1",
        [ex.executionId],
      );
      expect(rows[0]?.frontier).toBe(edge.to);
    }
  });

  it("every illegal tuple of every cell raises DT001 and writes nothing", async () => {
    let illegal = 0;
    for (const from of FROM_STATES) {
      const ex = await executionAt(l, from);
      const before = await transitionsOf(l, ex.executionId);
      for (const to of LIFECYCLE_STATES) {
        for (const { cause, actor } of CAUSE_ACTORS) {
          if (isLegalLifecycleEdge({ from, to, cause, actor })) continue;
          illegal++;
          await expectDbError(
            transition(l.app, ex.executionId, from, to, cause, actor, { note: "matrix" }),
            "illegal_state",
            "DT001",
          );
        }
      }
      expect(await transitionsOf(l, ex.executionId)).toBe(before);
    }
    expect(illegal).toBe(56 * CAUSE_ACTORS.length - 24);
  });

  it("a stale expected state raises DT002 even when the claimed edge is legal or illegal", async () => {
    for (const actual of FROM_STATES) {
      const ex = await executionAt(l, actual);
      const before = await transitionsOf(l, ex.executionId);
      for (const claimed of FROM_STATES) {
        if (claimed === actual) continue;
        const legalFromClaimed = LIFECYCLE_EDGES.find((e) => e.from === claimed);
        if (legalFromClaimed !== undefined) {
          await expectDbError(
            transition(
              l.app,
              ex.executionId,
              claimed,
              legalFromClaimed.to,
              legalFromClaimed.cause,
              legalFromClaimed.actor,
              { note: "stale" },
            ),
            "stale_state",
            "DT002",
          );
        }
        // An illegal edge from a stale state still reports staleness first.
        await expectDbError(
          transition(l.app, ex.executionId, claimed, "INTENDED", "receipt_ok", "human", {
            note: "stale",
          }),
          "stale_state",
          "DT002",
        );
      }
      expect(await transitionsOf(l, ex.executionId)).toBe(before);
    }
  });

  it("an exit from AMBIGUOUS without a citation raises DT005 and writes nothing", async () => {
    const ex = await executionAt(l, "AMBIGUOUS");
    const before = await transitionsOf(l, ex.executionId);
    for (const evidence of [{}, { reason: "looks fine" }, { probe_ids: null }]) {
      await expectDbError(
        transition(
          l.app,
          ex.executionId,
          "AMBIGUOUS",
          "SETTLED_FAILED",
          "reconciled_absent",
          "reconciler",
          evidence,
        ),
        "illegal_state",
        "DT005",
      );
    }
    expect(await transitionsOf(l, ex.executionId)).toBe(before);
    for (const key of ["receipt_id", "human"]) {
      const other = await executionAt(l, "AMBIGUOUS");
      const replay = await gatedReplayProbe(l, other);
      const citation =
        key === "receipt_id"
          ? await insertReceipt(l.app, replay, "OK")
          : { decided_by: "operator", note: "operator confirmed" };
      await transition(
        l.app,
        other.executionId,
        "AMBIGUOUS",
        "SETTLED_COMMITTED",
        key === "receipt_id" ? "replay_ok" : "reconciled_present",
        "human",
        { [key]: citation },
      );
    }
    await expectAuditClean(l);
  });

  it("evidence must be a JSON object and the execution must exist (DT005)", async () => {
    const ex = await executionAt(l, "PERSISTED");
    await expectDbError(
      l.app.query(
        "SELECT ledger_transition($1, 'PERSISTED', 'CANCELLED', 'branch_cancelled', 'human', '[1]'::jsonb)",
        [ex.executionId],
      ),
      "illegal_state",
      "DT005",
    );
    await expectDbError(
      transition(l.app, 987_654, "PERSISTED", "CANCELLED", "branch_cancelled", "human"),
      "illegal_state",
      "DT005",
    );
  });

  it("leaves an auditor-clean ledger after the legal walk", async () => {
    // INTENDED at rest needs a raw execution row, which only the owner side may insert.
    for (const state of LIFECYCLE_STATES)
      await effectAt(state === "INTENDED" ? l.superuser : l.app, state);
    await expectAuditClean(l);
  });

  it("ledger_open_execution: register writes ∅→INTENDED→PERSISTED in one call; retry needs SETTLED_FAILED", async () => {
    const e = await insertEffect(l.app);
    const first = await openExecution(l.app, e.effectId, "register");
    expect(first).toMatchObject({ step: 0, state: "PERSISTED", operationId: `${e.effectId}:0` });
    const chain = await l.read.query<{
      from_state: string | null;
      to_state: string;
      cause: string;
      actor: string;
    }>(
      "SELECT from_state, to_state, cause, actor FROM effect_transitions WHERE execution_id = $1 ORDER BY transition_seq",
      [first.executionId],
    );
    expect(chain.rows).toEqual([
      { from_state: null, to_state: "INTENDED", cause: "register", actor: "registrar" },
      { from_state: "INTENDED", to_state: "PERSISTED", cause: "durable_write", actor: "registrar" },
    ]);
    await expectDbError(openExecution(l.app, e.effectId, "register"), "illegal_state", "DT005");
    await expectDbError(
      openExecution(l.app, e.effectId, "retry_after_failure"),
      "illegal_state",
      "DT005",
    );
    await expectDbError(openExecution(l.app, "0".repeat(64), "register"), "illegal_state", "DT005");
    await expectDbError(openExecution(l.app, e.effectId, "bogus"), "illegal_state", "DT005");

    const failed = await effectAt(l.app, "SETTLED_FAILED");
    const retry = await openExecution(l.app, failed.effectId, "retry_after_failure");
    expect(retry).toMatchObject({
      step: 1,
      state: "PERSISTED",
      operationId: `${failed.effectId}:1`,
    });
    const cancelled = await effectAt(l.app, "CANCELLED");
    const rows = await l.read.query<{ frontier: string; step: number }>(
      "SELECT frontier, step FROM effect_frontiers WHERE effect_id = $1",
      [cancelled.effectId],
    );
    expect(rows.rows).toEqual([{ frontier: "CANCELLED", step: 0 }]);
    await expectAuditClean(l);
  });
});
