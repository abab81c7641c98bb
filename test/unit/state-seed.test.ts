/**
 * The seed rows in sql/migrations/0002_seed_tables.sql are exactly the TypeScript state
 * tables (parsed from the compiled SQL text, no database): 24 / 6 / 13 / 10 rows.
 * test/integration/ledger-seed.test.ts checks the same against a migrated database.
 */
import { describe, expect, it } from "vitest";
import {
  CLASSIFICATION_ATTACHMENTS,
  LIFECYCLE_EDGES,
  RESOLUTION_ACTION_CELLS,
  RESOLUTION_STATUS_EDGES,
} from "../../src/core/state-tables.js";
import { MIGRATIONS } from "../../src/db/migrations.generated.js";

function seedRows(table: string): (string | null)[][] {
  const file = MIGRATIONS.find((m) => m.filename === "0002_seed_tables.sql");
  if (file === undefined) throw new Error("0002_seed_tables.sql missing");
  const start = file.sql.indexOf(`INSERT INTO ${table} `);
  if (start < 0) throw new Error(`no INSERT for ${table}`);
  const body = file.sql.slice(
    file.sql.indexOf("VALUES", start) + "VALUES".length,
    file.sql.indexOf(";", start),
  );
  return [...body.matchAll(/\(([^)]*)\)/g)].map((m) =>
    (m[1] ?? "").split(",").map((v) => {
      const t = v.trim();
      return t === "NULL" ? null : t.replace(/^'|'$/g, "");
    }),
  );
}

const sorted = (rows: (string | null)[][]) => rows.map((r) => JSON.stringify(r)).sort();

describe("seed tables in 0002 equal src/core/state-tables.ts", () => {
  it("lifecycle_edges: 24 rows", () => {
    const sql = seedRows("lifecycle_edges");
    expect(sql).toHaveLength(24);
    expect(sorted(sql)).toEqual(
      sorted(LIFECYCLE_EDGES.map((e) => [e.from, e.to, e.cause, e.actor])),
    );
  });
  it("classification_attachments: 6 rows", () => {
    const sql = seedRows("classification_attachments");
    expect(sql).toHaveLength(6);
    expect(sorted(sql)).toEqual(
      sorted(CLASSIFICATION_ATTACHMENTS.map((c) => [c.frontier, c.classification])),
    );
  });
  it("resolution_actions: 13 rows", () => {
    const sql = seedRows("resolution_actions");
    expect(sql).toHaveLength(13);
    expect(sorted(sql)).toEqual(
      sorted(RESOLUTION_ACTION_CELLS.map((c) => [c.classification, c.action])),
    );
  });
  it("resolution_status_edges: 10 rows", () => {
    const sql = seedRows("resolution_status_edges");
    expect(sql).toHaveLength(10);
    expect(sorted(sql)).toEqual(sorted(RESOLUTION_STATUS_EDGES.map((e) => [e.from, e.to])));
  });
});
