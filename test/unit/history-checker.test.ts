/**
 * The history checker on hand-made histories: a clean run reports nothing, and each
 * invariant is broken once, alone, so every rule is known to be able to fire (and to fire
 * only where it should).
 */
import { describe, expect, it } from "vitest";
import {
  checkHistory,
  classifyDestinationEffects,
  countByInvariant,
  HISTORY_INVARIANTS,
  type DestinationEffectFact,
  type DestinationHistory,
  type HistoryInvariant,
  type LedgerAttemptFact,
  type LedgerHistory,
  type ScenarioFacts,
} from "../../src/testing/history-checker.js";

const A = "a".repeat(64);
const B = "b".repeat(64);
const opA = `${A}:0`;
const opB = `${B}:0`;

/** A clean two-intent history: A committed once, B lost cleanly (two ABSENT reads ⇒ LOST). */
function cleanLedger(): LedgerHistory {
  return {
    records: [
      { effectId: A, branchRef: null },
      { effectId: B, branchRef: "branch-1" },
    ],
    executions: [
      { executionId: 1, effectId: A, step: 0, operationId: opA, frontier: "SETTLED_COMMITTED" },
      { executionId: 2, effectId: B, step: 0, operationId: opB, frontier: "SETTLED_FAILED" },
    ],
    decisions: [
      { decisionId: 10, effectId: A, executionId: 1, outcome: "ALLOW", createdMs: 1_000 },
      { decisionId: 11, effectId: B, executionId: 2, outcome: "ALLOW", createdMs: 1_000 },
    ],
    attempts: [
      attempt(100, 1, opA, 10, { transportOutcome: "OK", destinationRef: "dest_1" }),
      attempt(101, 2, opB, 11, { transportOutcome: "LOST", destinationRef: null }),
    ],
    findings: [{ findingId: 1, effectId: B, destinationRef: null, classification: "LOST" }],
    escalations: [],
    branchCancellations: [],
  };
}

function attempt(
  attemptId: number,
  executionId: number,
  operationId: string,
  gateDecisionId: number | null,
  receipt: LedgerAttemptFact["receipt"],
  kind = "primary",
): LedgerAttemptFact {
  return { attemptId, executionId, operationId, kind, gateDecisionId, receipt };
}

function effect(ref: string, clientRef: string | null, via = "api"): DestinationEffectFact {
  return { destinationRef: ref, clientRef, idempotencyKey: null, requestSeq: 1, via };
}

function cleanDestination(): DestinationHistory {
  return {
    effects: [effect("dest_1", opA)],
    requests: [
      { seq: 1, op: "create", clientRef: opA, idempotencyKey: null },
      { seq: 2, op: "create", clientRef: opB, idempotencyKey: null },
      { seq: 3, op: "query", clientRef: opB, idempotencyKey: null },
    ],
  };
}

/** Runs the checker and returns the per-invariant counts. */
function counts(
  ledger: LedgerHistory,
  destination: DestinationHistory,
  scenario: ScenarioFacts = {},
): Record<HistoryInvariant, number> {
  return countByInvariant(checkHistory(ledger, destination, scenario).violations);
}

/** Only `invariant` is broken, `n` times. */
function only(invariant: HistoryInvariant, n = 1): Record<HistoryInvariant, number> {
  const out = countByInvariant([]);
  out[invariant] = n;
  return out;
}

