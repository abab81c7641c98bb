/**
 * Resolution legality through ledger_resolve on both backends: the 20 class × action cells
 * from OPEN (13 legal), then every (class, reachable status, target status) combination:
 * legal iff the status edge is legal and, when entering an action, the class allows it.
 * DUPLICATE is never REDISPATCHED, not even after escalation; OPEN → CLOSED is illegal;
 * a stale from_status loses with DT002.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  CLASSIFICATIONS,
  RESOLUTION_ACTIONS,
  RESOLUTION_ACTION_CELLS,
  RESOLUTION_STATUSES,
  isLegalResolution,
  type Classification,
  type ResolutionStatus,
} from "../../src/core/state-tables.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import {
  attachFinding,
  effectAt,
  insertProbe,
  resolve,
  sha256Hex,
} from "../support/ledger-fixtures.js";

async function resolutionsOf(l: TestLedger, findingId: number): Promise<number> {
  const { rows } = await l.superuser.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM finding_resolutions WHERE finding_id = $1",
    [findingId],
  );
  return Number(rows[0]?.n);
}

/**
 * ledger_resolve as irrevon_app, citing as `absent_probe_id` the newest probe of the finding's
 * effect (what an edge into REDISPATCHED must cite; other edges ignore it).
 */
async function resolveCiting(
  l: TestLedger,
  findingId: number,
  from: string,
  to: string,
  actor = "human",
): Promise<number> {
  const { rows } = await l.superuser.query<{ id: unknown }>(
    `SELECT max(p.probe_id) AS id FROM findings f JOIN effect_executions x ON x.effect_id = f.effect_id
       JOIN status_probes p ON p.execution_id = x.execution_id WHERE f.finding_id = $1`,
    [findingId],
  );
  const probe = rows[0]?.id;
  return resolve(l.app, findingId, from, to, actor, {
    note: "test",
    ...(probe === null || probe === undefined ? {} : { absent_probe_id: Number(probe) }),
  });
}

/** An OPEN finding of `classification`, created through the functions where they allow it. */
async function openFinding(l: TestLedger, classification: Classification): Promise<number> {
  switch (classification) {
    case "ORPHANED":
      return attachFinding(l.app, null, "ORPHANED", { createdBy: "sweep" });
    case "LOST": {
      // The absence a re-dispatch must cite (sql/migrations/0045): an ABSENT read of the failed execution.
      const failed = await effectAt(l.app, "SETTLED_FAILED");
      await insertProbe(l.app, failed.executionId, "ABSENT");
      return attachFinding(l.app, failed.effectId, "LOST");
    }
    case "DUPLICATE":
    case "CONTRADICTED":
      return attachFinding(
        l.app,
        (await effectAt(l.app, "SETTLED_COMMITTED")).effectId,
        classification,
      );
    case "CONFIRMED_UNIQUE": {
      // The function closes CONFIRMED_UNIQUE at once, so an OPEN one exists only if planted;
      // the superuser inserts it to test the matrix cells (the auditor accepts an open chain).
      const ex = await effectAt(l.app, "SETTLED_COMMITTED");
      const { rows } = await l.superuser.query<{ finding_id: number }>(
        `INSERT INTO findings (effect_id, adapter_id, classification, evidence, evidence_digest, created_by)
         VALUES ($1, 'refdest', 'CONFIRMED_UNIQUE', '{}'::jsonb, $2, 'reconciler') RETURNING finding_id`,
        [ex.effectId, `sha256:${sha256Hex("{}")}`],
      );
      return Number(rows[0]?.finding_id);
    }
  }
}

/** A finding of `classification` whose current status is `status`, or undefined if unreachable. */
async function findingAt(
  l: TestLedger,
  classification: Classification,
  status: ResolutionStatus,
): Promise<number | undefined> {
  const paths: Record<ResolutionStatus, ResolutionStatus[][]> = {
    OPEN: [["OPEN"]],
    ESCALATED_HUMAN: [["OPEN", "ESCALATED_HUMAN"]],
    COMPENSATED: [["OPEN", "COMPENSATED"]],
    REDISPATCHED: [["OPEN", "REDISPATCHED"]],
    ACCEPTED_AS_IS: [["OPEN", "ACCEPTED_AS_IS"]],
    CLOSED: [
      ["OPEN", "ACCEPTED_AS_IS", "CLOSED"],
      ["OPEN", "COMPENSATED", "CLOSED"],
    ],
  };
  for (const path of paths[status]) {
    const legal = path
      .slice(1)
      .every((to, i) => isLegalResolution(classification, path[i] ?? "OPEN", to));
    if (!legal) continue;
    const id = await openFinding(l, classification);
    for (let i = 1; i < path.length; i++)
      await resolveCiting(l, id, path[i - 1] ?? "OPEN", path[i] ?? "OPEN");
    return id;
  }
  return undefined;
}

