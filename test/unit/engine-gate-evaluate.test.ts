/**
 * The gate's four checks as a pure function (reference §4): order and first-deny-stops,
 * each authority cause, branch lineage, dedup frontiers (DISPATCHED / AMBIGUOUS /
 * SETTLED_COMMITTED block; FAILED and CANCELLED do not), SETTLED_FAILED as a dedup deny with
 * cause retryable_failed, the self-waiver of recovery_redispatch, and a stable input digest.
 * Evidence of presence (a PRESENT probe, a failed_but_present contradiction, a late OK) denies
 * by dedup whatever the lifecycle says.
 */
import { describe, expect, it } from "vitest";
import {
  evaluateGate,
  type GateExecution,
  type GateInputs,
} from "../../src/ledger/gate-evaluate.js";

function exec(id: number, frontier: GateExecution["frontier"]): GateExecution {
  return {
    executionId: id,
    step: id - 1,
    operationId: `${"a".repeat(64)}:${id - 1}`,
    frontier,
    receiptIds: [],
    findingIds: [],
  };
}

function inputs(overrides: Partial<GateInputs> = {}): GateInputs {
  return {
    effectId: "a".repeat(64),
    variant: "dispatch",
    gateTime: "2026-07-21T00:00:00.000000Z",
    record: {
      effectClass: "IRREVERSIBLE",
      effectType: "order.create",
      scope: "s",
      branchRef: null,
    },
    denyHits: [],
    authority: {
      authorityId: 1,
      authorityRef: "auth",
      scope: "s",
      stampedAt: "2026-07-20T12:00:00.000000Z",
      expiresAt: "2026-07-21T12:00:00.000000Z",
      isExpired: false,
    },
    branchCancelled: false,
    executions: [exec(1, "PERSISTED")],
    parameterVariantDigests: [],
    presence: { probeIds: [], findingIds: [], lateResponseIds: [] },
    ...overrides,
  };
}

const statuses = (d: ReturnType<typeof evaluateGate>) => d.checks.map((c) => c.status);

describe("gate evaluation", () => {
  it("allows when every check passes", () => {
    const d = evaluateGate(inputs());
    expect(d).toMatchObject({ outcome: "ALLOW", denyCheck: null, cause: null });
    expect(statuses(d)).toEqual(["passed", "passed", "passed", "passed"]);
  });

  it("stops at the first deny; later checks are not_reached", () => {
    const d = evaluateGate(
      inputs({ denyHits: [{ denyId: 3, reason: "r" }], authority: null, branchCancelled: true }),
    );
    expect(d).toMatchObject({ outcome: "DENY", denyCheck: "deny_list", cause: "deny_listed" });
    expect(statuses(d)).toEqual(["denied", "not_reached", "not_reached", "not_reached"]);
  });

  it("names each authority cause", () => {
    const base = inputs().authority!;
    expect(evaluateGate(inputs({ authority: null })).cause).toBe("no_authority");
    expect(evaluateGate(inputs({ authority: { ...base, scope: "other" } })).cause).toBe(
      "scope_binding_mismatch",
    );
    expect(evaluateGate(inputs({ authority: { ...base, expiresAt: null } })).cause).toBe(
      "no_expiry_derivable",
    );
    expect(evaluateGate(inputs({ authority: { ...base, isExpired: true } })).cause).toBe("expired");
  });

  it("denies a cancelled branch only when the record names one", () => {
    expect(evaluateGate(inputs({ branchCancelled: true })).outcome).toBe("ALLOW");
    const d = evaluateGate(
      inputs({ branchCancelled: true, record: { ...inputs().record, branchRef: "b" } }),
    );
    expect(d).toMatchObject({ denyCheck: "branch_lineage", cause: "branch_cancelled" });
  });

  it("dedup blocks on DISPATCHED, AMBIGUOUS and SETTLED_COMMITTED and cites them with the variants", () => {
    for (const frontier of ["DISPATCHED", "AMBIGUOUS", "SETTLED_COMMITTED"] as const) {
      const d = evaluateGate(
        inputs({
          executions: [exec(1, frontier), exec(2, "PERSISTED")],
          parameterVariantDigests: ["sha256:x"],
        }),
      );
      expect(d).toMatchObject({ denyCheck: "dedup", cause: "duplicate_intent" });
      expect(d.evidence["parameter_variants"]).toEqual(["sha256:x"]);
      expect((d.evidence["blocking_executions"] as unknown[]).length).toBe(1);
    }
    expect(
      evaluateGate(inputs({ executions: [exec(1, "SETTLED_FAILED"), exec(2, "PERSISTED")] }))
        .outcome,
    ).toBe("ALLOW");
    expect(
      evaluateGate(inputs({ executions: [exec(1, "CANCELLED"), exec(2, "PERSISTED")] })).outcome,
    ).toBe("ALLOW");
  });

  it("a latest SETTLED_FAILED execution is a dedup deny with cause retryable_failed (the real check shown)", () => {
    const d = evaluateGate(inputs({ executions: [exec(1, "SETTLED_FAILED")] }));
    expect(d).toMatchObject({ outcome: "DENY", denyCheck: "dedup", cause: "retryable_failed" });
    expect(statuses(d)).toEqual(["passed", "passed", "passed", "denied"]);
    expect(d.evidence).toMatchObject({
      settled_execution_id: 1,
      retry_operation: "open_retry_execution",
    });
  });

  it("recovery_redispatch waives only the named execution", () => {
    const executions = [exec(1, "AMBIGUOUS"), exec(2, "PERSISTED")];
    expect(
      evaluateGate(inputs({ variant: "recovery_redispatch", executions, waiveExecutionId: 1 }))
        .outcome,
    ).toBe("ALLOW");
    expect(
      evaluateGate(inputs({ variant: "recovery_redispatch", executions, waiveExecutionId: 2 }))
        .outcome,
    ).toBe("DENY");
  });

  it("digests its inputs deterministically", () => {
    expect(evaluateGate(inputs()).evidence["input_digest"]).toBe(
      evaluateGate(inputs()).evidence["input_digest"],
    );
    expect(evaluateGate(inputs()).evidence["input_digest"]).not.toBe(
      evaluateGate(inputs({ gateTime: "2026-07-21T00:00:01.000000Z" })).evidence["input_digest"],
    );
  });

  const none = { probeIds: [], findingIds: [], lateResponseIds: [] };
  for (const [name, presence] of [
    ["a PRESENT probe", { ...none, probeIds: [7] }],
    ["a failed_but_present contradiction", { ...none, findingIds: [3] }],
    ["a late OK response", { ...none, lateResponseIds: [2] }],
  ] as const) {
    it(`${name} denies a new step by dedup (present_at_destination) though every frontier is FAILED`, () => {
      const d = evaluateGate(
        inputs({
          variant: "retry_after_failure",
          executions: [exec(1, "SETTLED_FAILED"), exec(2, "PERSISTED")],
          presence,
        }),
      );
      expect(d).toMatchObject({
        outcome: "DENY",
        denyCheck: "dedup",
        cause: "present_at_destination",
      });
      expect(d.evidence).toMatchObject({
        probe_ids: presence.probeIds,
        finding_ids: presence.findingIds,
        late_response_ids: presence.lateResponseIds,
      });
    });
  }
});