describe("history checker", () => {
  it("reports nothing for a clean history and attributes effects to operations", () => {
    const verdict = checkHistory(cleanLedger(), cleanDestination(), { legitimate: [A, B] });
    expect(verdict.violations).toEqual([]);
    expect(verdict.effectsByOperation.get(opA)).toBe(1);
    expect(verdict.wireCallsByOperation.get(opA)).toBe(1);
    expect(verdict.unattributedEffects).toBe(0);
  });

  it("duplicate_effect: two effects for one operation without a DUPLICATE finding (n−1 counted)", () => {
    const destination = cleanDestination();
    const doubled = {
      ...destination,
      effects: [...destination.effects, effect("dest_2", opA), effect("dest_3", opA)],
    };
    expect(counts(cleanLedger(), doubled)).toEqual(only("duplicate_effect", 2));
    const ledger = cleanLedger();
    const reported = {
      ...ledger,
      findings: [
        ...ledger.findings,
        { findingId: 2, effectId: A, destinationRef: "dest_1", classification: "DUPLICATE" },
      ],
    };
    expect(counts(reported, doubled)).toEqual(only("duplicate_effect", 0));
  });

  it("duplicate_effect: across two steps of one intent", () => {
    const ledger = cleanLedger();
    const retried: LedgerHistory = {
      ...ledger,
      executions: [
        { executionId: 1, effectId: A, step: 0, operationId: opA, frontier: "SETTLED_COMMITTED" },
        {
          executionId: 3,
          effectId: A,
          step: 1,
          operationId: `${A}:1`,
          frontier: "SETTLED_COMMITTED",
        },
        ledger.executions[1]!,
      ],
      decisions: [
        ...ledger.decisions,
        { decisionId: 12, effectId: A, executionId: 3, outcome: "ALLOW", createdMs: 2_000 },
      ],
      attempts: [
        ...ledger.attempts,
        attempt(102, 3, `${A}:1`, 12, { transportOutcome: "OK", destinationRef: "dest_9" }),
      ],
    };
    const destination = cleanDestination();
    const both = {
      effects: [...destination.effects, effect("dest_9", `${A}:1`)],
      requests: [
        ...destination.requests,
        { seq: 4, op: "create", clientRef: `${A}:1`, idempotencyKey: null },
      ],
    };
    expect(counts(retried, both)).toEqual(only("duplicate_effect"));
  });

  it("orphan_effect: an effect no ledger record explains, unless an ORPHANED finding names it", () => {
    const destination = cleanDestination();
    const withOob = {
      ...destination,
      effects: [...destination.effects, effect("dest_x", null, "oob")],
    };
    expect(counts(cleanLedger(), withOob)).toEqual(only("orphan_effect"));
    const ledger = cleanLedger();
    const found = {
      ...ledger,
      findings: [
        ...ledger.findings,
        { findingId: 3, effectId: null, destinationRef: "dest_x", classification: "ORPHANED" },
      ],
    };
    expect(counts(found, withOob)).toEqual(only("orphan_effect", 0));
  });

  it("orphan_effect: an effect attributed by destination_ref only is not an orphan", () => {
    const destination = cleanDestination();
    const byRef = { ...destination, effects: [effect("dest_1", null)] };
    expect(counts(cleanLedger(), byRef)).toEqual(only("orphan_effect", 0));
  });

  it("lost_legitimate_effect: an allowed intent with no effect that is not AMBIGUOUS/escalated/LOST", () => {
    const ledger = cleanLedger();
    const silent = { ...ledger, findings: [] }; // B: SETTLED_FAILED after LOST receipt, no finding
    expect(counts(silent, cleanDestination())).toEqual(only("lost_legitimate_effect"));
    const ambiguous = {
      ...silent,
      executions: [ledger.executions[0]!, { ...ledger.executions[1]!, frontier: "AMBIGUOUS" }],
    };
    expect(counts(ambiguous, cleanDestination())).toEqual(only("lost_legitimate_effect", 0));
    const escalated = { ...silent, escalations: [{ executionId: 2, reason: "no_covering_key" }] };
    expect(counts(escalated, cleanDestination())).toEqual(only("lost_legitimate_effect", 0));
  });

  it("lost_legitimate_effect: a legitimate intent left PERSISTED or never registered", () => {
    const ledger = cleanLedger();
    const persisted: LedgerHistory = {
      ...ledger,
      records: [...ledger.records, { effectId: "c".repeat(64), branchRef: null }],
      executions: [
        ...ledger.executions,
        {
          executionId: 4,
          effectId: "c".repeat(64),
          step: 0,
          operationId: `${"c".repeat(64)}:0`,
          frontier: "PERSISTED",
        },
      ],
    };
    expect(counts(persisted, cleanDestination())).toEqual(only("lost_legitimate_effect", 0));
    expect(counts(persisted, cleanDestination(), { legitimate: ["c".repeat(64)] })).toEqual(
      only("lost_legitimate_effect"),
    );
    expect(counts(ledger, cleanDestination(), { legitimate: ["d".repeat(64)] })).toEqual(
      only("lost_legitimate_effect"),
    );
  });

  it("effect_after_cancellation: a CANCELLED execution or an ALLOW after the branch was cancelled", () => {
    const ledger = cleanLedger();
    const destination = cleanDestination();
    const bHappened = {
      ...destination,
      effects: [...destination.effects, effect("dest_b", opB)],
    };
    const committedB: LedgerHistory = {
      ...ledger,
      executions: [
        ledger.executions[0]!,
        { ...ledger.executions[1]!, frontier: "SETTLED_COMMITTED" },
      ],
      attempts: [
        ledger.attempts[0]!,
        attempt(101, 2, opB, 11, { transportOutcome: "OK", destinationRef: "dest_b" }),
      ],
      findings: [],
    };
    expect(counts(committedB, bHappened)).toEqual(only("effect_after_cancellation", 0));
    const cancelledFirst = {
      ...committedB,
      branchCancellations: [{ branchRef: "branch-1", cancelledMs: 500 }],
    };
    expect(counts(cancelledFirst, bHappened)).toEqual(only("effect_after_cancellation"));
    const cancelledLater = {
      ...committedB,
      branchCancellations: [{ branchRef: "branch-1", cancelledMs: 5_000 }],
    };
    expect(counts(cancelledLater, bHappened)).toEqual(only("effect_after_cancellation", 0));
  });

  it("unauthorized_effect: an effect whose operation has only DENY decisions", () => {
    const ledger = cleanLedger();
    const denied: LedgerHistory = {
      ...ledger,
      decisions: [
        { decisionId: 10, effectId: A, executionId: 1, outcome: "DENY", createdMs: 1_000 },
        ledger.decisions[1]!,
      ],
    };
    expect(counts(denied, cleanDestination())).toEqual(only("unauthorized_effect"));
  });

  it("false_suppression: SETTLED_FAILED while the destination holds the effect", () => {
    const destination = cleanDestination();
    const bHappened = { ...destination, effects: [...destination.effects, effect("dest_b", opB)] };
    expect(counts(cleanLedger(), bHappened)).toEqual(only("false_suppression"));
    const ledger = cleanLedger();
    const contradicted = {
      ...ledger,
      findings: [
        ...ledger.findings,
        { findingId: 5, effectId: B, destinationRef: "dest_b", classification: "CONTRADICTED" },
      ],
    };
    expect(counts(contradicted, bHappened)).toEqual(only("false_suppression", 0));
  });

  it("claim_contradiction: SETTLED_COMMITTED with no effect, or CONFIRMED_UNIQUE with n≠1", () => {
    const destination = cleanDestination();
    const none = { ...destination, effects: [] };
    expect(counts(cleanLedger(), none)).toEqual(only("claim_contradiction"));
    const ledger = cleanLedger();
    const unique = {
      ...ledger,
      findings: [
        ...ledger.findings,
        { findingId: 6, effectId: A, destinationRef: "dest_1", classification: "CONFIRMED_UNIQUE" },
      ],
    };
    const two = { ...destination, effects: [...destination.effects, effect("dest_2", opA)] };
    expect(counts(unique, two)).toEqual({ ...only("claim_contradiction"), duplicate_effect: 1 });
  });

  it("effect_despite_pre_persist_crash: an effect keyed by an intent killed before persistence", () => {
    const ghost = "e".repeat(64);
    const destination = cleanDestination();
    const leaked = {
      ...destination,
      effects: [...destination.effects, effect("dest_g", `${ghost}:0`)],
    };
    const result = counts(cleanLedger(), leaked, { prePersistCrash: [ghost] });
    expect(result).toEqual({
      ...only("effect_despite_pre_persist_crash"),
      orphan_effect: 1, // no record either
    });
    expect(counts(cleanLedger(), cleanDestination(), { prePersistCrash: [ghost] })).toEqual(
      only("orphan_effect", 0),
    );
  });

  it("unclaimed_wire_call: more write requests for an operation than claimed attempts", () => {
    const destination = cleanDestination();
    const resent = {
      ...destination,
      requests: [
        ...destination.requests,
        { seq: 9, op: "create", clientRef: opB, idempotencyKey: null },
      ],
    };
    expect(counts(cleanLedger(), resent)).toEqual(only("unclaimed_wire_call"));
    const keyed = {
      ...destination,
      requests: [
        ...destination.requests,
        { seq: 9, op: "create", clientRef: null, idempotencyKey: `${"f".repeat(64)}:0` },
      ],
    };
    expect(counts(cleanLedger(), keyed)).toEqual(only("unclaimed_wire_call"));
  });

  it("names every invariant exactly once in its closed set", () => {
    expect(new Set(HISTORY_INVARIANTS).size).toBe(9);
    expect(Object.keys(countByInvariant([])).sort()).toEqual([...HISTORY_INVARIANTS].sort());
  });
});