describeEachBackend("resolution matrix", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
  });
  afterEach(async () => {
    await l.close();
  });

  it("the 20 class × action cells from OPEN: 13 legal write one row, 7 raise DT004 and write nothing", async () => {
    let legalCells = 0;
    for (const classification of CLASSIFICATIONS) {
      for (const action of RESOLUTION_ACTIONS) {
        const id = await openFinding(l, classification);
        const before = await resolutionsOf(l, id);
        const legal = RESOLUTION_ACTION_CELLS.some(
          (c) => c.classification === classification && c.action === action,
        );
        if (legal) {
          legalCells++;
          expect(await resolveCiting(l, id, "OPEN", action)).toBeGreaterThan(0);
          expect(await resolutionsOf(l, id)).toBe(before + 1);
        } else {
          await expectDbError(resolveCiting(l, id, "OPEN", action), "resolution_invalid", "DT004");
          expect(await resolutionsOf(l, id)).toBe(before);
        }
      }
    }
    expect(legalCells).toBe(13);
    await expectAuditClean(l);
  });

  it("every reachable (class, status) × target status follows isLegalResolution", async () => {
    let checked = 0;
    for (const classification of CLASSIFICATIONS) {
      for (const from of RESOLUTION_STATUSES) {
        for (const to of RESOLUTION_STATUSES) {
          const id = await findingAt(l, classification, from);
          if (id === undefined) continue;
          checked++;
          const before = await resolutionsOf(l, id);
          if (isLegalResolution(classification, from, to)) {
            await resolveCiting(l, id, from, to);
            expect(await resolutionsOf(l, id)).toBe(before + 1);
          } else {
            await expectDbError(resolveCiting(l, id, from, to), "resolution_invalid", "DT004");
            expect(await resolutionsOf(l, id)).toBe(before);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    await expectAuditClean(l);
  });

  it("DUPLICATE is never REDISPATCHED, also after ESCALATED_HUMAN; escalate → action → CLOSED works", async () => {
    const id = await openFinding(l, "DUPLICATE");
    await expectDbError(
      resolveCiting(l, id, "OPEN", "REDISPATCHED"),
      "resolution_invalid",
      "DT004",
    );
    await resolveCiting(l, id, "OPEN", "ESCALATED_HUMAN");
    await expectDbError(
      resolveCiting(l, id, "ESCALATED_HUMAN", "REDISPATCHED"),
      "resolution_invalid",
      "DT004",
    );
    await resolveCiting(l, id, "ESCALATED_HUMAN", "COMPENSATED");
    await resolveCiting(l, id, "COMPENSATED", "CLOSED", "system");
    await expectDbError(
      resolveCiting(l, id, "CLOSED", "ACCEPTED_AS_IS"),
      "resolution_invalid",
      "DT004",
    );
    expect(await resolutionsOf(l, id)).toBe(3);
    await expectAuditClean(l);
  });

  it("OPEN → CLOSED is illegal; a stale from_status loses with DT002; bad actor or evidence is DT005", async () => {
    const id = await openFinding(l, "LOST");
    await expectDbError(resolveCiting(l, id, "OPEN", "CLOSED"), "resolution_invalid", "DT004");
    await resolveCiting(l, id, "OPEN", "ESCALATED_HUMAN");
    // A second resolver that still believes the finding is OPEN loses.
    await expectDbError(resolveCiting(l, id, "OPEN", "ACCEPTED_AS_IS"), "stale_state", "DT002");
    await expectDbError(
      resolveCiting(l, id, "ESCALATED_HUMAN", "ACCEPTED_AS_IS", "model"),
      "illegal_state",
      "DT005",
    );
    await expectDbError(
      l.app.query(
        "SELECT ledger_resolve($1, 'ESCALATED_HUMAN', 'ACCEPTED_AS_IS', 'human', 'null'::jsonb)",
        [id],
      ),
      "illegal_state",
      "DT005",
    );
    await expectDbError(
      resolve(l.app, 424_242, "OPEN", "ACCEPTED_AS_IS"),
      "illegal_state",
      "DT005",
    );
    expect(await resolutionsOf(l, id)).toBe(1);
    await expectAuditClean(l);
  });
});
