/**
 * engine/audit-settled — re-asks the destination about a SETTLED record (§6 audit_effect),
 * every claimed settled execution of it, not only the latest step: a late effect of an
 * earlier step (lost, proven absent, re-dispatched as a later step, then surfacing after
 * all) is a second order of the same intent. One `audit` probe per claimed settled execution,
 * by that execution's strongest key. Then, by the explanation rule (docs/engine.md "What
 * explains a destination effect": each claimed execution explains one effect, each intent
 * one effect):
 *   - an execution settled FAILED whose key is present ⇒ CONTRADICTED (failed_but_present),
 *     once per execution (a later audit returns the open finding instead of writing another);
 *   - an execution settled COMMITTED but absent once the declared lag has passed ⇒
 *     CONTRADICTED (committed_then_vanished); an absence on a destination without a declared
 *     lag proves nothing and writes no finding;
 *   - more effects than one for the intent (copies under one key, or effects of several
 *     steps) ⇒ DUPLICATE naming the excess refs (`excess_refs`) no DUPLICATE named before.
 * The effect an execution explains is the one its own receipt or late response reported,
 * else the first the destination lists; the intent keeps its committed step's effect.
 * C3 or non-queryable ⇒ capability_unsupported. Imports: core, db, ledger, adapters, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { attachFinding } from "../ledger/attach-finding.js";
import { readAuditedExecutions, readCallsEndedByMs } from "../ledger/audit-reads.js";
import { latestDestinationRef, listExecutions, requireRecord } from "../ledger/read-records.js";
import { recordProbe } from "../ledger/record-probe.js";
import { listFindings, type FindingState } from "../ledger/resolve-finding.js";
import type { ExecutionFrontier } from "../ledger/types.js";
import type { AdapterEntry } from "./adapter-registry.js";
import { callStatusQuery, type ProbeAnswer } from "./call-adapter.js";
import { emit, type EngineContext } from "./context.js";
import { askedAtMs, engineNowMs, startWire } from "./engine-time.js";
import { strongestKey, type ChosenKey } from "./reconcile-keys.js";

/** What one audit found: nothing new, nothing provable, or a finding. */
export type AuditOutcome =
  | { readonly status: "consistent"; readonly probeId: number }
  | {
      readonly status: "inconclusive";
      readonly probeId: number;
      readonly reason: "indeterminate" | "lag_not_elapsed" | "lag_unbounded";
    }
  | {
      readonly status: "finding";
      readonly probeId: number;
      readonly findingId: number;
      readonly classification: "DUPLICATE" | "CONTRADICTED";
      readonly direction?: string;
      /** The finding was already open from an earlier audit; nothing new was written. */
      readonly alreadyReported?: true;
    };

type Finding = Extract<AuditOutcome, { status: "finding" }>;

interface Probed {
  readonly execution: ExecutionFrontier;
  readonly probeId: number;
  readonly answer: ProbeAnswer;
  /** The effect this execution explains (null when absent or unnamed). */
  readonly ownRef: string | null;
  /** When the destination was asked (engine time, epoch ms): the probe's `queried_at`. */
  readonly askedAtMs: number;
}

const isSettled = (x: ExecutionFrontier): boolean =>
  x.frontier === "SETTLED_COMMITTED" || x.frontier === "SETTLED_FAILED";

function noKey(effectId: string, entry: AdapterEntry): IrrevonError {
  return new IrrevonError(
    ErrorCode.capability_unsupported,
    "the destination cannot be queried for this effect",
    { details: { effect_id: effectId, tier: entry.declaration.tier } },
  );
}

function stringsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** Audits every claimed settled execution of a settled record (see the file header). */
export async function auditSettledEffect(
  ctx: EngineContext,
  effectId: string,
): Promise<AuditOutcome> {
  const record = await requireRecord(ctx.db, effectId);
  const entry = ctx.adapters.require(record.adapterId);
  const executions = await listExecutions(ctx.db, effectId);
  const latest = executions[executions.length - 1];
  if (latest === undefined || !isSettled(latest)) {
    throw new IrrevonError(ErrorCode.illegal_state, "only a settled execution can be audited", {
      details: { effect_id: effectId, frontier: latest?.frontier ?? null },
    });
  }
  if (entry.declaration.tier === "C3") throw noKey(effectId, entry);
  const meta = await readAuditedExecutions(ctx.db, effectId, record.adapterId);
  // Every key first: a latest step the destination cannot be asked about refuses the audit
  // before anything is sent.
  const targets: { execution: ExecutionFrontier; key: ChosenKey }[] = [];
  for (const x of executions) {
    if (!isSettled(x) || (x !== latest && meta.get(x.executionId)?.claimed !== true)) continue;
    const key = strongestKey(
      entry.declaration,
      x.operationId,
      await latestDestinationRef(ctx.db, x.executionId),
      record.stableIds,
    );
    if (key === null) {
      if (x === latest) throw noKey(effectId, entry);
      continue;
    }
    targets.push({ execution: x, key });
  }

  const probed: Probed[] = [];
  for (const { execution, key } of targets) {
    const asked = startWire(ctx);
    const answer = await callStatusQuery(entry.adapter, key.key, ctx.config.probeDeadlineMs);
    // Database time (plus a test offset), like the times the lag is measured from. An absence
    // is dated when the destination was asked (engine-time `askedAtMs`): it may have read its
    // state at any moment of the call. A presence is dated when it arrived: the effect existed
    // by then, and no earlier instant is certain.
    const arrivedMs = await engineNowMs(ctx);
    const nowMs = answer.result === "PRESENT" ? arrivedMs : askedAtMs(ctx, asked, arrivedMs);
    const probeId = await recordProbe(ctx.db, {
      executionId: execution.executionId,
      adapterId: record.adapterId,
      declarationDigest: entry.declarationDigest,
      probeKind: "audit",
      queryKeys: [key.stored],
      result: answer.result,
      nFound: answer.nFound,
      destinationRefs: answer.destinationRefs,
      ...(answer.responseDigest === undefined ? {} : { responseDigest: answer.responseDigest }),
      queriedAt: new Date(nowMs).toISOString(),
      evidence: { key_strength: key.strength, adapter_evidence: answer.evidence },
    });
    const reported = meta.get(execution.executionId)?.reportedRefs ?? [];
    const ownRef =
      answer.result !== "PRESENT"
        ? null
        : (reported.find((r) => answer.destinationRefs.includes(r)) ??
          answer.destinationRefs[0] ??
          null);
    probed.push({ execution, probeId, answer, ownRef, askedAtMs: nowMs });
  }
  const onLatest = probed.find((p) => p.execution === latest);
  if (onLatest === undefined) throw noKey(effectId, entry);

  const findings = await listFindings(ctx.db, effectId);
  const contradicted: Finding[] = [];
  let vanished: AuditOutcome | null = null;
  for (const p of probed) {
    if (p.execution.frontier === "SETTLED_FAILED" && p.answer.result === "PRESENT") {
      contradicted.push(await failedButPresent(ctx, effectId, record.adapterId, p, findings));
    } else if (p.execution.frontier === "SETTLED_COMMITTED" && p.answer.result === "ABSENT") {
      const v = await committedThenVanished(ctx, effectId, record.adapterId, p, entry);
      if (p === onLatest || v.status === "finding") vanished = v;
    }
  }
  const duplicate = await excessEffects(ctx, effectId, record.adapterId, probed, latest, findings);

  // The most telling answer: a contradiction of a step, then a duplicate, then the latest step.
  const latestContradiction = contradicted.find((c) => c.probeId === onLatest.probeId);
  if (latestContradiction !== undefined) return latestContradiction;
  if (vanished?.status === "finding") return vanished;
  if (duplicate !== null) return duplicate;
  const earlier = contradicted[0];
  if (earlier !== undefined) return earlier;
  if (vanished !== null) return vanished;
  if (onLatest.answer.result === "INDETERMINATE")
    return { status: "inconclusive", probeId: onLatest.probeId, reason: "indeterminate" };
  return { status: "consistent", probeId: onLatest.probeId };
}

async function failedButPresent(
  ctx: EngineContext,
  effectId: string,
  adapterId: string,
  p: Probed,
  findings: readonly FindingState[],
): Promise<Finding> {
  const open = findings.find(
    (f) =>
      f.classification === "CONTRADICTED" &&
      f.evidence["direction"] === "failed_but_present" &&
      f.evidence["execution_id"] === p.execution.executionId,
  );
  const outcome = {
    status: "finding",
    probeId: p.probeId,
    classification: "CONTRADICTED",
    direction: "failed_but_present",
  } as const;
  if (open !== undefined) return { ...outcome, findingId: open.findingId, alreadyReported: true };
  const findingId = await attachFinding(ctx.db, {
    effectId,
    adapterId,
    destinationRef: p.ownRef,
    classification: "CONTRADICTED",
    evidence: {
      execution_id: p.execution.executionId,
      operation_id: p.execution.operationId,
      probe_ids: [p.probeId],
      n_found: p.answer.nFound,
      destination_refs: p.answer.destinationRefs,
      direction: "failed_but_present",
    },
    createdBy: "reconciler",
  });
  emit(ctx, "finding_created", "warn", {
    effect_id: effectId,
    classification: "CONTRADICTED",
    finding_id: findingId,
  });
  return { ...outcome, findingId };
}

