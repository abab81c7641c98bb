/**
 * bench/engine/busy-scope — does a guarded effect cost more as its scope fills? N effects are
 * sent along the fused path one after another, all in ONE (scope, effect_type) slot (the
 * default slot mode takes it on every claim), and the median of the last window is compared
 * with the median of the first. Judged: the last window's median is at most 1.5× the first's
 * (a lookup that walked the scope's history — the slot-busy check before migration 0058 —
 * grew it 3.5× over 4 000 effects; so did a trigger whose plan turned bad once the embedded
 * ledger's maintenance had VACUUMed its table, which is why the loop runs that maintenance as a
 * worker would). The figures live in `MeasuredRun.extra[BUSY_SCOPE_KEY]`
 * (the report's hook); this module holds the measurement, its row and its section.
 * Imports: db, bench.
 */
import { DbRole } from "../../db/db.js";
import { openPostgres } from "../../db/pg-driver.js";
import type { BenchDatabase } from "./bench-database.js";
import {
  benchContract,
  guardedEffect,
  openBenchEngine,
  zeroLatencyAdapter,
} from "./bench-effects.js";
import type { MeasuredRun, Target } from "./report-types.js";
import { elapsedMs, summarize } from "./stats.js";

/** The key of these figures in `MeasuredRun.extra`. */
export const BUSY_SCOPE_KEY = "busyScope";

/** The goal: the last window's median over the first window's. */
const MAX_GROWTH = 1.5;
/** Effects between two rounds of the worker's maintenance (db.maintain). */
const MAINTAIN_EVERY = 250;
/** Effects in scopes of their own sent first, uncounted. */
const WARMUP = 20;

/** One backend's run. */
export interface BusyScopeRun {
  readonly backend: BenchDatabase["backend"];
  readonly effects: number;
  /** Effects in each compared window. */
  readonly window: number;
  readonly firstMedianMs: number;
  readonly lastMedianMs: number;
}

const fmt = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** Sends `effects` fused effects in one scope on `db` and compares the first and last windows. */
export async function measureBusyScope(
  db: BenchDatabase,
  options: { readonly effects: number; readonly window: number; readonly tag: string },
): Promise<BusyScopeRun> {
  if (options.window * 2 > options.effects)
    throw new Error(
      `busy scope: ${options.effects} effects cannot hold two windows of ${options.window}`,
    );
  const appDb =
    db.url === null
      ? db.root.as(DbRole.app)
      : await openPostgres({ url: db.url, role: DbRole.app });
  const tag = `${options.tag}-busy`;
  const engine = await openBenchEngine(appDb, zeroLatencyAdapter(5), `bench-${db.backend}-${tag}`);
  const samples: number[] = [];
  try {
    // The engine's sessions plan their statements on first use: not part of the first window.
    for (let i = 0; i < WARMUP; i++)
      await guardedEffect(engine, benchContract(`${tag}-warm`, i), "fused");
    for (let i = 0; i < options.effects; i++) {
      const contract = { ...benchContract(tag, i), scope: `bench/${tag}/one-scope` };
      const t = process.hrtime.bigint();
      await guardedEffect(engine, contract, "fused");
      samples.push(elapsedMs(t));
      // What a running worker does once a cycle (on the embedded ledger: VACUUM of the derived
      // indexes), outside the timed calls: fresh statistics must not change a plan for the worse.
      if (i % MAINTAIN_EVERY === MAINTAIN_EVERY - 1) await appDb.maintain?.();
    }
  } finally {
    await engine.close();
    if (db.url !== null) await appDb.close();
  }
  return {
    backend: db.backend,
    effects: options.effects,
    window: options.window,
    firstMedianMs: summarize(samples.slice(0, options.window)).medianMs,
    lastMedianMs: summarize(samples.slice(-options.window)).medianMs,
  };
}

/** The runs of a report (none when it skipped them). */
export function busyScopeOf(run: MeasuredRun): readonly BusyScopeRun[] {
  const x = run.extra[BUSY_SCOPE_KEY];
  return Array.isArray(x) ? (x as BusyScopeRun[]) : [];
}

/** One judged row per backend. */
export function judgeBusyScope(run: MeasuredRun): Target[] {
  return busyScopeOf(run).map((r) => {
    const growth = r.lastMedianMs / r.firstMedianMs;
    const met = growth <= MAX_GROWTH;
    return {
      name: `guarded effect in one busy scope (${r.backend}, registerAndDispatch)`,
      target: `the median of the last ${r.window} of ${r.effects} effects in one (scope, effect_type) ≤ ${MAX_GROWTH}× that of the first ${r.window}`,
      measured: `first ${r.window}: ${fmt(r.firstMedianMs)} ms, last ${r.window}: ${fmt(r.lastMedianMs)} ms (${fmt(growth, 2)}×)`,
      met,
      ...(met
        ? {}
        : {
            explanation: `a guarded effect cost ${fmt(growth, 2)}× more once ${r.effects - r.window} effects were in its scope: some statement on the path reads the scope's history (see docs/architecture.md "Lookups that grew with the ledger")`,
          }),
    };
  });
}

/** The section of the Markdown report. */
export function renderBusyScope(run: MeasuredRun): string[] {
  const rows = busyScopeOf(run);
  if (rows.length === 0) return [];
  return [
    "## One busy scope",
    "",
    "Guarded effects (registerAndDispatch, zero-latency reference destination) sent one after " +
      "another, all in one (scope, effect_type) slot, which every claim takes in the default " +
      `slot mode. Every ${MAINTAIN_EVERY} effects the worker's maintenance runs between two calls ` +
      "(on the embedded ledger: VACUUM of the derived indexes of open work), as a running worker " +
      "would. Medians of the first and the last window, in milliseconds.",
    "",
    "| backend | effects | window | first window median | last window median | last / first |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.effects} | ${r.window} | ${fmt(r.firstMedianMs)} | ${fmt(r.lastMedianMs)} | ${fmt(r.lastMedianMs / r.firstMedianMs, 2)} |`,
    ),
    "",
  ];
}
