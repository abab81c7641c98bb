/**
 * engine/reconciler — leaving AMBIGUOUS by asking the destination (§6, D3, D7). One call
 * does at most one step and returns at once; every schedule (re-read, lag, backoff) is
 * stored in the probe's evidence, so a later call — any process — knows what is due and
 * nothing ever sleeps.
 *   - settled ⇒ no query. An open attempt with a live owner ⇒ in flight, no query. One
 *     whose owner's lease is gone ⇒ closed as LOST first (D8).
 *   - C3 ⇒ park and escalate, never query. C1 inside its idempotency window ⇒ replay probe
 *     (same key); unresolved or outside the window ⇒ status query.
 *   - no covering key ⇒ park and escalate.
 *   - PRESENT ⇒ COMMITTED + CONFIRMED_UNIQUE (n=1) or DUPLICATE (n>1).
 *   - THE ABSENCE RULE. An ABSENT read counts only once the declared status lag (PT0S and
 *     undeclared count as 0) has elapsed since the latest instant the destination could still
 *     have committed any attempt of the execution: the end of the wire call, or the call's
 *     deadline when that is later (a dropped connection or a 5xx does not end the server's
 *     work), or the writer's lease expiry for a call that outlived its deadline unsettled.
 *     While this process (or a live writer) still has an unsettled call for the attempt, the
 *     execution is in flight: nothing is probed, nothing concluded. The instant is read from
 *     the ledger (receipt `commit_horizon_at`, recorded_at, late responses: reconcile-absence),
 *     so every process applies the same rule; each ABSENT probe records `absence_clock_from`
 *     and `counts_from`. The first counted ABSENT schedules a re-read (`reread_not_before`,
 *     default gap 60 s; 0 re-reads at once); a second ABSENT by the same key once that is due,
 *     with the first read also counted, ⇒ SETTLED_FAILED + LOST (escalated to a human when no
 *     lag is declared). Details and defaults: docs/engine.md, "The absence rule".
 *   - INDETERMINATE ⇒ park with exponential backoff (`next_due_at`); after
 *     `escalationBudget` in a row ⇒ escalated to a human.
 * Statements: what a step decides on is read in ONE statement (ledger/reconcile-inputs; recovery
 * passes it in, read for a whole page); after an ABSENT answer the database time, horizons and
 * probes are read again in one statement (after an INDETERMINATE answer only the time; after a
 * PRESENT one not even that: the settle statement stamps the probe with the database clock,
 * 0060); a probe that settles is written with the exit and the finding in one statement
 * (settleWithProbe). With crash points armed the settling probe is written on its own first,
 * so the seams between the probe and the settle (reconcile.pre_settle) stay reachable.
 * Recovery may hand in a probe channel (engine/status-batcher): the status query then goes out
 * in a batch with other effects' keys when the adapter offers batch lookups; the answer is
 * still this probe's own, judged and recorded exactly as a single query's (plus `batch_size`).
 * Imports: core, db, ledger, adapters, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { LifecycleState } from "../core/state-tables.js";
import { latestDestinationRef, latestExecution } from "../ledger/read-records.js";
import { readOneReconcileInputs, type ReconcileInputs } from "../ledger/reconcile-inputs.js";
import { recordProbe, type ProbeInput, type ProbeRow } from "../ledger/record-probe.js";
import { listFindings } from "../ledger/resolve-finding.js";
import { closeIfAbandoned } from "./abandoned-attempts.js";
import { callStatusQuery } from "./call-adapter.js";
import type { EngineContext } from "./context.js";
import { emit } from "./context.js";
import { askedAtMs, clockOffsetMs, engineNowMs, engineTimeOf, startWire } from "./engine-time.js";
import { absenceClock } from "./reconcile-absence.js";
import { strongestKey, sameKeys, type ChosenKey } from "./reconcile-keys.js";
import {
  escalateExecution,
  LOST_RACE,
  settleAbsent,
  settlePresent,
  type SettleCitation,
} from "./reconcile-settle.js";
import { replayProbe } from "./replay-probe.js";
import type { ReconcileOutcome, ReconcileStep as Step } from "./reconcile-types.js";
import type { ChannelAnswer, ProbeChannel } from "./status-batcher.js";

const OPEN: readonly LifecycleState[] = ["DISPATCHED", "AMBIGUOUS"];

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function evidenceTime(probe: ProbeRow | undefined, field: string): number | null {
  const v = probe?.evidence[field];
  return typeof v === "string" ? Date.parse(v) : null;
}

async function settledView(ctx: EngineContext, effectId: string): Promise<ReconcileOutcome> {
  const latest = await latestExecution(ctx.db, effectId);
  return {
    status: "settled",
    effectId,
    lifecycle: latest?.frontier ?? "INTENDED",
    findings: await listFindings(ctx.db, effectId),
  };
}

function trailingIndeterminate(probes: readonly ProbeRow[]): number {
  let n = 0;
  for (let i = probes.length - 1; i >= 0 && probes[i]?.result === "INDETERMINATE"; i -= 1) n += 1;
  return n;
}

/**
 * How a settling probe is cited: written with the settle in one statement, or — with crash
 * points armed — recorded first, then the seam, then the settle.
 */
