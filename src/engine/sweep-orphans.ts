/**
 * engine/sweep-orphans — the orphan rule (§7, I10): a listed destination effect that no ledger
 * record explains becomes an ORPHANED finding (effect_id NULL, keyed by adapter and
 * destination ref) only when
 *   - at least `sweepMinRuns` (≥ 2) DISTINCT runs saw it unmatched, this one included, and
 *   - the grace period has passed since its first unmatched sighting, measured in destination
 *     time (the runs' high-water marks). A quiet destination's observed time stands still, so
 *     the engine's elapsed time since that sighting (database clock plus the test offset,
 *     engine-time) counts too: whichever is longer.
 *   - it still matches nothing when re-matched right before the finding is written.
 * An ORPHANED finding that already exists (or that another process writes first: the unique
 * index findings_one_orphan_per_ref) counts as already known. An orphan that carries a ledger
 * key which explains nothing (an execution never claimed, or another adapter's record) says
 * so in its evidence (`unexplained_key`, docs/engine.md "What explains a destination effect").
 * Imports: core, db, ledger, engine.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { attachFinding } from "../ledger/attach-finding.js";
import { sqlStateOf } from "../ledger/sql-util.js";
import {
  matchListedEffects,
  matchPathsTried,
  unexplainedKeys,
  type ListedForMatch,
} from "../ledger/sweep-match.js";
import { unmatchedHistory } from "../ledger/sweep-record.js";
import { emit, type EngineContext } from "./context.js";
import type { ResolvedSweepWindow } from "./sweep-window.js";

/** One unmatched listed effect of the current run. */
export interface UnmatchedListing extends ListedForMatch {
  readonly createdAt: string;
  readonly payloadDigest: string;
}

/** What the orphan rule did with this run's unmatched effects. */
export interface OrphanTally {
  readonly created: readonly number[];
  readonly alreadyKnown: number;
  /** Waiting for more runs or for the grace period. */
  readonly pending: number;
  /** Matched a record when re-checked at emission (a receipt arrived meanwhile). */
  readonly rematched: number;
}

const UNIQUE_VIOLATION = "23505";

function secondsBetween(earlier: string | null, later: string | null): number {
  if (earlier === null || later === null) return 0;
  return Math.max(0, (Date.parse(later) - Date.parse(earlier)) / 1000);
}

/** Applies the orphan rule to `unmatched` after run `runId` was recorded. */
export async function emitOrphans(
  ctx: EngineContext,
  run: {
    readonly runId: number;
    readonly adapterId: string;
    readonly window: ResolvedSweepWindow;
    readonly destinationNow: string | null;
    readonly engineNow: string;
    readonly stableIdNames: readonly string[];
  },
  unmatched: readonly UnmatchedListing[],
): Promise<OrphanTally> {
  const history = await unmatchedHistory(
    ctx.db,
    run.adapterId,
    unmatched.map((u) => u.destinationRef),
  );
  const keys = await unexplainedKeys(
    ctx.db,
    run.adapterId,
    unmatched.flatMap((u) => (u.clientRef === null ? [] : [u.clientRef])),
  );
  const created: number[] = [];
  let alreadyKnown = 0;
  let pending = 0;
  let rematched = 0;
  for (const item of unmatched) {
    const h = history.get(item.destinationRef);
    if (h === undefined) continue; // recorded in this run's transaction; absent only if the run was not
    if (h.orphanFindingId !== null) {
      alreadyKnown += 1;
      continue;
    }
    const elapsedSeconds = Math.max(
      secondsBetween(h.firstDestinationNow, run.destinationNow),
      secondsBetween(h.firstEngineNow, run.engineNow),
    );
    if (h.runsSighted < ctx.config.sweepMinRuns || elapsedSeconds < ctx.config.orphanGraceSeconds) {
      pending += 1;
      continue;
    }
    // Re-match at emission: a receipt or probe citing this ref may have landed since the listing.
    const now = await matchListedEffects(ctx.db, run.adapterId, [item], run.stableIdNames);
    if (now.has(item.destinationRef)) {
      rematched += 1;
      continue;
    }
    const unexplained = item.clientRef === null ? undefined : keys.get(item.clientRef);
    try {
      const findingId = await attachFinding(ctx.db, {
        effectId: null,
        adapterId: run.adapterId,
        destinationRef: item.destinationRef,
        classification: "ORPHANED",
        evidence: {
          payload_digest: item.payloadDigest,
          window: { from: run.window.from, to: run.window.to },
          failed_match_paths: matchPathsTried(run.stableIdNames),
          runs_sighted: h.runsSighted,
          sweep_run_ids: h.runIds,
          listed: {
            effect_type: item.effectType,
            created_at: item.createdAt,
            client_ref: item.clientRef,
          },
          grace_seconds: ctx.config.orphanGraceSeconds,
          elapsed_seconds: elapsedSeconds,
          ...(unexplained === undefined ? {} : { unexplained_key: { ...unexplained } }),
        },
        createdBy: "sweep",
      });
      created.push(findingId);
      emit(ctx, "finding_created", "warn", {
        classification: "ORPHANED",
        finding_id: findingId,
        adapter_id: run.adapterId,
        destination_ref: item.destinationRef,
      });
    } catch (e) {
      // Another sweeper (another worker) wrote it first: already known, not an error.
      if (sqlStateOf(e) === UNIQUE_VIOLATION || isUniqueViolation(e)) {
        alreadyKnown += 1;
        continue;
      }
      throw e;
    }
  }
  return { created, alreadyKnown, pending, rematched };
}

function isUniqueViolation(e: unknown): boolean {
  return (
    e instanceof IrrevonError &&
    e.code === ErrorCode.storage_error &&
    e.details["constraint"] === "findings_one_orphan_per_ref"
  );
}
