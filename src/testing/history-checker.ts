/**
 * testing/history-checker — an Elle-style checker for one finished run: it joins what the
 * ledger says happened (records, executions, gate decisions, attempts, receipts, findings)
 * with what the destination says happened (its truth log and request log) and reports every
 * broken history invariant (reference-bench §5.2, README I2, I4, I8, I10):
 *   duplicate_effect · orphan_effect · lost_legitimate_effect · effect_after_cancellation ·
 *   unauthorized_effect · false_suppression · claim_contradiction ·
 *   effect_despite_pre_persist_crash · unclaimed_wire_call.
 * Pure: the inputs are plain data (test/support/history reads them through SQL and from the
 * reference destination), so the checker itself can be fed hand-made histories. A destination
 * effect is attributed to an operation by its idempotency key or client ref (both are the
 * operation id), else by a receipt's destination ref. Imports: nothing of ours.
 */

/** The invariants the checker reports. */
export const HistoryInvariant = {
  duplicate_effect: "duplicate_effect",
  orphan_effect: "orphan_effect",
  lost_legitimate_effect: "lost_legitimate_effect",
  effect_after_cancellation: "effect_after_cancellation",
  unauthorized_effect: "unauthorized_effect",
  false_suppression: "false_suppression",
  claim_contradiction: "claim_contradiction",
  effect_despite_pre_persist_crash: "effect_despite_pre_persist_crash",
  unclaimed_wire_call: "unclaimed_wire_call",
} as const;
export type HistoryInvariant = (typeof HistoryInvariant)[keyof typeof HistoryInvariant];
export const HISTORY_INVARIANTS: readonly HistoryInvariant[] = Object.values(HistoryInvariant);

export interface LedgerRecordFact {
  readonly effectId: string;
  readonly branchRef: string | null;
  /** The adapter the record dispatches through; when both this and the destination's are known,
   * only records of the destination's own adapter can explain its effects. */
  readonly adapterId?: string;
}
export interface LedgerExecutionFact {
  readonly executionId: number;
  readonly effectId: string;
  readonly step: number;
  readonly operationId: string;
  /** Latest lifecycle state of the execution. */
  readonly frontier: string;
}
export interface LedgerDecisionFact {
  readonly decisionId: number;
  readonly effectId: string;
  readonly executionId: number | null;
  readonly outcome: "ALLOW" | "DENY";
  /** Database time of the decision, epoch milliseconds. */
  readonly createdMs: number;
}
export interface LedgerAttemptFact {
  readonly attemptId: number;
  readonly executionId: number;
  readonly operationId: string;
  readonly kind: string;
  readonly gateDecisionId: number | null;
  /** null while the attempt is open (no receipt). */
  readonly receipt: {
    readonly transportOutcome: string;
    readonly destinationRef: string | null;
  } | null;
}
export interface LedgerFindingFact {
  readonly findingId: number;
  readonly effectId: string | null;
  readonly destinationRef: string | null;
  readonly classification: string;
}
export interface LedgerEscalationFact {
  readonly executionId: number;
  readonly reason: string;
}
export interface LedgerBranchCancellationFact {
  readonly branchRef: string;
  readonly cancelledMs: number;
}

/** Everything the checker needs from the ledger. */
export interface LedgerHistory {
  readonly records: readonly LedgerRecordFact[];
  readonly executions: readonly LedgerExecutionFact[];
  readonly decisions: readonly LedgerDecisionFact[];
  readonly attempts: readonly LedgerAttemptFact[];
  readonly findings: readonly LedgerFindingFact[];
  readonly escalations: readonly LedgerEscalationFact[];
  readonly branchCancellations: readonly LedgerBranchCancellationFact[];
}