async function settlingCitation(
  step: Step,
  probe: ProbeInput,
  priorProbeIds: readonly number[],
  pauseAfterProbe: boolean,
): Promise<SettleCitation> {
  const { ctx } = step;
  if (!ctx.crash.armed) return { probe, priorProbeIds };
  const probeId = await recordProbe(ctx.db, probe);
  if (pauseAfterProbe) await ctx.crash.hit("reconcile.pre_settle");
  return { probeIds: [...priorProbeIds, probeId] };
}

/** A probe just recorded, as the next read would return it. */
function asRecorded(probeId: number, probe: ProbeInput): ProbeRow {
  return {
    probeId,
    executionId: probe.executionId,
    probeKind: probe.probeKind,
    queryKeys: probe.queryKeys,
    result: probe.result,
    nFound: probe.result === "INDETERMINATE" ? null : probe.nFound,
    destinationRefs: probe.destinationRefs,
    queriedAt: probe.queriedAt,
    evidence: probe.evidence,
  };
}

/**
 * One status probe and what follows from it. `previous` is the latest earlier probe.
 * `judgedAtMs` is the time the caller already judged this probe due at: the probe's own time,
 * read after the status call, is never taken as earlier than that (time does not run
 * backwards; two readings of the test offset around a database read can, by the read's
 * latency), so a re-read judged due is counted as the due re-read it is. The zero-gap re-read
 * passes the first read's time, so it is due exactly.
 */
