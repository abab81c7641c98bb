/**
 * The 35 attachment cells (7 frontiers × 5 classifications) through ledger_attach_finding on
 * both backends: the 6 legal cells write one finding, the rest raise DT003 and write nothing.
 * ORPHANED never attaches to a record and is the only record-less class; CONFIRMED_UNIQUE is
 * accepted and closed in the same call; DUPLICATE needs an excess count.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  CLASSIFICATION_ATTACHMENTS,
  CLASSIFICATIONS,
  LIFECYCLE_STATES,
} from "../../src/core/state-tables.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import { attachFinding, countRows, effectAt } from "../support/ledger-fixtures.js";

describeEachBackend("attachment matrix", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
  });
  afterEach(async () => {
    await l.close();
  });

  it("legal cells write exactly one finding; the other cells raise DT003 and write nothing", async () => {
    let cells = 0;
    let legalCells = 0;
    for (const frontier of LIFECYCLE_STATES) {
      const ex = await effectAt(frontier === "INTENDED" ? l.superuser : l.app, frontier);
      for (const classification of CLASSIFICATIONS) {
        cells++;
        const legal = CLASSIFICATION_ATTACHMENTS.some(
          (c) => c.frontier === frontier && c.classification === classification,
        );
        const before = await countRows(l.superuser, "findings");
        if (legal) {
          legalCells++;
          const id = await attachFinding(l.app, ex.effectId, classification);
          expect(id).toBeGreaterThan(0);
          expect(await countRows(l.superuser, "findings")).toBe(before + 1);
        } else {
          await expectDbError(
            attachFinding(l.app, ex.effectId, classification),
            "illegal_state",
            "DT003",
          );
          expect(await countRows(l.superuser, "findings")).toBe(before);
        }
      }
    }
    expect({ cells, legalCells }).toEqual({ cells: 35, legalCells: 6 });
    await expectAuditClean(l);
  });

  it("ORPHANED is record-less only; record-less findings of other classes are DT003", async () => {
    const orphan = await attachFinding(l.app, null, "ORPHANED", {
      destinationRef: "ext-1",
      createdBy: "sweep",
    });
    expect(orphan).toBeGreaterThan(0);
    for (const classification of CLASSIFICATIONS.filter((c) => c !== "ORPHANED")) {
      await expectDbError(
        attachFinding(l.app, null, classification, { destinationRef: "ext-2" }),
        "illegal_state",
        "DT003",
      );
    }
    // One orphan per (adapter, destination_ref).
    await expectDbError(
      attachFinding(l.app, null, "ORPHANED", { destinationRef: "ext-1", createdBy: "sweep" }),
      "storage_error",
      "23505",
    );
    expect(await countRows(l.superuser, "findings")).toBe(1);
    await expectAuditClean(l);
  });

  it("CONFIRMED_UNIQUE is auto-accepted and closed by actor system in the same call", async () => {
    const ex = await effectAt(l.app, "SETTLED_COMMITTED");
    const id = await attachFinding(l.app, ex.effectId, "CONFIRMED_UNIQUE");
    const { rows } = await l.read.query<{
      from_status: string;
      to_status: string;
      actor: string;
      evidence: unknown;
    }>(
      "SELECT from_status, to_status, actor, evidence FROM finding_resolutions WHERE finding_id = $1 ORDER BY resolution_seq",
      [id],
    );
    expect(rows).toEqual([
      {
        from_status: "OPEN",
        to_status: "ACCEPTED_AS_IS",
        actor: "system",
        evidence: { auto: "confirmed_unique_settle" },
      },
      {
        from_status: "ACCEPTED_AS_IS",
        to_status: "CLOSED",
        actor: "system",
        evidence: { auto: "confirmed_unique_settle" },
      },
    ]);
    await expectAuditClean(l);
  });

  it("DUPLICATE needs excess_effect_count >= 1 (DT005); bad evidence or creator is DT005; unknown record is DT005", async () => {
    const ex = await effectAt(l.app, "SETTLED_COMMITTED");
    await expectDbError(
      attachFinding(l.app, ex.effectId, "DUPLICATE", { excess: 0 }),
      "illegal_state",
      "DT005",
    );
    await expectDbError(
      l.app.query(
        "SELECT ledger_attach_finding($1, 'refdest', NULL, 'DUPLICATE', 1, '\"x\"'::jsonb, 'd', 'reconciler')",
        [ex.effectId],
      ),
      "illegal_state",
      "DT005",
    );
    await expectDbError(
      attachFinding(l.app, ex.effectId, "DUPLICATE", { createdBy: "model" }),
      "illegal_state",
      "DT005",
    );
    await expectDbError(
      attachFinding(l.app, "f".repeat(64), "DUPLICATE"),
      "illegal_state",
      "DT005",
    );
    expect(await countRows(l.superuser, "findings")).toBe(0);
    const id = await attachFinding(l.app, ex.effectId, "DUPLICATE", { excess: 2 });
    expect(id).toBeGreaterThan(0);
    await expectAuditClean(l);
  });
});
