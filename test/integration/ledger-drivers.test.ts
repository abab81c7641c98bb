/**
 * Driver behaviour: the embedded data directory is owned by one process (ledger_locked, stale
 * locks taken over); handles act as their role; PGlite transactions queue instead of
 * interleaving; a swallowed statement error never commits; an unreachable server is
 * storage_unavailable (retryable); ids come back as numbers on both backends.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DbRole } from "../../src/db/db.js";
import { LOCK_FILE_NAME } from "../../src/db/data-dir-lock.js";
import { openPostgres, openPostgresPrivileged } from "../../src/db/pg-driver.js";
import { openPglite } from "../../src/db/pglite-driver.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import { insertEffect } from "../support/ledger-fixtures.js";

describe("embedded data directory lock", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-lock-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a second opener with ledger_locked naming the directory, and releases on close", async () => {
    const first = await openPglite({ dataDir: dir });
    try {
      const err = await expectDbError(openPglite({ dataDir: dir }), "ledger_locked");
      expect(err.details["data_dir"]).toBe(dir);
      expect(err.details["pid"]).toBe(process.pid);
    } finally {
      await first.close();
    }
    const again = await openPglite({ dataDir: dir });
    await again.close();
  });

  it("takes over a lock whose process is dead", async () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    writeFileSync(join(dir, LOCK_FILE_NAME), `${dead.stdout}\n`);
    const db = await openPglite({ dataDir: dir });
    await db.close();
  });
});

describeEachBackend("drivers", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
  });
  afterEach(async () => {
    await l.close();
  });

  it("each handle acts as its role, also inside transactions, and the role never leaks", async () => {
    for (const role of Object.values(DbRole)) {
      const db = l.superuser.as(role);
      expect(db.role).toBe(role);
      const q = await db.query<{ who: string }>("SELECT current_user AS who");
      const t = await db.transaction((tx) =>
        tx.query<{ who: string }>("SELECT current_user AS who"),
      );
      expect([q.rows[0]?.who, t.rows[0]?.who]).toEqual([role, role]);
    }
    const su = await l.superuser.query<{ su: boolean }>(
      "SELECT rolsuper AS su FROM pg_roles WHERE rolname = current_user",
    );
    expect(su.rows[0]?.su).toBe(true);
  });

  it("a failed statement whose error the callback swallows does not commit the transaction", async () => {
    const before = await l.superuser.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM effect_records",
    );
    await expectDbError(
      l.app.transaction(async (tx) => {
        await insertEffect(tx);
        await tx.query("SELECT 1/0").catch(() => undefined);
      }),
      "storage_error",
      "25P02",
    );
    const after = await l.superuser.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM effect_records",
    );
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
  });

  it("concurrent transactions do not interleave and ids are JS numbers", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        l.app.transaction(async (tx) => {
          const e = await insertEffect(tx);
          const d = await tx.query<{ id: number }>(
            "INSERT INTO deny_entries (scope, reason) VALUES ($1, 'r') RETURNING deny_id AS id",
            [e.identity.scope],
          );
          return d.rows[0]?.id;
        }),
      ),
    );
    for (const id of results) expect(typeof id).toBe("number");
    expect(new Set(results).size).toBe(8);
  });

  it("a rolled-back transaction leaves nothing behind", async () => {
    await expect(
      l.app.transaction(async (tx) => {
        await insertEffect(tx);
        throw new Error("caller changed its mind");
      }),
    ).rejects.toThrow();
    const { rows } = await l.superuser.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM effect_records",
    );
    expect(rows[0]?.n).toBe(0);
  });
});

describe("unreachable server", () => {
  it("is storage_unavailable and retryable", async () => {
    const url = "postgres://postgres@127.0.0.1:1/postgres";
    const err = await expectDbError(openPostgres({ url, role: DbRole.app }), "storage_unavailable");
    expect(err.retryable).toBe(true);
    const err2 = await expectDbError(openPostgresPrivileged({ url }), "storage_unavailable");
    expect(err2.retryable).toBe(true);
  });
});
