/**
 * sql/migrations/0052 on both backends: the one-statement settle writes exactly what the
 * separate probe write and settle transaction wrote (the same rows, the same evidence, a
 * finding digest equal to the engine's canonicalDigest), a refused settle keeps the probe and
 * writes nothing else, and the page read returns every reconcile input of many effects at
 * once. The reconcile and recovery suites cover the decisions made on top of these.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { canonicalDigest } from "../../src/core/canonical.js";
import { ErrorCode } from "../../src/core/errors.js";
import { countingDb } from "../../src/bench/engine/counting-db.js";
import { readReconcileInputs } from "../../src/ledger/reconcile-inputs.js";
import type { ProbeInput } from "../../src/ledger/record-probe.js";
import { settleWithProbe } from "../../src/ledger/settle-ambiguous.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import { countRows, effectAt, insertProbe } from "../support/ledger-fixtures.js";

function probe(executionId: number, result: "PRESENT" | "ABSENT", queriedAt: string): ProbeInput {
  return {
    executionId,
    adapterId: "refdest",
    declarationDigest: "sha256:decl",
    probeKind: "reconcile_open",
    queryKeys: [{ kind: "client_ref", value: `op-${executionId}` }],
    result,
    nFound: result === "PRESENT" ? 2 : 0,
    destinationRefs: result === "PRESENT" ? ["ref-1", "ref-2"] : [],
    queriedAt,
    evidence: { mode: "recovery", key_strength: "client_ref" },
  };
}

describeEachBackend("0052: reconcile reads and settles in one statement", (backend) => {
  let ledger: TestLedger;
  beforeEach(async () => {
    ledger = await openTestLedger(backend);
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("irrevon_evidence_digest is the engine's canonicalDigest", async () => {
    const values: unknown[] = [
      {},
      [],
      { b: 1, a: [true, false, null], c: { z: "", y: [] } },
      { execution_id: 12, settle_transition_seq: 9007199254740991, probe_ids: [3, 1, 2] },
      { destination_refs: ['quote " and \\ backslash', "tab\tnew\nline\r\b\f", "\u0001\u001f\u007f"] },
      { s: "é, ß, 日本, 🙂", n: -42, zero: 0 },
    ];
    for (const value of values) {
      const { rows } = await ledger.app.query<{ digest: string }>(
        "SELECT irrevon_evidence_digest($1::jsonb) AS digest",
        [JSON.stringify(value)],
      );
      expect(rows[0]?.digest, JSON.stringify(value)).toBe(canonicalDigest(value));
    }
  });

  it("irrevon_jcs refuses a fraction and a non-ASCII member name instead of guessing", async () => {
    await expectDbError(
      ledger.app.query("SELECT irrevon_jcs('{\"a\": 1.5}'::jsonb)"),
      ErrorCode.illegal_state,
      "DT005",
    );
    await expectDbError(
      ledger.app.query("SELECT irrevon_jcs('{\"é\": 1}'::jsonb)"),
      ErrorCode.illegal_state,
      "DT005",
    );
  });

  it("PRESENT: probe, exit citing it and DUPLICATE finding in one statement, digest as the engine's", async () => {
    const ex = await effectAt(ledger.app, "AMBIGUOUS");
    const counting = countingDb(ledger.app);
    const result = await settleWithProbe(counting, {
      probe: probe(ex.executionId, "PRESENT", new Date().toISOString()),
      priorProbeIds: [],
      to: "SETTLED_COMMITTED",
      cause: "reconciled_present",
      actor: "recovery",
      finding: {
        effectId: ex.effectId,
        adapterId: "refdest",
        destinationRef: "ref-1",
        classification: "DUPLICATE",
        excessEffectCount: 1,
        createdBy: "recovery",
        evidence: { n_found: 2, destination_refs: ["ref-1", "ref-2"] },
      },
    });
    expect(counting.counts).toEqual({
      transactions: 0,
      statementsInTransactions: 0,
      standaloneStatements: 1,
      sharedBeginsAndCommits: 0,
    });
    expect(result.status).toBe("settled");
    if (result.status !== "settled") return;
    const t = await ledger.app.query<{ to_state: string; evidence: unknown }>(
      "SELECT to_state, evidence FROM effect_transitions WHERE transition_seq = $1",
      [result.transitionSeq],
    );
    expect(t.rows[0]).toEqual({
      to_state: "SETTLED_COMMITTED",
      evidence: { probe_ids: [result.probeId] },
    });
    const f = await ledger.app.query<{
      classification: string;
      excess_effect_count: number;
      evidence: Record<string, unknown>;
      evidence_digest: string;
    }>(
      "SELECT classification, excess_effect_count, evidence, evidence_digest FROM findings WHERE finding_id = $1",
      [result.findingId],
    );
    const finding = f.rows[0];
    expect(finding?.evidence).toEqual({
      execution_id: ex.executionId,
      settle_transition_seq: result.transitionSeq,
      probe_ids: [result.probeId],
      n_found: 2,
      destination_refs: ["ref-1", "ref-2"],
    });
    expect(finding?.evidence_digest).toBe(canonicalDigest(finding?.evidence));
    expect(finding?.classification).toBe("DUPLICATE");
    expect(Number(finding?.excess_effect_count)).toBe(1);
  });

  it("ABSENT confirmed: cites the first read and this one; LOST escalated with the probe ids", async () => {
    const ex = await effectAt(ledger.app, "AMBIGUOUS");
    const first = await insertProbe(ledger.app, ex.executionId, "ABSENT", {}, "-1 second");
    const result = await settleWithProbe(ledger.app, {
      probe: probe(ex.executionId, "ABSENT", new Date(Date.now() + 1_000).toISOString()),
      priorProbeIds: [first],
      to: "SETTLED_FAILED",
      cause: "reconciled_absent",
      actor: "reconciler",
      finding: {
        effectId: ex.effectId,
        adapterId: "refdest",
        destinationRef: null,
        classification: "LOST",
        createdBy: "reconciler",
        evidence: { lag_declared: false },
        escalate: { reason: "absence_without_declared_lag", auto_redispatch: "refused" },
      },
    });
    expect(result.status).toBe("settled");
    if (result.status !== "settled") return;
    const probeIds = [first, result.probeId];
    const r = await ledger.app.query<{ to_status: string; evidence: unknown }>(
      "SELECT to_status, evidence FROM finding_resolutions WHERE finding_id = $1 ORDER BY resolution_seq",
      [result.findingId],
    );
    expect(r.rows).toEqual([
      {
        to_status: "ESCALATED_HUMAN",
        evidence: {
          reason: "absence_without_declared_lag",
          auto_redispatch: "refused",
          probe_ids: probeIds,
        },
      },
    ]);
    const f = await ledger.app.query<{ evidence: Record<string, unknown>; evidence_digest: string }>(
      "SELECT evidence, evidence_digest FROM findings WHERE finding_id = $1",
      [result.findingId],
    );
    expect(f.rows[0]?.evidence).toEqual({
      execution_id: ex.executionId,
      settle_transition_seq: result.transitionSeq,
      probe_ids: probeIds,
      lag_declared: false,
    });
    expect(f.rows[0]?.evidence_digest).toBe(canonicalDigest(f.rows[0]?.evidence));
  });

  it("a refused exit (already settled) keeps the probe, writes no transition or finding, returns stale_state", async () => {
    const ex = await effectAt(ledger.app, "SETTLED_COMMITTED");
    const before = {
      probes: await countRows(ledger.app, "status_probes"),
      transitions: await countRows(ledger.app, "effect_transitions"),
      findings: await countRows(ledger.app, "findings"),
    };
    const result = await settleWithProbe(ledger.app, {
      probe: probe(ex.executionId, "PRESENT", new Date().toISOString()),
      priorProbeIds: [],
      to: "SETTLED_COMMITTED",
      cause: "reconciled_present",
      actor: "recovery",
      finding: {
        effectId: ex.effectId,
        adapterId: "refdest",
        destinationRef: "ref-1",
        classification: "CONFIRMED_UNIQUE",
        createdBy: "recovery",
        evidence: { n_found: 1, destination_refs: ["ref-1"] },
      },
    });
    expect(result.status).toBe("refused");
    if (result.status !== "refused") return;
    expect({ code: result.error.code, sqlstate: result.error.details["sqlstate"] }).toEqual({
      code: ErrorCode.stale_state,
      sqlstate: "DT002",
    });
    expect({
      probes: await countRows(ledger.app, "status_probes"),
      transitions: await countRows(ledger.app, "effect_transitions"),
      findings: await countRows(ledger.app, "findings"),
    }).toEqual({ ...before, probes: before.probes + 1 });
  });

  it("a refused citation (ABSENT after a PRESENT read) surfaces evidence_invalid with its rule", async () => {
    const ex = await effectAt(ledger.app, "AMBIGUOUS");
    await insertProbe(ledger.app, ex.executionId, "PRESENT");
    const first = await insertProbe(ledger.app, ex.executionId, "ABSENT", {}, "-1 second");
    const result = await settleWithProbe(ledger.app, {
      probe: probe(ex.executionId, "ABSENT", new Date(Date.now() + 1_000).toISOString()),
      priorProbeIds: [first],
      to: "SETTLED_FAILED",
      cause: "reconciled_absent",
      actor: "recovery",
      finding: {
        effectId: ex.effectId,
        adapterId: "refdest",
        destinationRef: null,
        classification: "LOST",
        createdBy: "recovery",
        evidence: { lag_declared: true },
      },
    });
    expect(result.status).toBe("refused");
    if (result.status !== "refused") return;
    expect({
      code: result.error.code,
      sqlstate: result.error.details["sqlstate"],
      constraint: result.error.details["constraint"],
    }).toEqual({
      code: ErrorCode.evidence_invalid,
      sqlstate: "DT044",
      constraint: "citation_absence_contradicted",
    });
    expect(await countRows(ledger.app, "findings")).toBe(0);
  });

  it("the page read returns each effect's inputs, and nothing for an unknown id", async () => {
    const ambiguous = await effectAt(ledger.app, "AMBIGUOUS");
    const dispatched = await effectAt(ledger.app, "DISPATCHED");
    const probeId = await insertProbe(ledger.app, ambiguous.executionId, "ABSENT", {
      reread_not_before: "2026-01-01T00:00:00.000Z",
    });
    const unknown = "0".repeat(64);
    const inputs = await readReconcileInputs(ledger.app, [
      ambiguous.effectId,
      dispatched.effectId,
      unknown,
    ]);
    const a = inputs.get(ambiguous.effectId);
    expect(a?.latest).toMatchObject({ executionId: ambiguous.executionId, frontier: "AMBIGUOUS" });
    expect(a?.record?.effectId).toBe(ambiguous.effectId);
    expect(a?.openAttempts).toEqual([]);
    expect(a?.horizons).toHaveLength(1);
    expect(a?.horizons[0]?.receiptRecordedAt).not.toBeNull();
    expect(a?.probes.map((p) => [p.probeId, p.result, p.evidence["reread_not_before"]])).toEqual([
      [probeId, "ABSENT", "2026-01-01T00:00:00.000Z"],
    ]);
    const d = inputs.get(dispatched.effectId);
    expect(d?.latest?.frontier).toBe("DISPATCHED");
    expect(d?.openAttempts).toHaveLength(1);
    expect(d?.horizons[0]?.receiptRecordedAt).toBeNull();
    expect(inputs.get(unknown)).toMatchObject({ record: null, latest: null });
  });
});
