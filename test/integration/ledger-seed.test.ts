/**
 * The four seed tables of a migrated database equal src/core/state-tables.ts, on both backends.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  CLASSIFICATION_ATTACHMENTS,
  LIFECYCLE_EDGES,
  RESOLUTION_ACTION_CELLS,
  RESOLUTION_STATUS_EDGES,
} from "../../src/core/state-tables.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";

const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

describeEachBackend("seed tables", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
  });
  afterEach(async () => {
    await l.close();
  });

  it("equal the TypeScript state tables (24 / 6 / 13 / 10)", async () => {
    const lifecycle = await l.read.query<{
      from_state: string | null;
      to_state: string;
      cause: string;
      actor: string;
    }>("SELECT * FROM lifecycle_edges");
    expect(sorted(lifecycle.rows.map((r) => [r.from_state, r.to_state, r.cause, r.actor]))).toEqual(
      sorted(LIFECYCLE_EDGES.map((e) => [e.from, e.to, e.cause, e.actor])),
    );
    const attach = await l.read.query<{ frontier: string; classification: string }>(
      "SELECT * FROM classification_attachments",
    );
    expect(sorted(attach.rows.map((r) => [r.frontier, r.classification]))).toEqual(
      sorted(CLASSIFICATION_ATTACHMENTS.map((c) => [c.frontier, c.classification])),
    );
    const actions = await l.read.query<{ classification: string; action: string }>(
      "SELECT * FROM resolution_actions",
    );
    expect(sorted(actions.rows.map((r) => [r.classification, r.action]))).toEqual(
      sorted(RESOLUTION_ACTION_CELLS.map((c) => [c.classification, c.action])),
    );
    const edges = await l.read.query<{ from_status: string; to_status: string }>(
      "SELECT * FROM resolution_status_edges",
    );
    expect(sorted(edges.rows.map((r) => [r.from_status, r.to_status]))).toEqual(
      sorted(RESOLUTION_STATUS_EDGES.map((e) => [e.from, e.to])),
    );
    expect([lifecycle.rowCount, attach.rowCount, actions.rowCount, edges.rowCount]).toEqual([
      24, 6, 13, 10,
    ]);
  });

  it("the authority policy default is seeded: '*' → 24 hours", async () => {
    const { rows } = await l.read.query<{ scope_pattern: string; hours: number }>(
      "SELECT scope_pattern, (extract(epoch FROM max_age) / 3600)::int AS hours FROM authority_policies",
    );
    expect(rows).toEqual([{ scope_pattern: "*", hours: 24 }]);
  });
});