/** [ref, class, reason] rows of the classification, in destination order. */
function classes(ledger: LedgerHistory, destination: DestinationHistory): string[][] {
  return classifyDestinationEffects(ledger, destination).map((c) => [
    c.destinationRef,
    c.effectClass,
    c.reason,
  ]);
}

function seqEffect(
  ref: string,
  clientRef: string | null,
  requestSeq: number,
): DestinationEffectFact {
  return { destinationRef: ref, clientRef, idempotencyKey: null, requestSeq, via: "api" };
}

describe("history checker: what explains a destination effect", () => {
  const C = "c".repeat(64);
  const opC = `${C}:0`;
  /** The clean ledger plus record C at `frontier` with no attempt (and a DENY when asked). */
  function withUnclaimed(frontier: string, denied: boolean): LedgerHistory {
    const ledger = cleanLedger();
    return {
      ...ledger,
      records: [...ledger.records, { effectId: C, branchRef: null }],
      executions: [
        ...ledger.executions,
        { executionId: 7, effectId: C, step: 0, operationId: opC, frontier },
      ],
      decisions: denied
        ? [
            ...ledger.decisions,
            { decisionId: 17, effectId: C, executionId: 7, outcome: "DENY", createdMs: 1_000 },
          ]
        : ledger.decisions,
    };
  }

  it("the committed effect of a claimed execution is EXPLAINED", () => {
    expect(classes(cleanLedger(), cleanDestination())).toEqual([
      ["dest_1", "EXPLAINED", "claimed"],
    ]);
  });

  it("a further copy under a claimed key is a DUPLICATE; the receipt's own ref is kept even when listed later", () => {
    const destination = {
      ...cleanDestination(),
      effects: [seqEffect("dest_0", opA, 1), seqEffect("dest_1", opA, 2)],
    };
    expect(classes(cleanLedger(), destination)).toEqual([
      ["dest_0", "DUPLICATE", "extra_copy"],
      ["dest_1", "EXPLAINED", "claimed"],
    ]);
  });

  it("a late step 0 (settled FAILED) next to a committed step 1 is CONTRADICTED, and the intent's excess", () => {
    const ledger = cleanLedger();
    const opB1 = `${B}:1`;
    const redispatched: LedgerHistory = {
      ...ledger,
      executions: [
        ...ledger.executions,
        { executionId: 3, effectId: B, step: 1, operationId: opB1, frontier: "SETTLED_COMMITTED" },
      ],
      decisions: [
        ...ledger.decisions,
        { decisionId: 12, effectId: B, executionId: 3, outcome: "ALLOW", createdMs: 2_000 },
      ],
      attempts: [
        ...ledger.attempts,
        attempt(102, 3, opB1, 12, { transportOutcome: "OK", destinationRef: "dest_b1" }),
      ],
    };
    const destination = {
      ...cleanDestination(),
      effects: [
        seqEffect("dest_1", opA, 1),
        seqEffect("dest_b1", opB1, 5),
        seqEffect("dest_b0", opB, 6),
      ],
    };
    expect(classes(redispatched, destination)).toEqual([
      ["dest_1", "EXPLAINED", "claimed"],
      ["dest_b1", "EXPLAINED", "claimed"],
      ["dest_b0", "CONTRADICTED", "failed_but_present"],
    ]);
    // Without the failed step's contradiction the intent still has one effect too many.
    const bothCommitted = {
      ...redispatched,
      executions: redispatched.executions.map((x) =>
        x.executionId === 2 ? { ...x, frontier: "SETTLED_COMMITTED" } : x,
      ),
    };
    expect(classes(bothCommitted, destination)).toEqual([
      ["dest_1", "EXPLAINED", "claimed"],
      ["dest_b1", "EXPLAINED", "claimed"],
      ["dest_b0", "DUPLICATE", "intent_excess"],
    ]);
  });

  it("a key never claimed explains nothing: ORPHANED as denied, cancelled or never dispatched", () => {
    const destination = {
      ...cleanDestination(),
      effects: [...cleanDestination().effects, seqEffect("dest_c", opC, 9)],
    };
    const orphan = (ledger: LedgerHistory) => classes(ledger, destination)[1];
    expect(orphan(withUnclaimed("PERSISTED", true))).toEqual(["dest_c", "ORPHANED", "denied"]);
    expect(orphan(withUnclaimed("CANCELLED", false))).toEqual(["dest_c", "ORPHANED", "cancelled"]);
    expect(orphan(withUnclaimed("PERSISTED", false))).toEqual([
      "dest_c",
      "ORPHANED",
      "never_dispatched",
    ]);
    const oob = { ...destination, effects: [seqEffect("dest_x", null, 3)] };
    expect(classes(cleanLedger(), oob)).toEqual([["dest_x", "ORPHANED", "no_record"]]);
  });

  it("another adapter's key explains nothing, and the checker reports it as an orphan, not a duplicate", () => {
    const ledger = cleanLedger();
    const tagged: LedgerHistory = {
      ...ledger,
      records: ledger.records.map((r) => ({ ...r, adapterId: "dest-a" })),
    };
    const other: DestinationHistory = {
      adapterId: "dest-b",
      effects: [seqEffect("dest_1", opA, 1)], // same ref string and key as A's own effect
      requests: [],
    };
    expect(classes(tagged, other)).toEqual([["dest_1", "ORPHANED", "other_adapter"]]);
    const result = counts(tagged, other);
    expect(result.orphan_effect).toBe(1);
    expect(result.duplicate_effect).toBe(0);
    expect(result.claim_contradiction).toBe(0);
    expect(classes(tagged, { ...cleanDestination(), adapterId: "dest-a" })).toEqual([
      ["dest_1", "EXPLAINED", "claimed"],
    ]);
  });
});
