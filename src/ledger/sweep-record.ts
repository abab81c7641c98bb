/**
 * ledger/sweep-record — one sweep run and its sightings, written in ONE transaction (so a
 * crash never leaves a run without its sightings), plus the history the next run and the
 * orphan rule read back: the adapter's destination-time high-water mark, the refs still
 * waiting to become orphans, and per ref how many distinct runs saw it unmatched and when
 * first. Never writes an effect record (the sweep only observes). Imports: core, db, ledger.
 */
import type { Db, Queryable } from "../db/db.js";
import { isoSql, toId } from "./sql-util.js";

/** One listed destination effect as seen by one run. */
export interface SightingInput {
  readonly destinationRef: string;
  /** canonical digest of the listed entry. */
  readonly payloadDigest: string;
  /** null when no ledger record matched. */
  readonly matchedEffect: string | null;
  /** Set iff matchedEffect is: client_ref, destination_ref or stable_id:<name>. */
  readonly matchPath: string | null;
  /** The listed created_at (destination time). */
  readonly listedCreatedAt: string;
}

/** A sweep run to record. */
export interface SweepRunInput {
  readonly adapterId: string;
  readonly windowFrom: string;
  readonly windowTo: string;
  /** Destination-time high-water mark after this run (null if nothing was ever listed). */
  readonly destinationNow: string | null;
  /** Engine time at recording (database clock plus any test offset). */
  readonly engineNow: string;
  readonly sightings: readonly SightingInput[];
}

/** Inserts the run and its sightings in one transaction; returns the run id. */
export async function recordSweepRun(db: Db, input: SweepRunInput): Promise<number> {
  const matched = input.sightings.filter((s) => s.matchedEffect !== null).length;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ run_id: unknown }>(
      `INSERT INTO sweep_runs (adapter_id, window_from, window_to, listed, matched, destination_now, engine_now)
       VALUES ($1, $2::timestamptz, $3::timestamptz, $4, $5, $6::timestamptz, $7::timestamptz) RETURNING run_id`,
      [
        input.adapterId,
        input.windowFrom,
        input.windowTo,
        input.sightings.length,
        matched,
        input.destinationNow,
        input.engineNow,
      ],
    );
    const runId = toId(rows[0]?.run_id);
    for (const s of input.sightings) {
      await tx.query(
        `INSERT INTO sweep_sightings (run_id, adapter_id, destination_ref, payload_digest, matched_effect, match_path, listed_created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz)`,
        [
          runId,
          input.adapterId,
          s.destinationRef,
          s.payloadDigest,
          s.matchedEffect,
          s.matchPath,
          s.listedCreatedAt,
        ],
      );
    }
    return runId;
  });
}

/** The adapter's latest destination-time high-water mark, or null before anything was listed. */
export async function sweepHighWaterMark(q: Queryable, adapterId: string): Promise<string | null> {
  const { rows } = await q.query<{ mark: string | null }>(
    `SELECT ${isoSql("max(destination_now)")} AS mark FROM sweep_runs WHERE adapter_id = $1`,
    [adapterId],
  );
  return rows[0]?.mark ?? null;
}

/**
 * The earliest listed created_at among refs still waiting to become orphans: last seen
 * unmatched and not yet ORPHANED. A default window reaches back to it so the next run sees
 * them again (≥ 2 sightings are required) even when traffic moved the high-water mark on.
 */
export async function earliestPendingSighting(
  q: Queryable,
  adapterId: string,
): Promise<string | null> {
  const { rows } = await q.query<{ earliest: string | null }>(
    `SELECT ${isoSql("min(s.listed_created_at)")} AS earliest
       FROM sweep_sightings s
      WHERE s.adapter_id = $1 AND s.matched_effect IS NULL
        AND NOT EXISTS (SELECT 1 FROM sweep_sightings later
                         WHERE later.adapter_id = s.adapter_id AND later.destination_ref = s.destination_ref
                           AND later.sighting_id > s.sighting_id)
        AND NOT EXISTS (SELECT 1 FROM findings f
                         WHERE f.classification = 'ORPHANED' AND f.adapter_id = s.adapter_id
                           AND f.destination_ref = s.destination_ref)`,
    [adapterId],
  );
  return rows[0]?.earliest ?? null;
}

/** What the orphan rule needs to know about one unmatched ref. */
export interface UnmatchedHistory {
  readonly destinationRef: string;
  /** Distinct runs (this one included) that saw it unmatched. */
  readonly runsSighted: number;
  readonly runIds: readonly number[];
  /** The first such run's destination-time mark and engine clock. */
  readonly firstDestinationNow: string | null;
  readonly firstEngineNow: string | null;
  /** An ORPHANED finding already exists for it. */
  readonly orphanFindingId: number | null;
}

/** Sighting history of `refs` for `adapterId`. */
export async function unmatchedHistory(
  q: Queryable,
  adapterId: string,
  refs: readonly string[],
): Promise<Map<string, UnmatchedHistory>> {
  const out = new Map<string, UnmatchedHistory>();
  if (refs.length === 0) return out;
  const { rows } = await q.query<{
    destination_ref: string;
    run_ids: unknown[];
    first_destination_now: string | null;
    first_engine_now: string | null;
    orphan_finding_id: unknown;
  }>(
    `SELECT s.destination_ref,
            array_agg(DISTINCT s.run_id ORDER BY s.run_id)::text[] AS run_ids,
            (SELECT ${isoSql("r.destination_now")} FROM sweep_runs r WHERE r.run_id = min(s.run_id)) AS first_destination_now,
            (SELECT ${isoSql("r.engine_now")} FROM sweep_runs r WHERE r.run_id = min(s.run_id)) AS first_engine_now,
            (SELECT min(f.finding_id) FROM findings f WHERE f.classification = 'ORPHANED'
                AND f.adapter_id = $1 AND f.destination_ref = s.destination_ref) AS orphan_finding_id
       FROM sweep_sightings s
      WHERE s.adapter_id = $1 AND s.matched_effect IS NULL AND s.destination_ref = ANY($2::text[])
      GROUP BY s.destination_ref`,
    [adapterId, refs],
  );
  for (const r of rows) {
    const runIds = r.run_ids.map((id) => toId(id));
    out.set(r.destination_ref, {
      destinationRef: r.destination_ref,
      runsSighted: runIds.length,
      runIds,
      firstDestinationNow: r.first_destination_now,
      firstEngineNow: r.first_engine_now,
      orphanFindingId:
        r.orphan_finding_id === null || r.orphan_finding_id === undefined
          ? null
          : toId(r.orphan_finding_id),
    });
  }
  return out;
}