async function committedThenVanished(
  ctx: EngineContext,
  effectId: string,
  adapterId: string,
  p: Probed,
  entry: AdapterEntry,
): Promise<AuditOutcome> {
  // ABSENT after a commit: only meaningful once the destination's reads have caught up.
  if (entry.statusLagSeconds === null)
    return { status: "inconclusive", probeId: p.probeId, reason: "lag_unbounded" };
  // Counted from when the calls ended (the commit happened by then), not from the claim: a
  // call that ran long committed late, and reads may still lag behind it.
  const endedByMs = await readCallsEndedByMs(ctx.db, p.execution.executionId);
  if (
    endedByMs !== null &&
    entry.statusLagSeconds > 0 &&
    p.askedAtMs - endedByMs < entry.statusLagSeconds * 1000
  ) {
    return { status: "inconclusive", probeId: p.probeId, reason: "lag_not_elapsed" };
  }
  const findingId = await attachFinding(ctx.db, {
    effectId,
    adapterId,
    destinationRef: null,
    classification: "CONTRADICTED",
    evidence: {
      execution_id: p.execution.executionId,
      probe_ids: [p.probeId],
      settle_execution_id: p.execution.executionId,
      direction: "committed_then_vanished",
    },
    createdBy: "reconciler",
  });
  emit(ctx, "finding_created", "warn", {
    effect_id: effectId,
    classification: "CONTRADICTED",
    finding_id: findingId,
  });
  return {
    status: "finding",
    probeId: p.probeId,
    findingId,
    classification: "CONTRADICTED",
    direction: "committed_then_vanished",
  };
}

/**
 * One effect per intent: the committed step's own effect (else the first step's) is kept;
 * every other effect found under any step's key is excess. Writes a DUPLICATE when some
 * excess ref is named by no earlier DUPLICATE (or, without refs, when none exists yet).
 */
async function excessEffects(
  ctx: EngineContext,
  effectId: string,
  adapterId: string,
  probed: readonly Probed[],
  latest: ExecutionFrontier,
  findings: readonly FindingState[],
): Promise<Finding | null> {
  const present = probed.filter((p) => p.answer.result === "PRESENT");
  const total = present.reduce((n, p) => n + Math.max(1, p.answer.nFound ?? 1), 0);
  if (total <= 1) return null;
  const committed = present.filter((p) => p.execution.frontier === "SETTLED_COMMITTED");
  const keep = (committed[committed.length - 1] ?? present[0])?.ownRef ?? null;
  const allRefs = [...new Set(present.flatMap((p) => p.answer.destinationRefs))];
  const excess = allRefs.filter((r) => r !== keep);
  const earlier = findings.filter((f) => f.classification === "DUPLICATE");
  const named = new Set(
    earlier.flatMap((f) =>
      "excess_refs" in f.evidence
        ? stringsOf(f.evidence["excess_refs"])
        : stringsOf(f.evidence["destination_refs"]),
    ),
  );
  const unnamed = excess.filter((r) => !named.has(r));
  if (earlier.length > 0 && unnamed.length === 0) return null;
  const onLatest = present.find((p) => p.execution === latest) ?? present[present.length - 1];
  const probeIds = probed.map((p) => p.probeId);
  const findingId = await attachFinding(ctx.db, {
    effectId,
    adapterId,
    destinationRef: unnamed[0] ?? allRefs[0] ?? null,
    classification: "DUPLICATE",
    excessEffectCount: total - 1,
    evidence: {
      execution_id: latest.executionId,
      probe_ids: probeIds,
      n_found: onLatest?.answer.nFound ?? null,
      destination_refs: allRefs,
      excess_refs: unnamed,
      kept_ref: keep,
      audit: true,
    },
    createdBy: "reconciler",
  });
  emit(ctx, "finding_created", "warn", {
    effect_id: effectId,
    classification: "DUPLICATE",
    finding_id: findingId,
  });
  return {
    status: "finding",
    probeId: onLatest?.probeId ?? probeIds[0] ?? 0,
    findingId,
    classification: "DUPLICATE",
  };
}
