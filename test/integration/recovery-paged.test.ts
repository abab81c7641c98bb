/**
 * Recovery at scale (issue 11 item 4): a backlog larger than two pages is recovered with
 * several effects in flight at once, and every effect is adjudicated exactly once — one
 * settle transition, one finding, one status query if the destination holds it, two (the
 * re-read) if it does not — with nothing left open and nothing failed. Postgres only: the
 * embedded ledger serializes every statement, so lanes would only take turns there (the
 * recovery suites cover PGlite).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mapBounded } from "../../src/engine/bounded-pool.js";
import { SKIP_POSTGRES } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import {
  countRows,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

const EFFECTS = 250;
const PAGE = 100;

describe.skipIf(SKIP_POSTGRES)("recovery: paged, concurrent, each effect once [postgres]", () => {
  let f: EngineFixture;
  beforeEach(async () => {
    f = await openEngineFixture("postgres", {
      config: { rereadGapSeconds: 0, recoveryPageSize: PAGE, recoveryConcurrency: 8 },
    });
  });
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it(`${EFFECTS} AMBIGUOUS effects over ${Math.ceil(EFFECTS / PAGE)} pages: each settled once, probed once or twice`, async () => {
    // Every create's response is lost: the first half after the destination committed, the
    // rest before. Built eight at a time (distinct scopes), so which effect got which fault is
    // read back from the destination's truth below.
    f.refdest.schedule([
      ...Array.from({ length: EFFECTS / 2 }, () => ({
        fault: "DROP_RESPONSE_AFTER_COMMIT",
        match: { op: "create" },
      })),
      ...Array.from({ length: EFFECTS / 2 }, () => ({
        fault: "DROP_RESPONSE_BEFORE_COMMIT",
        match: { op: "create" },
      })),
    ]);
    const effects = await mapBounded(
      Array.from({ length: EFFECTS }, (_, i) => i),
      8,
      async (i) => {
        const { effectId } = await f.irrevon.register(
          orderContract({ scope: `acme-store/paged/${i}` }),
        );
        const sent = await f.irrevon.dispatch(effectId);
        expect(sent).toMatchObject({ lifecycle: "AMBIGUOUS" });
        return { effectId, operationId: sent.status === "dispatched" ? sent.operationId : "" };
      },
    );
    const held = new Set(f.refdest.truthDump().effects.map((e) => e.client_ref));
    const present = new Set(effects.filter((e) => held.has(e.operationId)).map((e) => e.effectId));
    const absent = new Set(effects.filter((e) => !held.has(e.operationId)).map((e) => e.effectId));
    expect([present.size, absent.size]).toEqual([EFFECTS / 2, EFFECTS / 2]);
    // Past every call's deadline (the absence rule), on the engine's clock.
    f.clock.advance(10_000);

    const report = await f.irrevon.recover();
    expect(report.errors).toEqual([]);
    expect(report).toMatchObject({
      scanned: EFFECTS,
      adjudicated: EFFECTS,
      parked: 0,
      inFlight: 0,
    });
    expect(new Set(report.outcomes.map((o) => o.effectId)).size).toBe(EFFECTS);

    const perEffect = await f.ledger.app.query<{
      effect_id: string;
      probes: unknown;
      settles: unknown;
      findings: unknown;
      classes: string;
    }>(
      `SELECT x.effect_id,
              (SELECT count(*) FROM status_probes p WHERE p.execution_id = x.execution_id
                 AND p.probe_kind = 'reconcile_open') AS probes,
              (SELECT count(*) FROM effect_transitions t WHERE t.execution_id = x.execution_id
                 AND t.to_state IN ('SETTLED_COMMITTED', 'SETTLED_FAILED')) AS settles,
              (SELECT count(*) FROM findings g WHERE g.effect_id = x.effect_id) AS findings,
              (SELECT string_agg(g.classification, ',') FROM findings g WHERE g.effect_id = x.effect_id) AS classes
         FROM effect_executions x`,
    );
    expect(perEffect.rows).toHaveLength(EFFECTS);
    for (const r of perEffect.rows) {
      const isPresent = present.has(r.effect_id);
      expect(isPresent || absent.has(r.effect_id)).toBe(true);
      expect({
        id: r.effect_id,
        probes: Number(r.probes),
        settles: Number(r.settles),
        findings: Number(r.findings),
        classes: r.classes,
      }).toEqual({
        id: r.effect_id,
        probes: isPresent ? 1 : 2,
        settles: 1,
        findings: 1,
        classes: isPresent ? "CONFIRMED_UNIQUE" : "LOST",
      });
    }
    // The destination was asked exactly as often as the ledger recorded.
    const queries = f.refdest.requestLog().filter((e) => e.op === "query" || e.op === "get");
    expect(queries).toHaveLength(present.size + 2 * absent.size);
    expect(
      await countRows(
        f,
        `SELECT count(*) AS n FROM execution_frontiers WHERE frontier IN ('DISPATCHED', 'AMBIGUOUS')`,
      ),
    ).toBe(0);
    // A second run finds nothing left to do.
    expect(await f.irrevon.recover()).toMatchObject({ scanned: 0, adjudicated: 0, errors: [] });
  }, 300_000);
});
