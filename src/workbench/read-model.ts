/**
 * workbench/read-model — what each page and API route shows, read in one read-only
 * transaction per request (repeatable read, so every section of a page comes from one
 * snapshot) and digested before it leaves: every loader returns data in which no stable-id
 * value remains. The API serialises these results; the HTML views render them.
 * Imports: core, db, ledger, workbench.
 */
import { IrrevonError, ErrorCode } from "../core/errors.js";
import type { Db, Queryable } from "../db/db.js";
import { inspectEffect, type EffectInspection } from "../ledger/inspect-effect.js";
import { isoSql } from "../ledger/sql-util.js";
import {
  declarationByDigest,
  packagedDeclarations,
  type DeclarationView,
} from "./packaged-declarations.js";
import {
  listEffects,
  readEffectItem,
  type EffectItem,
  type EffectPage,
} from "./queries/effect-items.js";
import { listFindings, type FindingPage } from "./queries/findings-list.js";
import { runHealthChecks, type HealthCheck } from "./queries/health.js";
import { readLedgerAdapters, type LedgerAdapterUse } from "./queries/ledger-adapters.js";
import { readProbeDeclarations } from "./queries/probe-declarations.js";
import type { EffectsQuery, FindingsQuery } from "./query-params.js";
import { redactStableIds } from "../core/stable-id-redaction.js";
import type { ProbeCitation } from "./views/effect-sections.js";

/** A value and the snapshot time it was read at. */
export interface Snapshot<T> {
  readonly value: T;
  readonly asOf: string;
}

/** Runs `fn` in one read-only, repeatable-read transaction. */
export type Reader = <T>(fn: (q: Queryable) => Promise<T>) => Promise<Snapshot<T>>;

/** A {@link Reader} over `db` (which must act as irrevon_read). */
export function readerFor(db: Db): Reader {
  return (fn) =>
    db.transaction(
      async (tx) => {
        // Must precede the first query that takes a snapshot (SET statements do not).
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        const { rows } = await tx.query<{ as_of: string }>(`SELECT ${isoSql("now()")} AS as_of`);
        return { value: await fn(tx), asOf: rows[0]?.as_of ?? "" };
      },
      { readOnly: true },
    );
}

/** A page of effects, digested. */
export async function effectsPage(
  read: Reader,
  query: EffectsQuery,
): Promise<Snapshot<EffectPage>> {
  const snap = await read((q) => listEffects(q, query));
  return { ...snap, value: { ...snap.value, items: redactStableIds(snap.value.items) } };
}

/** One effect's list item, digested; null when unknown. */
export async function effectItem(
  read: Reader,
  effectId: string,
): Promise<Snapshot<EffectItem | null>> {
  const snap = await read((q) => readEffectItem(q, effectId));
  return { ...snap, value: snap.value === null ? null : redactStableIds(snap.value) };
}

/** The effect detail: the digested inspect document plus what each probe cited. */
export interface EffectDetail {
  readonly doc: EffectInspection;
  readonly probeCitations: ReadonlyMap<number, ProbeCitation>;
}

async function inspectOrNull(q: Queryable, effectId: string): Promise<EffectInspection | null> {
  try {
    return await inspectEffect(q, effectId);
  } catch (e) {
    if (e instanceof IrrevonError && e.code === ErrorCode.not_found) return null;
    throw e;
  }
}

/** The digested inspect document (what `irrevon inspect --json` prints); null when unknown. */
export async function inspection(
  read: Reader,
  effectId: string,
): Promise<Snapshot<EffectInspection | null>> {
  const snap = await read((q) => inspectOrNull(q, effectId));
  return { ...snap, value: snap.value === null ? null : redactStableIds(snap.value) };
}

/** Everything the effect page shows; null when unknown. */
export async function effectDetail(
  read: Reader,
  effectId: string,
): Promise<Snapshot<EffectDetail | null>> {
  const snap = await read(async (q) => {
    const doc = await inspectOrNull(q, effectId);
    return doc === null ? null : { doc, probes: await readProbeDeclarations(q, effectId) };
  });
  if (snap.value === null) return { ...snap, value: null };
  const probeCitations = new Map<number, ProbeCitation>();
  for (const p of snap.value.probes) {
    probeCitations.set(p.probeId, {
      adapterId: p.adapterId,
      declarationDigest: p.declarationDigest,
      citations: declarationByDigest(p.declarationDigest)?.citations ?? null,
    });
  }
  return { ...snap, value: { doc: redactStableIds(snap.value.doc), probeCitations } };
}

/** A page of findings, digested against the subject effects' stable ids. */
export async function findingsPage(
  read: Reader,
  query: FindingsQuery,
): Promise<Snapshot<FindingPage>> {
  const snap = await read((q) => listFindings(q, query));
  const page = snap.value;
  return {
    ...snap,
    value: {
      ...page,
      items: redactStableIds(page.items, page.subjectStableIdValues),
      subjectStableIdValues: [],
    },
  };
}

/** Packaged declarations and the ledger's use of them. */
export interface AdaptersView {
  readonly declarations: readonly DeclarationView[];
  readonly ledger: readonly LedgerAdapterUse[];
}

/** The adapters view. */
export async function adaptersView(read: Reader): Promise<Snapshot<AdaptersView>> {
  const snap = await read((q) => readLedgerAdapters(q));
  return { ...snap, value: { declarations: packagedDeclarations(), ledger: snap.value } };
}

/** The health checks; a database that cannot be reached fails every check. */
export async function healthChecks(read: Reader): Promise<Snapshot<HealthCheck[]>> {
  try {
    return await read((q) => runHealthChecks(q));
  } catch (e) {
    if (!(e instanceof IrrevonError)) throw e;
    return {
      asOf: new Date().toISOString(),
      value: (["storage", "read_role", "read_only", "schema"] as const).map((name) => ({
        name,
        status: "fail" as const,
      })),
    };
  }
}
