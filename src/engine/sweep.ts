/**
 * engine/sweep — the orphan sweep (§7, I10): list one adapter's destination effects in a
 * window (every page), match each to a ledger record (sweep-match: client ref — also the
 * in-flight guard —, destination ref, declared stable-id projections), record the run and its
 * sightings in one transaction, then apply the orphan rule (sweep-orphans). The sweep never
 * creates an effect record and never calls a destination write. An adapter whose declaration
 * says it cannot list (`list_queryable: false`, e.g. every C3) is refused with
 * `capability_unsupported`; a failed listing records nothing. Crash seam: sweep.pre_finding
 * (after the run is recorded, before any orphan is written).
 * Only a claimed attempt of this adapter explains an effect (docs/engine.md "What explains a
 * destination effect"); an effect that matches a claimed execution but that the ledger has
 * never seen for its record (a second copy, a late effect of a step settled FAILED) has its
 * record audited at once, when the record is settled, so the DUPLICATE or CONTRADICTED is
 * written now rather than never. Imports: core, db, ledger, adapters, engine.
 */
import type { ListedEffect } from "../adapters/contract.js";
import { canonicalDigest } from "../core/canonical.js";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { isRfc3339 } from "../core/rfc3339.js";
import { latestExecution } from "../ledger/read-records.js";
import { matchListedEffects, unknownMatchedRefs, type SweepMatch } from "../ledger/sweep-match.js";
import { recordSweepRun, sweepHighWaterMark } from "../ledger/sweep-record.js";
import { auditSettledEffect } from "./audit-settled.js";
import { emit, type EngineContext } from "./context.js";
import { engineNowMs } from "./engine-time.js";
import { emitOrphans, type UnmatchedListing } from "./sweep-orphans.js";
import { resolveSweepWindow, type ResolvedSweepWindow, type SweepWindow } from "./sweep-window.js";

/** What one sweep run saw and did. */
export interface SweepReport {
  readonly runId: number;
  readonly adapterId: string;
  readonly window: ResolvedSweepWindow;
  readonly pages: number;
  /** The page bound (`sweepMaxPages`) was hit; the rest of the window was not listed. */
  readonly truncated: boolean;
  readonly listed: number;
  readonly matched: number;
  readonly unmatched: number;
  /** ORPHANED findings written by this run. */
  readonly orphansCreated: readonly number[];
  /** Unmatched effects that already have an ORPHANED finding. */
  readonly alreadyKnown: number;
  /** Unmatched effects still waiting for another run or the grace period. */
  readonly pending: number;
  /** Unmatched at listing, matched when re-checked at emission. */
  readonly rematched: number;
  /** Destination-time high-water mark after this run. */
  readonly destinationNow: string | null;
  /** Records audited because a matched effect was new to them (see the file header). */
  readonly audited: readonly string[];
  /** DUPLICATE / CONTRADICTED findings those audits wrote. */
  readonly auditFindings: readonly number[];
}

function isListed(v: unknown): v is ListedEffect {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return (
    typeof e["destinationRef"] === "string" &&
    e["destinationRef"] !== "" &&
    typeof e["effectType"] === "string" &&
    (e["clientRef"] === null || typeof e["clientRef"] === "string") &&
    // RFC 3339 with its offset: a zone-less time would be read in this host's zone, hours off;
    // and one this runtime can place (Date.parse refuses a leap second, :60).
    isRfc3339(e["createdAt"]) &&
    Number.isFinite(Date.parse(e["createdAt"]))
  );
}

/** The listed entry in the destination's own words (what payload_digest covers). */
function listedPayload(e: ListedEffect): Record<string, unknown> {
  return {
    destination_ref: e.destinationRef,
    effect_type: e.effectType,
    client_ref: e.clientRef,
    created_at: e.createdAt,
    status: e.status,
    ...(e.fields === undefined ? {} : { fields: { ...e.fields } }),
  };
}

async function listAll(
  ctx: EngineContext,
  adapterId: string,
  window: ResolvedSweepWindow,
): Promise<{ effects: ListedEffect[]; pages: number; truncated: boolean }> {
  const adapter = ctx.adapters.require(adapterId).adapter;
  const byRef = new Map<string, ListedEffect>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    if (pages >= ctx.config.sweepMaxPages)
      return { effects: [...byRef.values()], pages, truncated: true };
    const page = await adapter.listEffects(
      { from: window.from, to: window.to },
      cursor,
      ctx.config.probeDeadlineMs,
    );
    pages += 1;
    if (!Array.isArray(page.effects) || !page.effects.every(isListed)) {
      throw new IrrevonError(
        ErrorCode.destination_unavailable,
        "the adapter returned a malformed listing",
        {
          retryable: true,
          details: { adapter_id: adapterId, page: pages },
        },
      );
    }
    // A ref listed on two pages (pagination over a moving set) is one sighting.
    for (const e of page.effects) if (!byRef.has(e.destinationRef)) byRef.set(e.destinationRef, e);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { effects: [...byRef.values()], pages, truncated: false };
}

