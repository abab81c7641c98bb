/**
 * Migration 0055: the worker's audit candidates come from the window's settle transitions
 * instead of the frontier of every effect. The answer must be the one the effect_frontiers view
 * gives (the query before 0055, kept here as the reference): on a ledger with committed and
 * failed effects, a failed effect retried into a second execution (settled in one case,
 * not yet sent in the other), an audited effect, an AMBIGUOUS one and another adapter's effect, for windows that
 * take everything, nothing, one adapter, and a limit.
 */
import { afterEach, expect, it } from "vitest";
import type { Queryable } from "../../src/db/db.js";
import { listAuditCandidates } from "../../src/ledger/worker-gauges.js";
import { describeEachBackend } from "../support/databases.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

async function reference(
  q: Queryable,
  o: { adapterIds: string[]; lookbackSeconds: number; minAgeSeconds: number; limit: number },
): Promise<string[]> {
  const { rows } = await q.query<{ effect_id: string }>(
    `SELECT e.effect_id FROM effect_frontiers e JOIN effect_records r ON r.effect_id = e.effect_id
      WHERE e.frontier IN ('SETTLED_COMMITTED', 'SETTLED_FAILED')
        AND r.adapter_id = ANY($1::text[])
        AND e.frontier_at >= now() - make_interval(secs => $2)
        AND e.frontier_at <= now() - make_interval(secs => $3)
        AND NOT EXISTS (SELECT 1 FROM status_probes p
                         WHERE p.execution_id = e.execution_id AND p.probe_kind = 'audit')
      ORDER BY e.frontier_at, e.effect_id LIMIT $4`,
    [o.adapterIds, o.lookbackSeconds, o.minAgeSeconds, o.limit],
  );
  return rows.map((r) => r.effect_id);
}

describeEachBackend(
  "audit candidates: the window's settles, as the frontier view answers",
  (backend) => {
    let f: EngineFixture;
    afterEach(async () => {
      await f.close();
    });

    it("agrees with the effect_frontiers query on a mixed ledger", async () => {
      f = await openEngineFixture(backend);
      let n = 0;
      const contract = (extra: Record<string, unknown> = {}) => {
        n += 1;
        return orderContract({ stable_ids: { order_id: `audit-window-${n}` }, ...extra });
      };
      const send = async (extra: Record<string, unknown> = {}) => {
        const { effectId } = await f.irrevon.register(contract(extra));
        return { effectId, out: await f.irrevon.dispatch(effectId) };
      };
      const committed = [await send(), await send(), await send()];
      for (const c of committed) expect(c.out).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
      const failed = await send({ parameters: { reject: true } });
      expect(failed.out).toMatchObject({ lifecycle: "SETTLED_FAILED" });
      // Failed, then retried with the same payload: the second execution settles (fails) too.
      const retried = await send({ parameters: { reject: true } });
      await f.irrevon.retry(retried.effectId, {
        authorityRef: "auth_retry_window",
        stampedAt: new Date().toISOString(),
      });
      expect(await f.irrevon.dispatch(retried.effectId)).toMatchObject({
        lifecycle: "SETTLED_FAILED",
      });
      // Failed, then retried, the retry not sent: its latest execution is PERSISTED.
      const pending = await send({ parameters: { reject: true } });
      await f.irrevon.retry(pending.effectId, {
        authorityRef: "auth_retry_window",
        stampedAt: new Date().toISOString(),
      });
      // Audited: an audit probe on its settled execution.
      const audited = await send();
      await f.irrevon.audit(audited.effectId);
      // AMBIGUOUS: the response was lost before the destination committed.
      f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
      const ambiguous = await send();
      expect(ambiguous.out).toMatchObject({ lifecycle: "AMBIGUOUS" });

      const q = f.ledger.app;
      const windows = [
        { adapterIds: [f.adapterId], lookbackSeconds: 3600, minAgeSeconds: 0, limit: 100 },
        { adapterIds: [f.adapterId], lookbackSeconds: 3600, minAgeSeconds: 0, limit: 2 },
        { adapterIds: [f.adapterId], lookbackSeconds: 3600, minAgeSeconds: 3000, limit: 100 },
        { adapterIds: ["another-adapter"], lookbackSeconds: 3600, minAgeSeconds: 0, limit: 100 },
      ];
      const all = await reference(q, windows[0]!);
      // The reference itself sees what this ledger holds: every settled, unaudited latest execution.
      expect([...all].sort()).toEqual(
        [...committed.map((c) => c.effectId), failed.effectId, retried.effectId].sort(),
      );
      for (const w of windows)
        expect(await listAuditCandidates(q, w)).toEqual(await reference(q, w));
    });
  },
);
