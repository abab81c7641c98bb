/**
 * Evidence over belief, on both backends, as irrevon_app through the locked functions: an
 * exit from AMBIGUOUS must cite evidence that exists, belongs to that execution and supports
 * the target state (PRESENT probes for a commit; two ordered ABSENT reads, a FAILED receipt
 * or a human decision for a failure); findings may cite only probes and receipts of their own
 * effect. Every refusal is `evidence_invalid` (SQLSTATE DT044) with the rule it broke in
 * `details.constraint`, and writes nothing.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import {
  effectAt,
  insertAttempt,
  insertProbe,
  insertReceipt,
  sha256Hex,
  transition,
  type ExecutionRef,
} from "../support/ledger-fixtures.js";

/** A C1 replay probe passes the gate like any send (0040): an ALLOW decision of its own first. */
async function gatedReplayProbe(l: TestLedger, ex: ExecutionRef): Promise<number> {
  const d = await l.app.query<{ decision_id: number }>(
    `INSERT INTO gate_decisions (effect_id, execution_id, variant, outcome, checks, evidence)
     VALUES ($1, $2, 'c1_replay_probe', 'ALLOW', '[]'::jsonb, '{}'::jsonb) RETURNING decision_id`,
    [ex.effectId, ex.executionId],
  );
  return insertAttempt(l.app, ex, "c1_replay_probe", Number(d.rows[0]?.decision_id));
}

async function transitionsOf(l: TestLedger, executionId: number): Promise<number> {
  const { rows } = await l.superuser.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM effect_transitions WHERE execution_id = $1",
    [executionId],
  );
  return Number(rows[0]?.n);
}

/** Expects the exit to be refused as evidence_invalid/DT044 naming `rule`, writing nothing. */
async function expectRefused(
  l: TestLedger,
  ex: ExecutionRef,
  to: "SETTLED_COMMITTED" | "SETTLED_FAILED",
  evidence: Record<string, unknown>,
  rule: string,
  actor = "reconciler",
): Promise<void> {
  const before = await transitionsOf(l, ex.executionId);
  const cause = to === "SETTLED_COMMITTED" ? "reconciled_present" : "reconciled_absent";
  const err = await expectDbError(
    transition(l.app, ex.executionId, "AMBIGUOUS", to, cause, actor, evidence),
    "evidence_invalid",
    "DT044",
  );
  expect(err.details["constraint"]).toBe(rule);
  expect(await transitionsOf(l, ex.executionId)).toBe(before);
}