async function probeOnce(
  step: Step,
  key: ChosenKey,
  probes: readonly ProbeRow[],
  pauseAfterProbe: boolean,
  judgedAtMs: number,
): Promise<ReconcileOutcome> {
  const { ctx, record, execution, entry } = step;
  const effectId = record.effectId;
  const previous = probes[probes.length - 1];
  const asked = startWire(ctx);
  const answer: ChannelAnswer =
    step.channel === undefined
      ? await callStatusQuery(entry.adapter, key.key, ctx.config.probeDeadlineMs)
      : await step.channel.status(entry, key.key);
  // Database time (plus a test offset), like the claimed_at it is compared with (engine-time).
  // After an ABSENT answer the absence rule's facts are read with it, in the same statement.
  const fresh = answer.result === "ABSENT" ? await readOneReconcileInputs(ctx.db, effectId) : null;
  if (fresh !== null && fresh.latest?.executionId !== execution.executionId)
    return settledView(ctx, effectId); // settled, and a later execution opened meanwhile
  // An ABSENT or INDETERMINATE answer is dated when the destination was asked (engine-time
  // `askedAtMs`): the absence rule counts a read only if it was made past `counts_from`, and the
  // destination may have read its state at any moment of the call. A PRESENT one is dated when
  // it arrived (the effect existed by then).
  const readNowMs = async (): Promise<number> => {
    const arrivedMs = fresh === null ? await engineNowMs(ctx) : engineTimeOf(ctx, fresh.dbNowMs);
    return Math.max(
      answer.result === "PRESENT" ? arrivedMs : askedAtMs(ctx, asked, arrivedMs),
      judgedAtMs,
    );
  };
  const untimed = {
    executionId: execution.executionId,
    adapterId: record.adapterId,
    declarationDigest: entry.declarationDigest,
    probeKind: "reconcile_open" as const,
    queryKeys: [key.stored],
    result: answer.result,
    nFound: answer.nFound,
    destinationRefs: answer.destinationRefs,
    ...(answer.responseDigest === undefined ? {} : { responseDigest: answer.responseDigest }),
  };
  const common = {
    mode: step.mode,
    key_strength: key.strength,
    adapter_evidence: answer.evidence,
    // The answer came in one statusQueryBatch call with this many keys (its own among them).
    ...(answer.batchSize === undefined ? {} : { batch_size: answer.batchSize }),
  };

  if (answer.result === "PRESENT") {
    // Nothing is decided on a present probe's time: the settle statement reads the database
    // clock itself (0060), unless the probe is written on its own first (crash points armed).
    const cite: SettleCitation = ctx.crash.armed
      ? await settlingCitation(
          step,
          { ...untimed, queriedAt: iso(await readNowMs()), evidence: common },
          [],
          pauseAfterProbe,
        )
      : {
          probe: {
            ...untimed,
            queriedAt: { offsetMs: clockOffsetMs(ctx.clock), notBeforeMs: judgedAtMs },
            evidence: common,
          },
          priorProbeIds: [],
        };
    const settled = await settlePresent(ctx, {
      record,
      executionId: execution.executionId,
      cite,
      nFound: answer.nFound ?? 1,
      destinationRefs: answer.destinationRefs,
      actor: step.actor,
    });
    if (settled === LOST_RACE) return settledView(ctx, effectId);
    return {
      status: "committed",
      effectId,
      classification: settled.classification,
      cause: "reconciled_present",
      probeIds: settled.probeIds,
      findingId: settled.findingId,
    };
  }
  const nowMs = await readNowMs();
  const base = { ...untimed, queriedAt: iso(nowMs) };
  if (answer.result === "INDETERMINATE") {
    const k = trailingIndeterminate(probes) + 1;
    const delaySeconds = Math.min(
      ctx.config.backoffBaseSeconds * 2 ** (k - 1),
      ctx.config.backoffMaxSeconds,
    );
    const nextDueAt = iso(nowMs + delaySeconds * 1000);
    const probeId = await recordProbe(ctx.db, {
      ...base,
      evidence: { ...common, consecutive_indeterminate: k, next_due_at: nextDueAt },
    });
    let escalated = false;
    if (k >= ctx.config.escalationBudget) {
      escalated = await escalateExecution(ctx, {
        effectId,
        executionId: execution.executionId,
        reason: "indeterminate_budget",
        evidence: { consecutive_indeterminate: k, probe_id: probeId },
        actor: step.actor,
      });
    }
    emit(ctx, "ambiguous_parked", "info", {
      effect_id: effectId,
      reason: "indeterminate",
      next_due_at: nextDueAt,
    });
    return { status: "parked", effectId, reason: "indeterminate", nextDueAt, escalated, probeId };
  }

  // ABSENT. It counts only once the declared lag has elapsed since the latest instant the
  // destination could still have committed any attempt (the absence rule, reconcile-absence).
  const clock = absenceClock(step, fresh?.horizons ?? []);
  if (clock.kind === "unsettled") {
    await recordProbe(ctx.db, {
      ...base,
      evidence: { ...common, absence_not_counted: "call_unsettled" },
    });
    return { status: "in_flight", effectId, attemptId: clock.attemptId };
  }
  const lagMs = (entry.statusLagSeconds ?? 0) * 1000;
  const countsFromMs = clock.fromMs + lagMs;
  const absenceEvidence = {
    absence_clock_from: iso(clock.fromMs),
    absence_clock_attempt_id: clock.attemptId,
    lag_seconds: entry.statusLagSeconds,
    counts_from: iso(countsFromMs),
  };
  if (nowMs < countsFromMs) {
    const notBefore = iso(countsFromMs);
    const probeId = await recordProbe(ctx.db, {
      ...base,
      evidence: { ...common, ...absenceEvidence, lag_not_elapsed: true, lag_not_before: notBefore },
    });
    return { status: "awaiting_lag", effectId, probeId, notBefore };
  }
  const rereadDue = evidenceTime(previous, "reread_not_before");
  const isSecond =
    previous !== undefined &&
    previous.result === "ABSENT" &&
    rereadDue !== null &&
    rereadDue <= nowMs &&
    // The first read must itself have counted under today's clock (a later attempt — a replay
    // probe, a late response — may have moved the horizon past it).
    Date.parse(previous.queriedAt) >= countsFromMs &&
    previous.evidence["lag_not_elapsed"] !== true &&
    sameKeys(previous.queryKeys, [key.stored]);
  if (isSecond) {
    const cite = await settlingCitation(
      step,
      { ...base, evidence: { ...common, ...absenceEvidence, confirms_probe_id: previous.probeId } },
      [previous.probeId],
      false,
    );
    const settled = await settleAbsent(ctx, {
      record,
      executionId: execution.executionId,
      cite,
      lagDeclared: entry.statusLagSeconds !== null,
      actor: step.actor,
    });
    if (settled === LOST_RACE) return settledView(ctx, effectId);
    return {
      status: "failed",
      effectId,
      cause: "reconciled_absent",
      probeIds: settled.probeIds,
      findingId: settled.findingId,
      escalated: settled.escalated,
    };
  }
  const rereadNotBefore = iso(nowMs + ctx.config.rereadGapSeconds * 1000);
  const first: ProbeInput = {
    ...base,
    evidence: { ...common, ...absenceEvidence, reread_not_before: rereadNotBefore },
  };
  const probeId = await recordProbe(ctx.db, first);
  if (pauseAfterProbe) await ctx.crash.hit("reconcile.pre_settle");
  if (ctx.config.rereadGapSeconds === 0) {
    // A zero gap is due at once: take the second read now instead of waiting for a cycle. The
    // probes read with this answer's facts, and this one, are the list a re-read would return.
    return probeOnce(
      step,
      key,
      [...(fresh?.probes ?? []), asRecorded(probeId, first)],
      false,
      nowMs,
    );
  }
  emit(ctx, "ambiguous_parked", "info", {
    effect_id: effectId,
    reason: "reread_scheduled",
    reread_not_before: rereadNotBefore,
  });
  return { status: "reread_scheduled", effectId, probeId, rereadNotBefore };
}

