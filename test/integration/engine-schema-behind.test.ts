/**
 * An engine refuses, at open, a ledger whose schema is behind its compiled migrations (issue
 * 14, item 7) with `schema_behind` (not retryable: someone must run `irrevon migrate`),
 * instead of opening and failing later with a raw `storage_error` — on both backends, through
 * a caller's Db handle and (Postgres) a URL; a database never migrated is behind too. Once
 * migrated, the same database opens.
 */
import { afterEach, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import type { DatabaseOption } from "../../src/engine/open-database.js";
import { assertSchemaCurrent, migrate, migrationSha256 } from "../../src/db/migrator.js";
import { MIGRATIONS } from "../../src/db/migrations.generated.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import {
  describeEachBackend,
  openEmptyDatabase,
  type EmptyDatabase,
} from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";

function open(database: DatabaseOption): ReturnType<typeof openIrrevon> {
  return openIrrevon({
    database,
    adapters: [
      new RefdestAdapter({
        baseUrl: "http://127.0.0.1:4100",
        declaration: refdestDeclaration("C2"),
        transport: createInProcessTransport(createRefdest({ tier: "C2", seed: 42 })),
      }),
    ],
    workerId: "schema-check",
    crashPoints: NO_CRASH_POINTS,
  });
}

describeEachBackend("engine open: a ledger schema behind the code", (backend) => {
  let empty: EmptyDatabase | undefined;
  afterEach(async () => {
    await empty?.close();
    empty = undefined;
  });

  it(
    "refuses a ledger missing the newest migration with schema_behind; opens once migrated",
    { timeout: 180_000 },
    async () => {
      empty = await openEmptyDatabase(backend);
      await migrate(empty.db, MIGRATIONS.slice(0, -1));
      const err = await expectDbError(open(empty.db), "schema_behind");
      expect(err.retryable).toBe(false);
      if (empty.url !== undefined) await expectDbError(open({ url: empty.url }), "schema_behind");
      await migrate(empty.db);
      const irrevon = await open(empty.db);
      await irrevon.close();
    },
  );

  it("refuses a database that was never migrated", { timeout: 180_000 }, async () => {
    empty = await openEmptyDatabase(backend);
    await expectDbError(open(empty.db), "schema_behind");
    if (empty.url !== undefined) await expectDbError(open({ url: empty.url }), "schema_behind");
  });

  it(
    "names the migrations the ledger lacks when its journal is readable",
    { timeout: 180_000 },
    async () => {
      empty = await openEmptyDatabase(backend);
      await migrate(empty.db);
      const later = {
        filename: "9999_later.sql",
        sql: "SELECT 1;",
        sha256: migrationSha256("SELECT 1;"),
      };
      await assertSchemaCurrent(empty.db.as("irrevon_app"));
      const err = await expectDbError(
        assertSchemaCurrent(empty.db.as("irrevon_app"), [...MIGRATIONS, later]),
        "schema_behind",
      );
      expect(err.details).toMatchObject({ missing: ["9999_later.sql"] });
    },
  );
});