describeEachBackend("evidence citations", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
  });
  afterEach(async () => {
    await l.close();
  });

  it("refuses reconciled_absent citing a probe that does not exist (issue 10 item 7)", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    await expectRefused(l, ex, "SETTLED_FAILED", { probe_ids: [424242] }, "citation_probe_unknown");
    const { rows } = await l.read.query<{ frontier: string }>(
      "SELECT frontier FROM execution_frontiers WHERE execution_id = $1",
      [ex.executionId],
    );
    expect(rows[0]?.frontier).toBe("AMBIGUOUS");
  });

  it("refuses probes of another execution, repeated or malformed probe ids", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    const other = await effectAt(l.app, "AMBIGUOUS");
    const foreign = [
      await insertProbe(l.app, other.executionId, "ABSENT"),
      await insertProbe(l.app, other.executionId, "ABSENT"),
    ];
    await expectRefused(l, ex, "SETTLED_FAILED", { probe_ids: foreign }, "citation_probe_unknown");
    const own = await insertProbe(l.app, ex.executionId, "ABSENT");
    await expectRefused(l, ex, "SETTLED_FAILED", { probe_ids: [own, own] }, "citation_malformed");
    for (const probeIds of [[], "1", [1.5], [-3], ["7"], [1e30]])
      await expectRefused(l, ex, "SETTLED_FAILED", { probe_ids: probeIds }, "citation_malformed");
  });

  it("a failure needs two ordered ABSENT reads of the execution and no PRESENT read", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    const first = await insertProbe(l.app, ex.executionId, "ABSENT");
    await expectRefused(
      l,
      ex,
      "SETTLED_FAILED",
      { probe_ids: [first] },
      "citation_absence_two_reads",
    );
    const indeterminate = await insertProbe(l.app, ex.executionId, "INDETERMINATE");
    await expectRefused(
      l,
      ex,
      "SETTLED_FAILED",
      { probe_ids: [first, indeterminate] },
      "citation_probe_result",
    );
    // A read the reconciler itself marked as taken before the lag elapsed does not count.
    const early = await insertProbe(l.app, ex.executionId, "ABSENT", {
      lag_not_elapsed: true,
    });
    await expectRefused(
      l,
      ex,
      "SETTLED_FAILED",
      { probe_ids: [early, first] },
      "citation_probe_result",
    );
    // The later read (by recording order) must not have been taken before the first.
    const backdated = await insertProbe(l.app, ex.executionId, "ABSENT", {}, "-1 hour");
    await expectRefused(
      l,
      ex,
      "SETTLED_FAILED",
      { probe_ids: [first, backdated] },
      "citation_absence_two_reads",
    );
    const second = await insertProbe(l.app, ex.executionId, "ABSENT");
    // Presence anywhere on the execution contradicts the absence, cited or not.
    const present = await effectAt(l.app, "AMBIGUOUS");
    const p1 = await insertProbe(l.app, present.executionId, "ABSENT");
    await insertProbe(l.app, present.executionId, "PRESENT");
    const p2 = await insertProbe(l.app, present.executionId, "ABSENT");
    await expectRefused(
      l,
      present,
      "SETTLED_FAILED",
      { probe_ids: [p1, p2] },
      "citation_absence_contradicted",
    );
    // Two ordered ABSENT reads settle it.
    await transition(
      l.app,
      ex.executionId,
      "AMBIGUOUS",
      "SETTLED_FAILED",
      "reconciled_absent",
      "reconciler",
      {
        probe_ids: [first, second],
      },
    );
    await expectAuditClean(l);
  });

  it("a commit cites only PRESENT probes", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    const absent = await insertProbe(l.app, ex.executionId, "ABSENT");
    const present = await insertProbe(l.app, ex.executionId, "PRESENT");
    await expectRefused(
      l,
      ex,
      "SETTLED_COMMITTED",
      { probe_ids: [absent] },
      "citation_probe_result",
    );
    await expectRefused(
      l,
      ex,
      "SETTLED_COMMITTED",
      { probe_ids: [absent, present] },
      "citation_probe_result",
    );
    await transition(
      l.app,
      ex.executionId,
      "AMBIGUOUS",
      "SETTLED_COMMITTED",
      "reconciled_present",
      "reconciler",
      {
        probe_ids: [present],
      },
    );
    await expectAuditClean(l);
  });

  it("a receipt must exist, be of the execution and its outcome must support the target", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    const other = await effectAt(l.app, "SETTLED_COMMITTED");
    const { rows } = await l.read.query<{ receipt_id: number }>(
      `SELECT r.receipt_id FROM dispatch_receipts r JOIN dispatch_attempts a ON a.attempt_id = r.attempt_id
        WHERE a.execution_id = $1`,
      [other.executionId],
    );
    const foreignOk = Number(rows[0]?.receipt_id);
    await expectRefused(
      l,
      ex,
      "SETTLED_COMMITTED",
      { receipt_id: 424242 },
      "citation_receipt_unknown",
    );
    await expectRefused(
      l,
      ex,
      "SETTLED_COMMITTED",
      { receipt_id: foreignOk },
      "citation_receipt_unknown",
    );
    const replay = await gatedReplayProbe(l, ex);
    const failedReplay = await insertReceipt(l.app, replay, "FAILED");
    await expectRefused(
      l,
      ex,
      "SETTLED_COMMITTED",
      { receipt_id: failedReplay },
      "citation_receipt_outcome",
    );
    await transition(
      l.app,
      ex.executionId,
      "AMBIGUOUS",
      "SETTLED_FAILED",
      "replay_failed",
      "reconciler",
      {
        receipt_id: failedReplay,
      },
    );
    await expectAuditClean(l);
  });

  it("a human decision is cited only by a human and names who decided", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    const human = { human: { decided_by: "ops@example", note: "checked the dashboard" } };
    await expectRefused(l, ex, "SETTLED_FAILED", human, "citation_human_actor", "reconciler");
    await expectRefused(
      l,
      ex,
      "SETTLED_FAILED",
      { human: "trust me" },
      "citation_human_decided_by",
      "human",
    );
    await expectRefused(
      l,
      ex,
      "SETTLED_FAILED",
      { human: { decided_by: " ", note: "x" } },
      "citation_human_decided_by",
      "human",
    );
    await transition(
      l.app,
      ex.executionId,
      "AMBIGUOUS",
      "SETTLED_FAILED",
      "reconciled_absent",
      "human",
      human,
    );
    await expectAuditClean(l);
  });

  it("a bare note is no longer a citation (DT005, as for no citation at all)", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    await expectDbError(
      transition(
        l.app,
        ex.executionId,
        "AMBIGUOUS",
        "SETTLED_FAILED",
        "reconciled_absent",
        "human",
        {
          note: "looks fine",
        },
      ),
      "illegal_state",
      "DT005",
    );
  });

  it("a finding cites only probes and receipts of its own effect", async () => {
    const failed = await effectAt(l.app, "SETTLED_FAILED");
    const other = await effectAt(l.app, "SETTLED_FAILED");
    const foreign = await insertProbe(l.app, other.executionId, "PRESENT");
    const attach = (evidence: Record<string, unknown>) =>
      l.app.query(
        "SELECT ledger_attach_finding($1, 'refdest', NULL, 'CONTRADICTED', NULL, $2::jsonb, $3, 'reconciler')",
        [
          failed.effectId,
          JSON.stringify(evidence),
          `sha256:${sha256Hex(JSON.stringify(evidence))}`,
        ],
      );
    for (const [evidence, rule] of [
      [{ probe_ids: [424242] }, "citation_probe_unknown"],
      [{ probe_ids: [foreign] }, "citation_probe_unknown"],
      [{ probe_ids: "x" }, "citation_malformed"],
      [{ receipt_id: 424242 }, "citation_receipt_unknown"],
    ] as const) {
      const err = await expectDbError(attach(evidence), "evidence_invalid", "DT044");
      expect(err.details["constraint"]).toBe(rule);
    }
    const own = await insertProbe(l.app, failed.executionId, "PRESENT");
    await attach({ probe_ids: [own] });
    await expectAuditClean(l);
  });
});