/** One effect as the destination's truth log has it. */
export interface DestinationEffectFact {
  readonly destinationRef: string;
  readonly clientRef: string | null;
  readonly idempotencyKey: string | null;
  readonly requestSeq: number;
  readonly via: string;
}
/** One request as the destination logged it. */
export interface DestinationRequestFact {
  readonly seq: number;
  readonly op: string;
  readonly clientRef: string | null;
  readonly idempotencyKey: string | null;
}
export interface DestinationHistory {
  /** The adapter that lists this destination (optional for single-destination histories). */
  readonly adapterId?: string;
  readonly effects: readonly DestinationEffectFact[];
  readonly requests: readonly DestinationRequestFact[];
}

/** What only the test knows: which intents were meant to happen, which were killed early. */
export interface ScenarioFacts {
  /** Effect ids the scenario meant to cause (registered or not). */
  readonly legitimate?: readonly string[];
  /** Effect ids whose registration was killed before its commit. */
  readonly prePersistCrash?: readonly string[];
}

export interface HistoryViolation {
  readonly invariant: HistoryInvariant;
  /** How many violations this row stands for (e.g. n−1 excess effects). */
  readonly count: number;
  readonly subject: Readonly<Record<string, unknown>>;
  readonly detail: string;
}

export interface HistoryVerdict {
  readonly violations: readonly HistoryViolation[];
  /** Destination effects per operation id (attributed ones only). */
  readonly effectsByOperation: ReadonlyMap<string, number>;
  /** Write requests (create/notify) per operation id, from the request log. */
  readonly wireCallsByOperation: ReadonlyMap<string, number>;
  /** Destination effects attributed to no ledger operation. */
  readonly unattributedEffects: number;
}

const WRITE_OPS = new Set(["create", "notify"]);
const OPERATION_ID = /^([0-9a-f]{64}):(0|[1-9][0-9]*)$/;

/** Adds `by` to `key`'s tally in `map` (shared with the trial checker). */
export function count<K>(map: Map<K, number>, key: K, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

function group<T, K>(items: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list === undefined) out.set(k, [item]);
    else list.push(item);
  }
  return out;
}

/**
 * Which records may explain this destination's effects: all of them, unless both the
 * destination and the record name their adapter, in which case only the same adapter's.
 */
function ofDestinationAdapter(
  ledger: LedgerHistory,
  destination: DestinationHistory,
): (effectId: string) => boolean {
  const adapterOf = new Map(ledger.records.map((r) => [r.effectId, r.adapterId]));
  return (effectId) => {
    const adapterId = adapterOf.get(effectId);
    return (
      destination.adapterId === undefined ||
      adapterId === undefined ||
      adapterId === destination.adapterId
    );
  };
}