async function park(
  step: Step,
  reason: "no_covering_key" | "opaque_destination",
  evidence: Record<string, unknown>,
): Promise<ReconcileOutcome> {
  const escalated = await escalateExecution(step.ctx, {
    effectId: step.record.effectId,
    executionId: step.execution.executionId,
    reason,
    evidence,
    actor: step.actor,
  });
  emit(step.ctx, "ambiguous_parked", "info", { effect_id: step.record.effectId, reason });
  return {
    status: "parked",
    effectId: step.record.effectId,
    reason,
    nextDueAt: null,
    escalated,
    probeId: null,
  };
}

/**
 * Reconciles the latest execution of `effectId` by one step (see the file header). `prefetched`
 * is the effect's inputs when the caller read them already (recovery reads a page at once);
 * without it they are read here, in one statement. `channel` is the recovery run's shared wire
 * (batched status queries, a bound per destination); without it every call is its own.
 */
export async function reconcileEffect(
  ctx: EngineContext,
  effectId: string,
  mode: "online" | "recovery" = "online",
  prefetched?: ReconcileInputs,
  channel?: ProbeChannel,
): Promise<ReconcileOutcome> {
  let inputs = prefetched ?? (await readOneReconcileInputs(ctx.db, effectId));
  const record = inputs.record;
  if (record === null)
    throw new IrrevonError(ErrorCode.not_found, "no effect record with this id", {
      details: { effect_id: effectId },
    });
  const latest = inputs.latest;
  if (latest === null)
    throw new IrrevonError(ErrorCode.illegal_state, "effect record has no execution", {
      details: { effect_id: effectId },
    });
  if (!OPEN.includes(latest.frontier)) return settledView(ctx, effectId);

  for (const attempt of inputs.openAttempts) {
    const closed = await closeIfAbandoned(ctx, attempt);
    if (!closed.closed && closed.reason === "owner_live")
      return { status: "in_flight", effectId, attemptId: attempt.attemptId };
  }
  // Closing (or finding closed) an open attempt changed the facts: read them again.
  if (inputs.openAttempts.length > 0) inputs = await readOneReconcileInputs(ctx.db, effectId);
  const execution = inputs.latest;
  if (
    execution === null ||
    execution.executionId !== latest.executionId ||
    execution.frontier !== "AMBIGUOUS"
  )
    return settledView(ctx, effectId);

  const entry = ctx.adapters.require(record.adapterId);
  const step: Step = {
    ctx,
    record,
    execution,
    entry,
    actor: mode === "recovery" ? "recovery" : "reconciler",
    mode,
    ...(channel === undefined ? {} : { channel }),
  };
  if (entry.declaration.tier === "C3") {
    // The information was never emitted: no query can prove anything (§1, C3).
    return park(step, "opaque_destination", { tier: "C3", adapter_id: record.adapterId });
  }

  // Never conclude anything while this process's own call for the attempt has not settled.
  const clock = absenceClock(step, inputs.horizons);
  if (clock.kind === "unsettled")
    return { status: "in_flight", effectId, attemptId: clock.attemptId };

  // The database time read with the inputs (a page's read errs early: nothing is due sooner).
  const nowMs = engineTimeOf(ctx, inputs.dbNowMs);
  const probes = inputs.probes;
  const last = probes[probes.length - 1];
  const backoffDue = last?.result === "INDETERMINATE" ? evidenceTime(last, "next_due_at") : null;
  if (backoffDue !== null && backoffDue > nowMs) {
    return {
      status: "parked",
      effectId,
      reason: "backoff",
      nextDueAt: iso(backoffDue),
      escalated: false,
      probeId: last?.probeId ?? null,
    };
  }
  const lagDue = last?.result === "ABSENT" ? evidenceTime(last, "lag_not_before") : null;
  if (lagDue !== null && lagDue > nowMs)
    return { status: "awaiting_lag", effectId, probeId: null, notBefore: iso(lagDue) };
  const rereadDue = last?.result === "ABSENT" ? evidenceTime(last, "reread_not_before") : null;
  if (last !== undefined && rereadDue !== null && rereadDue > nowMs) {
    return {
      status: "reread_scheduled",
      effectId,
      probeId: last.probeId,
      rereadNotBefore: iso(rereadDue),
    };
  }

  let destinationRef = inputs.destinationRef;
  const window = entry.idempotencyWindowSeconds;
  if (window !== null) {
    // Attempts are in attempt order: the first is the execution's first claim.
    const first = inputs.horizons[0];
    const firstClaimMs = first === undefined ? 0 : Date.parse(first.claimedAt);
    if (nowMs - firstClaimMs <= window * 1000) {
      const replay =
        channel === undefined
          ? await replayProbe(step)
          : await channel.replay(entry, () => replayProbe(step));
      if (replay !== null) return replay;
      // The replay may have left a receipt (and a destination ref) of its own.
      destinationRef = await latestDestinationRef(ctx.db, execution.executionId);
    }
  }

  const key = strongestKey(
    entry.declaration,
    execution.operationId,
    destinationRef,
    record.stableIds,
  );
  if (key === null) {
    return park(step, "no_covering_key", {
      queryable_by: entry.declaration.queryable.by,
      client_ref_field: entry.declaration.client_ref_field,
    });
  }
  return probeOnce(step, key, probes, true, nowMs);
}
