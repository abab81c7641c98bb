/**
 * The lost-response crash path on the EMBEDDED ledger (a PGlite data directory owned by one
 * engine process at a time): the first process is SIGKILLed after the response was lost;
 * the next one opens the same directory, and its recovery queries the destination before any
 * create and settles SETTLED_COMMITTED + CONFIRMED_UNIQUE with exactly one effect. A second
 * process opening a directory that is in use is refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { EngineChild } from "./engine-child-support.js";

const ORDER = {
  schema_version: "1",
  stable_ids: { order_id: "9410", customer_ref: "C-0007" },
  effect_type: "order.create",
  scope: "acme-store/prod",
  effect_class: "IRREVERSIBLE",
  adapter_id: "refdest-c2",
  parameters: { line_items: [{ sku: "SKU-118", quantity: 2 }] },
  authority_ref: "auth_approved_task_18",
  stamped_at: new Date().toISOString(),
};
const EFFECT = "0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5";

describe("engine child on an embedded ledger [pglite data dir]", () => {
  let dir: string;
  let server: RefdestServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-embedded-"));
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "lost response + SIGKILL: the next owner of the directory reconciles before any create",
    { timeout: 120_000 },
    async () => {
      const env = {
        IRREVON_DATA_DIR: join(dir, "ledger"),
        IRREVON_REFDEST_URL: server.url,
        IRREVON_WORKER_ID: "embedded-1",
      };
      const first = await EngineChild.start(env);
      await expect(EngineChild.start(env)).rejects.toThrow(/refused|died/);
      expect(await first.call(`REGISTER ${JSON.stringify(ORDER)}`)).toMatchObject({
        effectId: EFFECT,
        lifecycle: "PERSISTED",
      });
      server.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
      expect(await first.call(`DISPATCH ${EFFECT}`)).toMatchObject({ lifecycle: "AMBIGUOUS" });
      expect((await first.kill()).signal).toBe("SIGKILL");
      const logBefore = server.refdest.requestLog().length;

      const second = await EngineChild.start(env);
      expect(second.recovery).toMatchObject({ scanned: 1, adjudicated: 1 });
      expect(
        server.refdest
          .requestLog()
          .slice(logBefore)
          .every((e) => e.op !== "create"),
      ).toBe(true);
      expect(await second.call(`STATUS ${EFFECT}`)).toMatchObject({
        lifecycle: "SETTLED_COMMITTED",
        classification: "CONFIRMED_UNIQUE",
      });
      expect(await second.call(`DISPATCH ${EFFECT}`)).toMatchObject({
        status: "denied",
        check: "dedup",
      });
      await second.exit();
      expect(server.refdest.truthDump().effects).toHaveLength(1);
    },
  );
});
