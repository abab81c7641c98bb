/**
 * test/integration/sweep-explanation-support — an engine with TWO reference destinations (two
 * adapters, so an effect can carry another adapter's key), the planting helpers of the
 * explanation-rule cases, and the ledger's own classification of every destination effect:
 * the finding that names it (ORPHANED by ref; CONTRADICTED by ref or evidence refs; DUPLICATE
 * by its excess refs), else EXPLAINED when the sweep matched it, else UNREPORTED. Not a test
 * file; used by sweep-audit-agreement and sweep-late-earlier-step.
 */
import { expect } from "vitest";
import type { CapabilityDeclaration } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { manualClock, type ManualClock } from "../../src/engine/clock.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest, type Refdest } from "../../src/refdest/index.js";
import {
  classifyDestinationEffects,
  type EffectClassification,
} from "../../src/testing/history-checker.js";
import { openTestLedger, type Backend, type TestLedger } from "../support/databases.js";
import { readDestinationHistory, readLedgerHistory } from "../support/history/ledger-history.js";
import { orderContract } from "./engine-support.js";

/** The adapter every case dispatches through, and a second destination of the same kind. */
export const MAIN = "refdest-c2";
export const OTHER = "refdest-c2-eu";

export interface TwoDestinations {
  readonly ledger: TestLedger;
  readonly irrevon: Irrevon;
  readonly clock: ManualClock;
  readonly destinations: Readonly<Record<string, Refdest>>;
  close(): Promise<void>;
}

function adapterFor(refdest: Refdest, declaration: CapabilityDeclaration): RefdestAdapter {
  return new RefdestAdapter({
    baseUrl: "http://127.0.0.1:4100",
    declaration,
    transport: createInProcessTransport(refdest),
  });
}

/** Ledger + two in-process destinations + one engine (grace 0, re-read gap 0). */
export async function openTwoDestinations(backend: Backend): Promise<TwoDestinations> {
  const ledger = await openTestLedger(backend);
  const main = createRefdest({ tier: "C2", seed: 42 });
  // Another seed: its destination refs must not collide with the main destination's.
  const other = createRefdest({ tier: "C2", seed: 7 });
  const clock = manualClock();
  const irrevon = await openIrrevon({
    database: ledger.app,
    adapters: [
      adapterFor(main, refdestDeclaration("C2")),
      adapterFor(other, { ...refdestDeclaration("C2"), adapter: OTHER }),
    ],
    clock,
    config: {
      orphanGraceSeconds: 0,
      rereadGapSeconds: 0,
      dispatchDeadlineMs: 2_000,
      probeDeadlineMs: 2_000,
      leaseTtlMs: 60_000,
    },
    workerId: "explanation",
    crashPoints: NO_CRASH_POINTS,
  });
  return {
    ledger,
    irrevon,
    clock,
    destinations: { [MAIN]: main, [OTHER]: other },
    async close() {
      await irrevon.close();
      await ledger.close();
    },
  };
}

/** Creates an effect at `refdest` carrying `clientRef`, behind the engine's back. */
export function plantEffect(refdest: Refdest, clientRef: string | null): string {
  const [view] = refdest.createOutOfBand({
    effect_type: "order.create",
    payload: { note: "planted" },
    client_ref: clientRef,
  });
  if (view === undefined) throw new Error("no effect planted");
  return view.destination_ref;
}