function laterOf(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

/**
 * Audits each settled record that a listed effect matched but that has never seen that
 * effect's ref. A record still in flight is left to its reconciliation: the ref stays unseen,
 * so a later run audits it once it settles. An audit that cannot run is reported as an event,
 * never as a failed sweep (the run and its sightings are already recorded).
 */
async function auditUnknownEffects(
  ctx: EngineContext,
  adapterId: string,
  matches: ReadonlyMap<string, SweepMatch>,
): Promise<{ audited: string[]; findings: number[] }> {
  const unknown = await unknownMatchedRefs(ctx.db, adapterId, matches);
  const audited: string[] = [];
  const findings: number[] = [];
  for (const [effectId, refs] of unknown) {
    const latest = await latestExecution(ctx.db, effectId);
    if (latest?.frontier !== "SETTLED_COMMITTED" && latest?.frontier !== "SETTLED_FAILED") continue;
    try {
      const outcome = await auditSettledEffect(ctx, effectId);
      audited.push(effectId);
      if (outcome.status === "finding" && outcome.alreadyReported !== true)
        findings.push(outcome.findingId);
    } catch (e) {
      emit(ctx, "worker.sweep_error", "warn", {
        adapter_id: adapterId,
        effect_id: effectId,
        destination_refs: refs,
        stage: "audit",
        error: e instanceof IrrevonError ? e.code : String(e),
      });
    }
  }
  return { audited, findings };
}

/** Runs one sweep of `adapterId` (see the file header). */
export async function sweepAdapter(
  ctx: EngineContext,
  adapterId: string,
  window?: SweepWindow,
): Promise<SweepReport> {
  const entry = ctx.adapters.require(adapterId);
  if (!entry.declaration.list_queryable) {
    throw new IrrevonError(
      ErrorCode.capability_unsupported,
      "this destination cannot list its effects, so it cannot be swept",
      { details: { adapter_id: adapterId, tier: entry.declaration.tier } },
    );
  }
  const stableIdNames = entry.declaration.queryable.by
    .filter((k) => k.startsWith("stable_id:"))
    .map((k) => k.slice("stable_id:".length));
  const resolved = await resolveSweepWindow(ctx, entry, window);
  const listing = await listAll(ctx, adapterId, resolved);

  const matches = await matchListedEffects(ctx.db, adapterId, listing.effects, stableIdNames);
  let newest: string | null = null;
  for (const e of listing.effects)
    newest = laterOf(newest, new Date(Date.parse(e.createdAt)).toISOString());
  const destinationNow = laterOf(await sweepHighWaterMark(ctx.db, adapterId), newest);
  const engineNow = new Date(await engineNowMs(ctx)).toISOString();
  const unmatched: UnmatchedListing[] = [];
  const sightings = listing.effects.map((e) => {
    const payloadDigest = canonicalDigest(listedPayload(e));
    const match = matches.get(e.destinationRef);
    if (match === undefined) {
      unmatched.push({
        destinationRef: e.destinationRef,
        effectType: e.effectType,
        clientRef: e.clientRef,
        ...(e.fields === undefined ? {} : { fields: e.fields }),
        createdAt: e.createdAt,
        payloadDigest,
      });
    }
    return {
      destinationRef: e.destinationRef,
      payloadDigest,
      matchedEffect: match?.effectId ?? null,
      matchPath: match?.path ?? null,
      listedCreatedAt: e.createdAt,
    };
  });
  const runId = await recordSweepRun(ctx.db, {
    adapterId,
    windowFrom: resolved.from,
    windowTo: resolved.to,
    destinationNow,
    engineNow,
    sightings,
  });
  await ctx.crash.hit("sweep.pre_finding");

  const tally = await emitOrphans(
    ctx,
    { runId, adapterId, window: resolved, destinationNow, engineNow, stableIdNames },
    unmatched,
  );
  const audits = await auditUnknownEffects(ctx, adapterId, matches);
  const report: SweepReport = {
    runId,
    adapterId,
    window: resolved,
    pages: listing.pages,
    truncated: listing.truncated,
    listed: listing.effects.length,
    matched: listing.effects.length - unmatched.length,
    unmatched: unmatched.length,
    orphansCreated: tally.created,
    alreadyKnown: tally.alreadyKnown,
    pending: tally.pending,
    rematched: tally.rematched,
    destinationNow,
    audited: audits.audited,
    auditFindings: audits.findings,
  };
  emit(ctx, "sweep_completed", "info", {
    adapter_id: adapterId,
    run_id: runId,
    listed: report.listed,
    matched: report.matched,
    orphans_created: tally.created.length,
    already_known: tally.alreadyKnown,
    pending: tally.pending,
    truncated: listing.truncated,
    audited: audits.audited.length,
    audit_findings: audits.findings.length,
  });
  return report;
}