/** Checks one run's history; an empty `violations` list means every invariant held. */
export function checkHistory(
  ledger: LedgerHistory,
  destination: DestinationHistory,
  scenario: ScenarioFacts = {},
): HistoryVerdict {
  const violations: HistoryViolation[] = [];
  const report = (
    invariant: HistoryInvariant,
    subject: Record<string, unknown>,
    detail: string,
    n = 1,
  ): void => {
    violations.push({ invariant, count: n, subject, detail });
  };

  const records = new Map(ledger.records.map((r) => [r.effectId, r]));
  const sameAdapter = ofDestinationAdapter(ledger, destination);
  const executionsByOp = new Map(
    ledger.executions.filter((x) => sameAdapter(x.effectId)).map((x) => [x.operationId, x]),
  );
  const executionsByEffect = group(ledger.executions, (x) => x.effectId);
  const attemptsByExecution = group(ledger.attempts, (a) => a.executionId);
  const decisions = new Map(ledger.decisions.map((d) => [d.decisionId, d]));
  const findingsByEffect = group(
    ledger.findings.filter((f) => f.effectId !== null),
    (f) => f.effectId ?? "",
  );
  const orphanFindingRefs = new Set(
    ledger.findings
      .filter((f) => f.classification === "ORPHANED" && f.destinationRef !== null)
      .map((f) => f.destinationRef),
  );
  const escalated = new Set(ledger.escalations.map((e) => e.executionId));
  const cancelledAt = new Map(ledger.branchCancellations.map((b) => [b.branchRef, b.cancelledMs]));
  const refToOperation = new Map<string, string>();
  for (const a of ledger.attempts) {
    if (a.receipt?.destinationRef && executionsByOp.has(a.operationId))
      refToOperation.set(a.receipt.destinationRef, a.operationId);
  }
  const hasFinding = (effectId: string, classification: string): boolean =>
    (findingsByEffect.get(effectId) ?? []).some((f) => f.classification === classification);

  // ---- attribute every destination effect to an operation (or to nothing) ----------------
  const effectsByOperation = new Map<string, number>();
  const effectsByEffect = new Map<string, number>();
  let unattributedEffects = 0;
  const prePersist = new Set(scenario.prePersistCrash ?? []);
  for (const e of destination.effects) {
    const keyed = e.idempotencyKey ?? e.clientRef;
    const operationId =
      keyed !== null && executionsByOp.has(keyed) ? keyed : refToOperation.get(e.destinationRef);
    const claimedEffect = keyed === null ? undefined : OPERATION_ID.exec(keyed)?.[1];
    if (claimedEffect !== undefined && prePersist.has(claimedEffect)) {
      report(
        HistoryInvariant.effect_despite_pre_persist_crash,
        { effect_id: claimedEffect, destination_ref: e.destinationRef },
        "the destination holds an effect for an intent killed before its record committed",
      );
    }
    if (operationId === undefined) {
      unattributedEffects += 1;
      if (!orphanFindingRefs.has(e.destinationRef)) {
        report(
          HistoryInvariant.orphan_effect,
          { destination_ref: e.destinationRef, client_ref: e.clientRef, via: e.via },
          "destination effect with no ledger record and no ORPHANED finding",
        );
      }
      continue;
    }
    const execution = executionsByOp.get(operationId);
    count(effectsByOperation, operationId);
    if (execution !== undefined) count(effectsByEffect, execution.effectId);
  }

  // ---- per destination effect: authorised, not cancelled ---------------------------------
  for (const [operationId, n] of effectsByOperation) {
    const execution = executionsByOp.get(operationId);
    if (execution === undefined) continue;
    const attempts = attemptsByExecution.get(execution.executionId) ?? [];
    const allows = attempts
      .filter((a) => a.kind !== "c1_replay_probe" && a.gateDecisionId !== null)
      .map((a) => decisions.get(a.gateDecisionId ?? -1))
      .filter(
        (d): d is LedgerDecisionFact =>
          d !== undefined && d.outcome === "ALLOW" && d.effectId === execution.effectId,
      );
    const subject = { operation_id: operationId, effect_id: execution.effectId, effects: n };
    if (allows.length === 0) {
      report(
        HistoryInvariant.unauthorized_effect,
        subject,
        "destination effect for an operation with no claimed attempt under an ALLOW decision",
        n,
      );
    }
    const branch = records.get(execution.effectId)?.branchRef ?? null;
    const cancelled = branch === null ? undefined : cancelledAt.get(branch);
    const allowedAfterCancel =
      cancelled !== undefined && allows.some((d) => d.createdMs > cancelled);
    if (execution.frontier === "CANCELLED" || allowedAfterCancel) {
      report(
        HistoryInvariant.effect_after_cancellation,
        { ...subject, branch_ref: branch },
        "destination effect for a cancelled execution or one allowed after its branch was cancelled",
        n,
      );
    }
  }

  // ---- per effect id: duplicates, lost, contradictions -------------------------------------
  for (const [effectId, n] of effectsByEffect) {
    if (n >= 2 && !hasFinding(effectId, "DUPLICATE")) {
      report(
        HistoryInvariant.duplicate_effect,
        { effect_id: effectId, effects: n },
        "more than one destination effect for one intent and no DUPLICATE finding",
        n - 1,
      );
    }
    if (
      n !== 1 &&
      hasFinding(effectId, "CONFIRMED_UNIQUE") &&
      !hasFinding(effectId, "DUPLICATE") &&
      !hasFinding(effectId, "CONTRADICTED")
    ) {
      report(
        HistoryInvariant.claim_contradiction,
        { effect_id: effectId, effects: n, claim: "CONFIRMED_UNIQUE" },
        "CONFIRMED_UNIQUE while the destination holds a different number of effects",
      );
    }
  }
  for (const x of executionsByOp.values()) {
    const n = effectsByOperation.get(x.operationId) ?? 0;
    const contradicted = hasFinding(x.effectId, "CONTRADICTED");
    const subject = { operation_id: x.operationId, effect_id: x.effectId, frontier: x.frontier };
    if (x.frontier === "SETTLED_COMMITTED" && n === 0 && !contradicted) {
      report(
        HistoryInvariant.claim_contradiction,
        subject,
        "SETTLED_COMMITTED while the destination has no effect for the operation",
      );
    }
    if (x.frontier === "SETTLED_FAILED" && n > 0 && !contradicted) {
      report(
        HistoryInvariant.false_suppression,
        { ...subject, effects: n },
        "SETTLED_FAILED while the destination holds the effect",
      );
    }
  }

  const allowedEffects = new Set(
    ledger.decisions
      .filter((d) => d.outcome === "ALLOW" && sameAdapter(d.effectId))
      .map((d) => d.effectId),
  );
  const candidates = new Set([...allowedEffects, ...(scenario.legitimate ?? [])]);
  for (const effectId of candidates) {
    if ((effectsByEffect.get(effectId) ?? 0) > 0) continue;
    const executions = (executionsByEffect.get(effectId) ?? []).sort((a, b) => a.step - b.step);
    const latest = executions[executions.length - 1];
    if (latest === undefined) {
      report(
        HistoryInvariant.lost_legitimate_effect,
        { effect_id: effectId },
        "a legitimate intent was never registered and never happened",
      );
      continue;
    }
    if (latest.frontier === "SETTLED_COMMITTED") continue; // claim_contradiction covers it
    const attempts = attemptsByExecution.get(latest.executionId) ?? [];
    const isOpen = attempts.some((a) => a.receipt === null);
    const failedCleanly = attempts.some((a) => a.receipt?.transportOutcome === "FAILED");
    const honest =
      latest.frontier === "AMBIGUOUS" ||
      latest.frontier === "CANCELLED" ||
      (latest.frontier === "DISPATCHED" && isOpen) ||
      escalated.has(latest.executionId) ||
      (latest.frontier === "SETTLED_FAILED" && (hasFinding(effectId, "LOST") || failedCleanly));
    if (!honest) {
      report(
        HistoryInvariant.lost_legitimate_effect,
        { effect_id: effectId, operation_id: latest.operationId, frontier: latest.frontier },
        "an allowed intent has no destination effect and is not AMBIGUOUS, escalated or LOST",
      );
    }
  }

  // ---- wire calls: never more sends for an operation than claimed attempts (I4) ----------
  const wireCallsByOperation = new Map<string, number>();
  for (const r of destination.requests) {
    if (!WRITE_OPS.has(r.op)) continue;
    const key = r.idempotencyKey ?? r.clientRef;
    if (key !== null && OPERATION_ID.test(key)) count(wireCallsByOperation, key);
  }
  for (const [operationId, calls] of wireCallsByOperation) {
    const execution = executionsByOp.get(operationId);
    const attempts =
      execution === undefined ? 0 : (attemptsByExecution.get(execution.executionId) ?? []).length;
    if (calls > attempts) {
      report(
        HistoryInvariant.unclaimed_wire_call,
        { operation_id: operationId, wire_calls: calls, attempts },
        "more write requests reached the destination than attempts were claimed",
        calls - attempts,
      );
    }
  }

  return { violations, effectsByOperation, wireCallsByOperation, unattributedEffects };
}