/** Registers and dispatches one order that commits; returns its ids and destination ref. */
export async function committedOrder(
  t: TwoDestinations,
): Promise<{ effectId: string; operationId: string }> {
  const { effectId, operationId } = await t.irrevon.register(orderContract());
  expect(await t.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
  return { effectId, operationId };
}

/**
 * Step 0's response is lost before commit, the dispatch deadline passes, absence is proven
 * (LOST), a human re-dispatches step 1, which commits. Returns step 0's operation id (whose effect may surface later).
 */
export async function lostThenRedispatched(
  t: TwoDestinations,
): Promise<{ effectId: string; step0: string }> {
  const main = t.destinations[MAIN];
  if (main === undefined) throw new Error("no main destination");
  const { effectId, operationId } = await t.irrevon.register(orderContract());
  main.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
  expect(await t.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
  // The absence rule: ABSENT counts only once the commit horizon (call start + the 2 s
  // dispatch deadline, for a dropped response) has passed.
  t.clock.advance(2_000);
  const settled = await t.irrevon.reconcile(effectId);
  expect(settled).toMatchObject({ status: "failed" });
  const [lost] = await t.irrevon.findings({ classification: "LOST", effectId });
  if (lost === undefined) throw new Error("no LOST finding");
  const redispatch = await t.irrevon.redispatchLost(
    lost.findingId,
    { authorityRef: "auth_redispatch_1", stampedAt: new Date().toISOString() },
    "the order never arrived",
  );
  expect(redispatch).toMatchObject({ status: "dispatched", lifecycle: "SETTLED_COMMITTED" });
  return { effectId, step0: operationId };
}

/** Sweeps every adapter twice (an orphan needs two runs), then audits every settled record. */
export async function sweepAndAudit(t: TwoDestinations): Promise<void> {
  for (let run = 0; run < 2; run += 1)
    for (const adapterId of Object.keys(t.destinations)) await t.irrevon.sweep(adapterId);
  const { rows } = await t.ledger.app.query<{ effect_id: string }>(
    `SELECT effect_id FROM effect_frontiers
      WHERE frontier IN ('SETTLED_COMMITTED', 'SETTLED_FAILED') ORDER BY effect_id`,
  );
  for (const r of rows) await t.irrevon.audit(r.effect_id);
}

/** A per-effect class: the checker's, or the ledger's (which may also be UNREPORTED). */
export interface ClassRow {
  readonly adapterId: string;
  readonly destinationRef: string;
  readonly effectClass: string;
  /** For ORPHANED only: why no claimed attempt explains it. */
  readonly reason?: string;
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** What the ledger says about every effect each destination holds. */
export async function ledgerClasses(t: TwoDestinations): Promise<ClassRow[]> {
  const findings = await t.ledger.app.query<{
    adapter_id: string;
    destination_ref: string | null;
    classification: string;
    evidence: Record<string, unknown>;
  }>(
    "SELECT adapter_id, destination_ref, classification, evidence FROM findings ORDER BY finding_id",
  );
  const sightings = await t.ledger.app.query<{
    adapter_id: string;
    destination_ref: string;
    matched_effect: string | null;
  }>(
    `SELECT DISTINCT ON (adapter_id, destination_ref) adapter_id, destination_ref, matched_effect
       FROM sweep_sightings ORDER BY adapter_id, destination_ref, sighting_id DESC`,
  );
  const rows: ClassRow[] = [];
  for (const [adapterId, refdest] of Object.entries(t.destinations)) {
    const mine = findings.rows.filter((f) => f.adapter_id === adapterId);
    for (const e of refdest.truthDump().effects) {
      const ref = e.destination_ref;
      const names = (classification: string, refsOf: (ev: Record<string, unknown>) => string[]) =>
        mine.find(
          (f) =>
            f.classification === classification &&
            (f.destination_ref === ref || refsOf(f.evidence).includes(ref)),
        );
      const orphan = mine.find((f) => f.classification === "ORPHANED" && f.destination_ref === ref);
      const base = { adapterId, destinationRef: ref };
      if (orphan !== undefined) {
        const unexplained = orphan.evidence["unexplained_key"] as
          Record<string, unknown> | undefined;
        const reason = unexplained?.["reason"];
        rows.push({
          ...base,
          effectClass: "ORPHANED",
          reason: typeof reason === "string" ? reason : "no_record",
        });
      } else if (names("CONTRADICTED", (ev) => asStrings(ev["destination_refs"])) !== undefined) {
        rows.push({ ...base, effectClass: "CONTRADICTED" });
      } else if (
        mine.some(
          (f) =>
            f.classification === "DUPLICATE" &&
            ("excess_refs" in f.evidence
              ? asStrings(f.evidence["excess_refs"]).includes(ref)
              : asStrings(f.evidence["destination_refs"]).slice(1).includes(ref)),
        )
      ) {
        rows.push({ ...base, effectClass: "DUPLICATE" });
      } else {
        const seen = sightings.rows.find(
          (s) => s.adapter_id === adapterId && s.destination_ref === ref,
        );
        rows.push({
          ...base,
          effectClass: seen?.matched_effect ? "EXPLAINED" : "UNREPORTED",
        });
      }
    }
  }
  return rows;
}

function toRow(adapterId: string, c: EffectClassification): ClassRow {
  return {
    adapterId,
    destinationRef: c.destinationRef,
    effectClass: c.effectClass,
    ...(c.effectClass === "ORPHANED" ? { reason: c.reason } : {}),
  };
}

/** What the history checker says about every effect each destination holds. */
export async function checkerClasses(t: TwoDestinations): Promise<ClassRow[]> {
  const ledger = await readLedgerHistory(t.ledger.read);
  return Object.entries(t.destinations).flatMap(([adapterId, refdest]) =>
    classifyDestinationEffects(ledger, readDestinationHistory(refdest, adapterId)).map((c) =>
      toRow(adapterId, c),
    ),
  );
}
