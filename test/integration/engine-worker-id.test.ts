/**
 * One live engine per worker id (issue 14, item 6), on both backends. Opening an engine with
 * a worker id whose lease another engine holds live is refused with `worker_id_in_use`
 * (retryable) and leaves the holder's lease and attempts untouched; the id is free again once
 * the holder releases its lease or the lease runs out. A process may still supersede its OWN
 * lease (the lease keeper after a forfeit), never another's. On an embedded data directory
 * the opener holds the directory lock, so a lease left live in it belongs to a process that
 * died: it is released at open and the worker id can be reused at once after a crash.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { DbRole } from "../../src/db/db.js";
import { openDatabase } from "../../src/db/open.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { registerWorker, releaseWorker } from "../../src/ledger/worker-leases.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { expectDbError } from "../support/expect-db-error.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describeEachBackend("engine: one live engine per worker id", (backend) => {
  let f: EngineFixture;
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  async function leaseRows(workerId: string): Promise<Array<{ token: number; event: string }>> {
    const { rows } = await f.ledger.read.query<{ token: number; event: string }>(
      "SELECT fencing_token AS token, event FROM worker_leases WHERE worker_id = $1 ORDER BY lease_seq",
      [workerId],
    );
    return rows;
  }

  it("a second engine with a live engine's worker id is refused; the first keeps its lease and its work", async () => {
    f = await openEngineFixture(backend, { workerId: "worker-a" });
    const before = await leaseRows("worker-a");
    const err = await expectDbError(f.openAnother("worker-a"), "worker_id_in_use");
    expect(err.retryable).toBe(true);
    expect(err.details).toMatchObject({ worker_id: "worker-a" });
    expect(err.details["live_until"]).toEqual(expect.any(String));
    expect(await leaseRows("worker-a")).toEqual(before);

    const { effectId } = await f.irrevon.register(orderContract());
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({
      status: "dispatched",
      lifecycle: "SETTLED_COMMITTED",
    });
    const { rows } = await f.ledger.read.query<{ worker: string; token: number }>(
      "SELECT recorded_by_worker AS worker, fencing_token AS token FROM dispatch_receipts",
    );
    expect(rows).toEqual([{ worker: "worker-a", token: before[0]?.token }]);
  });

  it("the id is free again once its holder closes", async () => {
    f = await openEngineFixture(backend, { workerId: "worker-a" });
    const b = await f.openAnother("worker-b");
    await b.close();
    const again = await f.openAnother("worker-b");
    expect(again.workerId).toBe("worker-b");
  });

  it("lease SQL: refused while live, free once expired or released; only the holder's own token supersedes it", async () => {
    f = await openEngineFixture(backend, { workerId: "worker-a" });
    const db = f.ledger.app;
    const live = await registerWorker(db, "sql-worker", 60_000);
    await expectDbError(registerWorker(db, "sql-worker", 60_000), "worker_id_in_use");
    await expectDbError(
      registerWorker(db, "sql-worker", 60_000, live.fencingToken + 1_000),
      "worker_id_in_use",
    );
    const own = await registerWorker(db, "sql-worker", 60_000, live.fencingToken);
    expect(own.fencingToken).toBeGreaterThan(live.fencingToken);
    await expectDbError(
      registerWorker(db, "sql-worker", 60_000, live.fencingToken),
      "worker_id_in_use",
    );
    await releaseWorker(db, own);
    await registerWorker(db, "sql-worker", 60_000);

    await registerWorker(db, "sql-expiring", 200);
    await sleep(400); // at least that long: the 200 ms lease has run out (database clock)
    await registerWorker(db, "sql-expiring", 60_000);
  });
});

describe("engine: a worker id reused after a crash on an embedded data directory [pglite]", () => {
  it(
    "a lease a dead process left live is released at open; the same worker id opens",
    { timeout: 180_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "irrevon-worker-id-"));
      try {
        const dataDir = join(dir, "ledger");
        // The "crashed" process: registered a lease, then let go of the directory without releasing it.
        const crashed = await openDatabase({ dataDir, role: DbRole.app, autoMigrate: true });
        await registerWorker(crashed, "embedded-1", 60_000);
        await crashed.close();
        const irrevon = await openIrrevon({
          database: { dataDir },
          adapters: [
            new RefdestAdapter({
              baseUrl: "http://127.0.0.1:4100",
              declaration: refdestDeclaration("C2"),
              transport: createInProcessTransport(createRefdest({ tier: "C2", seed: 42 })),
            }),
          ],
          workerId: "embedded-1",
          crashPoints: NO_CRASH_POINTS,
        });
        const { rows } = await irrevon.db.query<{ event: string }>(
          "SELECT event FROM worker_leases WHERE worker_id = 'embedded-1' ORDER BY lease_seq",
        );
        expect(rows.map((r) => r.event)).toEqual(["register", "release", "register"]);
        await irrevon.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