/** Violations counted per invariant (every invariant present, zero when clean). */
export function countByInvariant(
  violations: readonly HistoryViolation[],
): Record<HistoryInvariant, number> {
  const out = Object.fromEntries(HISTORY_INVARIANTS.map((i) => [i, 0])) as Record<
    HistoryInvariant,
    number
  >;
  for (const v of violations) out[v.invariant] += v.count;
  return out;
}

/**
 * What a destination effect is, by the explanation rule (docs/engine.md "What explains a
 * destination effect"): EXPLAINED by a claimed attempt of the same adapter, at most one effect
 * per execution; otherwise the finding class the ledger must report it under.
 */
export const EffectClass = {
  EXPLAINED: "EXPLAINED",
  DUPLICATE: "DUPLICATE",
  CONTRADICTED: "CONTRADICTED",
  ORPHANED: "ORPHANED",
} as const;
export type EffectClass = (typeof EffectClass)[keyof typeof EffectClass];

/** Why an effect got its class. */
export const EffectReason = {
  /** The one effect of a claimed, not failed, execution. */
  claimed: "claimed",
  /** A further copy carrying the key of an execution that already has its effect. */
  extra_copy: "extra_copy",
  /** The effect of an execution settled FAILED. */
  failed_but_present: "failed_but_present",
  /** The effect of an earlier or later execution of an intent that already has its effect. */
  intent_excess: "intent_excess",
  /** Carries no key of any record of this adapter. */
  no_record: "no_record",
  /** Carries the key of a record that dispatches through another adapter. */
  other_adapter: "other_adapter",
  /** Carries the key of an execution the gate denied and that was never claimed. */
  denied: "denied",
  /** Carries the key of a cancelled execution that was never claimed. */
  cancelled: "cancelled",
  /** Carries the key of an execution that was never claimed. */
  never_dispatched: "never_dispatched",
} as const;
export type EffectReason = (typeof EffectReason)[keyof typeof EffectReason];

