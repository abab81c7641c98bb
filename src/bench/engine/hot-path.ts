/**
 * bench/engine/hot-path — what one clean guarded effect costs in database round trips,
 * statements, transactions and durable commits, on the two ways to send it: `register` then
 * `dispatch` (two calls), and `registerAndDispatch` (registration and claim fused in one
 * transaction). Round trips = statements + 2 per explicit transaction (its BEGIN and COMMIT);
 * durable commits are counted from the rows they left (bench/engine/write-transactions).
 * Used by `npm run bench:engine` and by test/integration/hot-path-counts.test.ts.
 * Imports: db, engine, bench.
 */
import { DbRole, type Db, type Queryable } from "../../db/db.js";
import type { Irrevon } from "../../engine/irrevon.js";
import {
  createPgliteBenchDatabase,
  createPostgresBenchDatabase,
  type BenchDatabase,
} from "./bench-database.js";
import {
  benchContract,
  guardedEffect,
  openBenchEngine,
  zeroLatencyAdapter,
} from "./bench-effects.js";
import { countingDb, roundTripsOf, zeroCounts } from "./counting-db.js";
import { writeMap, writesBetween } from "./write-transactions.js";

/** The two ways to send one effect. */
export type HotPathMode = "two_call" | "fused" | "run";

/** Per clean effect, averaged over the measured effects. */
export interface HotPathCounts {
  readonly mode: HotPathMode;
  readonly effects: number;
  /** Statements + BEGIN/COMMIT of every explicit transaction. */
  readonly roundTrips: number;
  readonly statements: number;
  readonly transactions: number;
  /** Transactions that wrote the ledger and flushed a commit (lease upkeep excluded). */
  readonly durableCommits: number;
}

/** Sends one clean effect `index` in `mode`; throws unless it settled COMMITTED. */
export async function sendCleanEffect(
  engine: Irrevon,
  mode: HotPathMode,
  tag: string,
  index: number,
): Promise<void> {
  const contract = benchContract(tag, index);
  if (mode === "run") {
    const result = await engine.run({
      effectType: contract.effect_type,
      scope: contract.scope,
      stableIds: contract.stable_ids,
      parameters: contract.parameters,
      adapterId: contract.adapter_id,
      authorityRef: contract.authority_ref,
      stampedAt: contract.stamped_at,
    });
    if (result.status !== "committed" || result.replayed)
      throw new Error(`hot-path run() did not commit: ${JSON.stringify(result)}`);
    return;
  }
  await guardedEffect(engine, contract, mode);
}

/**
 * Counts `effects` clean effects sent in `mode` through an engine on `app` (irrevon_app);
 * `reader` reads every table (the migrating login) to count durable commits.
 */
export async function countHotPath(
  app: Db,
  reader: Queryable,
  mode: HotPathMode,
  options: { readonly effects: number; readonly tag: string },
): Promise<HotPathCounts> {
  const counting = countingDb(app);
  const engine = await openBenchEngine(
    counting,
    zeroLatencyAdapter(),
    `hot-${options.tag}-${mode}`,
  );
  try {
    // One effect first: the lease is registered and every statement prepared once.
    await sendCleanEffect(engine, mode, `${options.tag}-${mode}-warm`, 0);
    const before = await writeMap(reader);
    Object.assign(counting.counts, zeroCounts());
    for (let i = 0; i < options.effects; i++)
      await sendCleanEffect(engine, mode, `${options.tag}-${mode}`, i);
    const counts = { ...counting.counts };
    const writes = writesBetween(before, await writeMap(reader));
    const n = options.effects;
    return {
      mode,
      effects: n,
      roundTrips: roundTripsOf(counts) / n,
      statements: (counts.standaloneStatements + counts.statementsInTransactions) / n,
      transactions: counts.transactions / n,
      durableCommits: writes.ledger / n,
    };
  } finally {
    await engine.close();
  }
}

/** Both modes on one bench database (the bench's rows). */
export async function measureHotPath(
  db: BenchDatabase,
  options: { readonly effects: number; readonly tag: string },
): Promise<Array<HotPathCounts & { readonly backend: BenchDatabase["backend"] }>> {
  const out: Array<HotPathCounts & { readonly backend: BenchDatabase["backend"] }> = [];
  for (const mode of ["two_call", "fused", "run"] as const) {
    const counts = await countHotPath(db.root.as(DbRole.app), db.root, mode, options);
    out.push({ ...counts, backend: db.backend });
  }
  return out;
}

/** The markdown section of the bench report. */
export function renderHotPath(
  rows: ReadonlyArray<HotPathCounts & { readonly backend: string }>,
): string {
  const lines = [
    "## Hot path per clean effect (counted)",
    "",
    'Round trips = statements + BEGIN/COMMIT of each explicit transaction; durable commits = ledger-writing transactions (lease upkeep excluded). See docs/architecture.md "Hot path".',
    "",
    "| backend | path | effects | round trips | statements | transactions | durable commits |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const path =
      r.mode === "fused"
        ? "registerAndDispatch (fused)"
        : r.mode === "run"
          ? "run() (fused; evidence read for the result)"
          : "register + dispatch";
    lines.push(
      `| ${r.backend} | ${path} | ${r.effects} | ${r.roundTrips.toFixed(2)} | ${r.statements.toFixed(2)} | ${r.transactions.toFixed(2)} | ${r.durableCommits.toFixed(2)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The bench's hot-path section: both modes on PGlite and (when `postgresUrl` answers) on
 * Postgres, each on a fresh migrated database. `enabled: false` returns an empty section.
 */
export async function runHotPathBench(
  postgresUrl: string | null,
  effects: number,
  enabled: boolean,
): Promise<{
  readonly rows: Array<HotPathCounts & { readonly backend: string }>;
  readonly markdown: string;
}> {
  if (!enabled) return { rows: [], markdown: "" };
  const tag = `hp${Date.now().toString(36)}`;
  const rows: Array<HotPathCounts & { readonly backend: string }> = [];
  const pglite = await createPgliteBenchDatabase();
  try {
    rows.push(...(await measureHotPath(pglite, { effects, tag })));
  } finally {
    await pglite.close();
  }
  if (postgresUrl !== null) {
    const server = await createPostgresBenchDatabase(postgresUrl).catch(() => null);
    if (server !== null) {
      try {
        rows.push(...(await measureHotPath(server, { effects, tag })));
      } finally {
        await server.close();
      }
    }
  }
  return { rows, markdown: renderHotPath(rows) };
}
