/**
 * Many writers (D2) on a Postgres server: 8 engine processes race to register and dispatch
 * the same 200 intents (each in its own slot), in different orders. Exactly one wire call per
 * operation id reaches the destination, every intent is one record with one attempt, and the
 * auditor finds the ledger clean. No single-writer lock exists to make this pass.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { EngineChild } from "./engine-child-support.js";

const PROCESSES = 8;
const INTENTS = 200;

function contract(i: number): Record<string, unknown> {
  return {
    schema_version: "1",
    stable_ids: { order_id: `race-${i}` },
    effect_type: "order.create",
    scope: `race-store/${i}`,
    effect_class: "IRREVERSIBLE",
    adapter_id: "refdest-c2",
    parameters: { n: i },
    authority_ref: "auth_race",
    stamped_at: new Date().toISOString(),
  };
}

/** A deterministic shuffle per process, so the processes collide in different orders. */
function shuffled(seed: number): number[] {
  const order = Array.from({ length: INTENTS }, (_, i) => i);
  let x = seed * 2_654_435_761 + 1;
  for (let i = order.length - 1; i > 0; i -= 1) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = x % (i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

describe.skipIf(SKIP_POSTGRES)("engine processes racing [postgres]", () => {
  let ledger: TestLedger;
  let server: RefdestServer;
  beforeEach(async () => {
    ledger = await openTestLedger("postgres");
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
  });
  afterEach(async () => {
    await server.close();
    await ledger.close();
  });

  it(
    `${PROCESSES} processes × ${INTENTS} intents: one wire call per operation id`,
    { timeout: 300_000 },
    async () => {
      const children = await Promise.all(
        Array.from({ length: PROCESSES }, (_, p) =>
          EngineChild.start({
            IRREVON_DATABASE_URL: ledger.url ?? "",
            IRREVON_REFDEST_URL: server.url,
            IRREVON_WORKER_ID: `racer-${p}`,
          }),
        ),
      );
      const results = await Promise.all(
        children.map((child, p) => {
          const order = shuffled(p + 1);
          return (async () => {
            const registered = await child.pipeline(
              order.map((i) => `REGISTER ${JSON.stringify(contract(i))}`),
            );
            const ids = new Map<number, string>(
              order.map((i, k) => [i, String(registered[k]?.["effectId"])]),
            );
            const dispatches = await child.pipeline(
              order.map((i) => `DISPATCH ${ids.get(i) ?? ""}`),
            );
            return { registered, dispatches };
          })();
        }),
      );
      for (const child of children) await child.exit();

      const all = results.flatMap((r) => [...r.registered, ...r.dispatches]);
      expect(all.filter((r) => "error" in r)).toEqual([]);
      const dispatched = results
        .flatMap((r) => r.dispatches)
        .filter((d) => d["status"] === "dispatched");
      expect(dispatched).toHaveLength(INTENTS);
      expect(
        results.flatMap((r) => r.registered).filter((r) => r["replayed"] === false),
      ).toHaveLength(INTENTS);

      const creates = server.refdest.requestLog().filter((e) => e.op === "create");
      expect(creates).toHaveLength(INTENTS);
      const refs = new Set(server.refdest.truthDump().effects.map((e) => e.client_ref));
      expect(refs.size).toBe(INTENTS);
      const counts = await ledger.app.query<{ records: unknown; attempts: unknown }>(
        "SELECT (SELECT count(*) FROM effect_records) AS records, (SELECT count(*) FROM dispatch_attempts) AS attempts",
      );
      expect(Number(counts.rows[0]?.records)).toBe(INTENTS);
      expect(Number(counts.rows[0]?.attempts)).toBe(INTENTS);
      await expectAuditClean(ledger);
    },
  );
});