export interface EffectClassification {
  readonly destinationRef: string;
  readonly effectClass: EffectClass;
  readonly reason: EffectReason;
  /** The operation whose key (or receipt) the effect carries, if any. */
  readonly operationId: string | null;
}

/** Classes in the order they win when one effect qualifies for several. */
const CLASS_RANK: Readonly<Record<EffectClass, number>> = {
  ORPHANED: 0,
  CONTRADICTED: 1,
  DUPLICATE: 2,
  EXPLAINED: 3,
};

/** Why an unclaimed execution's key cannot explain an effect. */
function unclaimedReason(
  execution: LedgerExecutionFact,
  decisions: readonly LedgerDecisionFact[],
): EffectReason {
  if (execution.frontier === "CANCELLED") return EffectReason.cancelled;
  const denied = decisions.some(
    (d) => d.outcome === "DENY" && d.executionId === execution.executionId,
  );
  return denied ? EffectReason.denied : EffectReason.never_dispatched;
}

/**
 * Classifies every effect of one destination by the explanation rule: an effect is explained
 * only by a CLAIMED attempt (an attempt under an ALLOW decision) of an execution of the same
 * adapter, and each execution explains one effect (its receipt's, else its earliest); an
 * intent explains one effect (its committed execution's, else its earliest). Everything else:
 * no claimed attempt ⇒ ORPHANED; the effect of an execution settled FAILED ⇒ CONTRADICTED;
 * a further copy of an execution's or an intent's effect ⇒ DUPLICATE. In destination order.
 */
export function classifyDestinationEffects(
  ledger: LedgerHistory,
  destination: DestinationHistory,
): EffectClassification[] {
  const sameAdapter = ofDestinationAdapter(ledger, destination);
  const allExecutionsByOp = new Map(ledger.executions.map((x) => [x.operationId, x]));
  const decisions = new Map(ledger.decisions.map((d) => [d.decisionId, d]));
  const claimed = new Set(
    ledger.attempts
      .filter((a) => {
        const d = a.gateDecisionId === null ? undefined : decisions.get(a.gateDecisionId);
        return a.kind !== "c1_replay_probe" && d?.outcome === "ALLOW";
      })
      .map((a) => a.executionId),
  );
  const receiptRef = new Map<string, string>();
  const refToOperation = new Map<string, string>();
  for (const a of ledger.attempts) {
    const ref = a.receipt?.destinationRef;
    const x = allExecutionsByOp.get(a.operationId);
    if (!ref || x === undefined || !sameAdapter(x.effectId)) continue;
    refToOperation.set(ref, a.operationId);
    if (!receiptRef.has(a.operationId)) receiptRef.set(a.operationId, ref);
  }

  const out = new Map<string, EffectClassification>();
  const set = (c: EffectClassification): void => {
    const prior = out.get(c.destinationRef);
    if (prior === undefined || CLASS_RANK[c.effectClass] < CLASS_RANK[prior.effectClass])
      out.set(c.destinationRef, c);
  };
  const ordered = [...destination.effects].sort((a, b) => a.requestSeq - b.requestSeq);
  const byExecution = new Map<number, DestinationEffectFact[]>();
  for (const e of ordered) {
    const keyed = e.idempotencyKey ?? e.clientRef;
    const byKey = keyed === null ? undefined : allExecutionsByOp.get(keyed);
    const byRef = refToOperation.get(e.destinationRef);
    const execution =
      byKey !== undefined && sameAdapter(byKey.effectId)
        ? byKey
        : byRef === undefined
          ? undefined
          : allExecutionsByOp.get(byRef);
    const base = { destinationRef: e.destinationRef, effectClass: EffectClass.ORPHANED };
    if (execution === undefined) {
      const reason = byKey === undefined ? EffectReason.no_record : EffectReason.other_adapter;
      set({ ...base, reason, operationId: byKey?.operationId ?? null });
      continue;
    }
    if (!claimed.has(execution.executionId)) {
      const reason = unclaimedReason(execution, ledger.decisions);
      set({ ...base, reason, operationId: execution.operationId });
      continue;
    }
    const list = byExecution.get(execution.executionId) ?? [];
    list.push(e);
    byExecution.set(execution.executionId, list);
  }

  // One effect per execution: its receipt's, else its earliest.
  const ownByEffect = new Map<string, { execution: LedgerExecutionFact; ref: string }[]>();
  for (const x of ledger.executions) {
    const effects = byExecution.get(x.executionId);
    if (effects === undefined) continue;
    const known = receiptRef.get(x.operationId);
    const own = effects.find((e) => e.destinationRef === known) ?? effects[0];
    if (own === undefined) continue;
    for (const e of effects) {
      if (e === own) continue;
      set({
        destinationRef: e.destinationRef,
        effectClass: EffectClass.DUPLICATE,
        reason: EffectReason.extra_copy,
        operationId: x.operationId,
      });
    }
    const failed = x.frontier === "SETTLED_FAILED";
    set({
      destinationRef: own.destinationRef,
      effectClass: failed ? EffectClass.CONTRADICTED : EffectClass.EXPLAINED,
      reason: failed ? EffectReason.failed_but_present : EffectReason.claimed,
      operationId: x.operationId,
    });
    const owns = ownByEffect.get(x.effectId) ?? [];
    owns.push({ execution: x, ref: own.destinationRef });
    ownByEffect.set(x.effectId, owns);
  }

  // One effect per intent: its committed execution's, else its earliest.
  for (const owns of ownByEffect.values()) {
    const committed = owns.filter((o) => o.execution.frontier === "SETTLED_COMMITTED");
    const keep = committed[committed.length - 1] ?? owns[0];
    for (const o of owns) {
      if (o === keep) continue;
      set({
        destinationRef: o.ref,
        effectClass: EffectClass.DUPLICATE,
        reason: EffectReason.intent_excess,
        operationId: o.execution.operationId,
      });
    }
  }
  return ordered.flatMap((e) => {
    const c = out.get(e.destinationRef);
    return c === undefined ? [] : [c];
  });
}
