/**
 * Migrations 0058, 0059 and 0061 (docs/decisions/0013-open-work-indexes.md): the slot-busy
 * check reads the derived index of open attempts, `open_attempt_slots`, instead of walking every
 * attempt ever made in the scope; recovery, the worker cycle and the gauges read the derived
 * index of open executions, `open_executions`, instead of every execution's frontier, and the
 * worker's resolution steps and gauges `open_findings` instead of every finding's resolutions.
 * On both backends:
 *   - settled effects leave no row behind, however many share the scope; an open attempt is
 *     there (and the claim names it as scope_busy); its receipt removes it and frees the slot;
 *   - the open executions listed and counted are exactly the DISPATCHED and AMBIGUOUS ones,
 *     following DISPATCHED → AMBIGUOUS → settled; open findings follow their newest resolution
 *     until CLOSED;
 *   - a ledger migrated with work already open gets exactly those rows;
 *   - no application role can write either index.
 * The auditor's `derived_index` rule (run after every integration test) checks both indexes
 * against their views everywhere else.
 */
import { afterEach, expect, it } from "vitest";
import { DbRole } from "../../src/db/db.js";
import { MIGRATIONS } from "../../src/db/migrations.generated.js";
import { migrate } from "../../src/db/migrator.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { auditLedger } from "../../src/ledger/auditor.js";
import { listOpenExecutions } from "../../src/ledger/open-work.js";
import { readLedgerGauges } from "../../src/ledger/worker-gauges.js";
import type { Queryable } from "../../src/db/db.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { expectAuditClean } from "../support/audit.js";
import {
  describeEachBackend,
  openEmptyDatabase,
  openTestLedger,
  type EmptyDatabase,
  type TestLedger,
} from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import {
  attachFinding,
  dispatch,
  effectAt,
  insertEffect,
  insertReceipt,
  openExecution,
  resolve,
  testIdentity,
  transition,
} from "../support/ledger-fixtures.js";
import { orderContract } from "./engine-support.js";

const SCOPE = "tenant/one";

async function indexRows(
  q: Queryable,
): Promise<{ scope: string; effect_type: string; attempt_id: number }[]> {
  const { rows } = await q.query<{ scope: string; effect_type: string; attempt_id: unknown }>(
    "SELECT scope, effect_type, attempt_id FROM open_attempt_slots ORDER BY attempt_id",
  );
  return rows.map((r) => ({ ...r, attempt_id: Number(r.attempt_id) }));
}

async function openExecutionRows(q: Queryable): Promise<{ execution_id: number; frontier: string }[]> {
  const { rows } = await q.query<{ execution_id: unknown; frontier: string }>(
    "SELECT execution_id, frontier FROM open_executions ORDER BY execution_id",
  );
  return rows.map((r) => ({ ...r, execution_id: Number(r.execution_id) }));
}

/** An engine on a C2 reference destination of its own, every claim taking the slot. */
function engineOn(ledger: TestLedger, workerId: string): Promise<Irrevon> {
  return openIrrevon({
    database: ledger.app,
    adapters: [
      new RefdestAdapter({
        baseUrl: "http://127.0.0.1:4100",
        declaration: refdestDeclaration("C2"),
        transport: createInProcessTransport(createRefdest({ tier: "C2", seed: 3 })),
      }),
    ],
    crashPoints: NO_CRASH_POINTS,
    workerId,
    config: { scopeSlot: "always" },
  });
}

async function openFindingRows(q: Queryable): Promise<{ finding_id: number; status: string }[]> {
  const { rows } = await q.query<{ finding_id: unknown; status: string }>(
    "SELECT finding_id, status FROM open_findings ORDER BY finding_id",
  );
  return rows.map((r) => ({ ...r, finding_id: Number(r.finding_id) }));
}

describeEachBackend("derived indexes of open work", (backend) => {
  let ledger: TestLedger | undefined;
  let empty: EmptyDatabase | undefined;
  afterEach(async () => {
    await ledger?.close();
    ledger = undefined;
    await empty?.close();
    empty = undefined;
  });

  it("settled effects leave nothing in their slot; an open attempt is scope_busy until its receipt", async () => {
    ledger = await openTestLedger(backend);
    const engine = await engineOn(ledger, `open-slots-${backend}`);
    try {
      for (let i = 0; i < 30; i++) {
        const { dispatch: out } = await engine.registerAndDispatch(orderContract({ scope: SCOPE }));
        expect(out).toMatchObject({ status: "dispatched", lifecycle: "SETTLED_COMMITTED" });
      }
      const { rows } = await ledger.superuser.query<{ n: unknown }>(
        `SELECT count(*) AS n FROM dispatch_attempts a JOIN effect_executions x ON x.execution_id = a.execution_id
           JOIN effect_records r ON r.effect_id = x.effect_id WHERE r.scope = $1`,
        [SCOPE],
      );
      expect(Number(rows[0]?.n)).toBe(30);
      expect(await indexRows(ledger.superuser)).toEqual([]);

      // An attempt whose call never reported back, in the same slot.
      const stuck = await insertEffect(ledger.app, {
        identity: testIdentity({ scope: SCOPE, effect_type: "order.create" }),
      });
      const ex = await openExecution(ledger.app, stuck.effectId);
      const { attemptId } = await dispatch(ledger.app, ex);
      expect(await indexRows(ledger.superuser)).toEqual([
        { scope: SCOPE, effect_type: "order.create", attempt_id: attemptId },
      ]);
      const blocked = await engine.registerAndDispatch(orderContract({ scope: SCOPE }));
      expect(blocked.dispatch).toMatchObject({
        status: "scope_busy",
        attemptId,
        blockingEffectId: stuck.effectId,
      });

      // Its receipt (a timeout: the outcome stays unknown, but the call is over) frees the slot.
      const receiptId = await insertReceipt(ledger.app, attemptId, "TIMEOUT");
      await transition(ledger.app, ex.executionId, "DISPATCHED", "AMBIGUOUS", "receipt_timeout", "dispatcher", {
        receipt_id: receiptId,
      });
      expect(await indexRows(ledger.superuser)).toEqual([]);
      const next = await engine.dispatch(blocked.registration.effectId);
      expect(next).toMatchObject({ status: "dispatched", lifecycle: "SETTLED_COMMITTED" });
    } finally {
      await engine.close();
    }
    await expectAuditClean(ledger);
  });

  it("a worker cycle reclaims the rows the indexes dropped on the embedded ledger; a server's autovacuum does it there", async () => {
    ledger = await openTestLedger(backend);
    const engine = await engineOn(ledger, `open-maintain-${backend}`);
    try {
      for (let i = 0; i < 40; i++) {
        const { dispatch: out } = await engine.registerAndDispatch(orderContract());
        expect(out).toMatchObject({ lifecycle: "SETTLED_COMMITTED" });
      }
      const sizes = async (): Promise<number[]> => {
        const { rows } = await ledger!.superuser.query<{ a: unknown; e: unknown }>(
          "SELECT pg_relation_size('open_attempt_slots') AS a, pg_relation_size('open_executions') AS e",
        );
        return [Number(rows[0]?.a), Number(rows[0]?.e)];
      };
      expect(await indexRows(ledger.superuser)).toEqual([]);
      expect(await openExecutionRows(ledger.superuser)).toEqual([]);
      if (backend === "pglite") {
        // Forty rows added and deleted in each: their pages stay until a VACUUM.
        for (const size of await sizes()) expect(size).toBeGreaterThan(0);
        expect((await engine.cycle({ sweep: false })).errors).toEqual([]);
        expect(await sizes()).toEqual([0, 0]);
      } else {
        expect(ledger.app.maintain).toBeUndefined();
        expect((await engine.cycle({ sweep: false })).errors).toEqual([]);
      }
    } finally {
      await engine.close();
    }
    await expectAuditClean(ledger);
  });

  it("no application role writes either index", async () => {
    ledger = await openTestLedger(backend);
    const ex = await effectAt(ledger.app, "DISPATCHED");
    const before = await indexRows(ledger.superuser);
    expect(before).toHaveLength(1);
    // irrevon_app lacks the privilege; irrevon_read's sessions are read-only before that.
    const executions = await openExecutionRows(ledger.superuser);
    expect(executions).toEqual([{ execution_id: ex.executionId, frontier: "DISPATCHED" }]);
    for (const [role, sqlstate] of [
      [ledger.app, "42501"],
      [ledger.read, "25006"],
    ] as const) {
      for (const sql of [
        "DELETE FROM open_attempt_slots",
        "INSERT INTO open_attempt_slots (scope, effect_type, attempt_id, effect_id) VALUES ('s', 't', 1, 'e')",
        "UPDATE open_attempt_slots SET scope = 'x'",
        "DELETE FROM open_executions",
        "INSERT INTO open_executions (execution_id, frontier) VALUES (999999, 'AMBIGUOUS')",
        "UPDATE open_executions SET frontier = 'AMBIGUOUS'",
        "DELETE FROM open_findings",
        "INSERT INTO open_findings (finding_id, status) VALUES (999999, 'OPEN')",
        "UPDATE open_findings SET status = 'OPEN'",
      ])
        await expectDbError(role.query(sql), "privilege_denied", sqlstate);
    }
    expect(await indexRows(ledger.superuser)).toEqual(before);
    expect(await openExecutionRows(ledger.superuser)).toEqual(executions);
    // The trigger functions run as the owner, with a pinned search_path, and nobody calls them.
    for (const fn of [
      "irrevon_open_attempt_add()",
      "irrevon_open_attempt_close()",
      "irrevon_open_execution_track()",
      "irrevon_open_finding_add()",
      "irrevon_open_finding_track()",
    ]) {
      const { rows } = await ledger.superuser.query<Record<string, unknown>>(
        `SELECT pg_get_userbyid(p.proowner) AS owner, p.prosecdef AS secdef, p.proconfig AS config,
                has_function_privilege('irrevon_app', p.oid, 'EXECUTE') AS app,
                has_function_privilege('irrevon_read', p.oid, 'EXECUTE') AS rd,
                EXISTS (SELECT 1 FROM aclexplode(p.proacl) a WHERE a.grantee = 0) AS pub
           FROM pg_proc p WHERE p.oid = $1::regprocedure`,
        [fn],
      );
      expect({ fn, ...rows[0] }).toEqual({
        fn,
        owner: "irrevon_owner",
        secdef: true,
        config: ["search_path=public, pg_temp"],
        app: false,
        rd: false,
        pub: false,
      });
    }
    expect(ex.executionId).toBeGreaterThan(0);
  });

  it("a ledger migrated with work already open gets exactly that work in the indexes", async () => {
    empty = await openEmptyDatabase(backend);
    const at = MIGRATIONS.findIndex((m) => m.filename.startsWith("0058_"));
    expect(at).toBeGreaterThan(0);
    await migrate(empty.db, MIGRATIONS.slice(0, at));
    const app = empty.db.as(DbRole.app);
    const open = await effectAt(app, "DISPATCHED");
    await effectAt(app, "SETTLED_COMMITTED");
    const ambiguous = await effectAt(app, "AMBIGUOUS");
    await effectAt(app, "SETTLED_FAILED");
    const committed = await effectAt(app, "SETTLED_COMMITTED");
    const duplicate = await attachFinding(app, committed.effectId, "DUPLICATE", { excess: 1 });
    await resolve(app, duplicate, "OPEN", "ESCALATED_HUMAN");
    await attachFinding(app, committed.effectId, "CONFIRMED_UNIQUE"); // closed at once
    const { rows } = await empty.db.query<{ attempt_id: unknown; scope: string }>(
      `SELECT a.attempt_id, r.scope FROM dispatch_attempts a JOIN effect_records r ON r.effect_id = $1
        WHERE a.execution_id = $2`,
      [open.effectId, open.executionId],
    );
    await migrate(empty.db);
    expect(await indexRows(empty.db)).toEqual([
      { scope: rows[0]?.scope, effect_type: "order.create", attempt_id: Number(rows[0]?.attempt_id) },
    ]);
    expect(await openExecutionRows(empty.db)).toEqual([
      { execution_id: open.executionId, frontier: "DISPATCHED" },
      { execution_id: ambiguous.executionId, frontier: "AMBIGUOUS" },
    ]);
    expect(await openFindingRows(empty.db)).toEqual([
      { finding_id: duplicate, status: "ESCALATED_HUMAN" },
    ]);
    expect(await auditLedger(empty.db.as(DbRole.read))).toEqual([]);
  });

  it("open findings follow their newest resolution until CLOSED, and the gauge counts them", async () => {
    ledger = await openTestLedger(backend);
    const committed = await effectAt(ledger.app, "SETTLED_COMMITTED");
    await attachFinding(ledger.app, committed.effectId, "CONFIRMED_UNIQUE"); // accepted and closed at once
    expect(await openFindingRows(ledger.superuser)).toEqual([]);
    const dup = await attachFinding(ledger.app, committed.effectId, "DUPLICATE", { excess: 1 });
    expect(await openFindingRows(ledger.superuser)).toEqual([{ finding_id: dup, status: "OPEN" }]);
    await resolve(ledger.app, dup, "OPEN", "ESCALATED_HUMAN");
    expect(await openFindingRows(ledger.superuser)).toEqual([
      { finding_id: dup, status: "ESCALATED_HUMAN" },
    ]);
    await resolve(ledger.app, dup, "ESCALATED_HUMAN", "ACCEPTED_AS_IS");
    expect(await readLedgerGauges(ledger.app)).toMatchObject({ openFindings: 1 });
    await resolve(ledger.app, dup, "ACCEPTED_AS_IS", "CLOSED");
    expect(await openFindingRows(ledger.superuser)).toEqual([]);
    expect(await readLedgerGauges(ledger.app)).toMatchObject({ openFindings: 0 });
    await expectAuditClean(ledger);
  });

  it("a receipt asks the open findings whether its commit closes a resolution, not every finding", async () => {
    ledger = await openTestLedger(backend);
    // History: closed findings (a present answer's CONFIRMED_UNIQUE closes at once) and one
    // open finding of another effect that no commit closes.
    const settled = await effectAt(ledger.app, "SETTLED_COMMITTED");
    for (let i = 0; i < 25; i++) await attachFinding(ledger.app, settled.effectId, "CONFIRMED_UNIQUE");
    const dup = await attachFinding(ledger.app, settled.effectId, "DUPLICATE", { excess: 1 });
    await resolve(ledger.app, dup, "OPEN", "ESCALATED_HUMAN");

    const ex = await effectAt(ledger.app, "DISPATCHED");
    const { rows: attempts } = await ledger.app.query<{ attempt_id: unknown }>(
      "SELECT attempt_id FROM dispatch_attempts WHERE execution_id = $1",
      [ex.executionId],
    );
    const read = await ledger.app.transaction(async (tx) => {
      // The findings rows this session has read and not yet reported (every backend keeps
      // them until it flushes its statistics, never inside a transaction), before and after.
      const findingsRead = async (): Promise<number> => {
        const { rows } = await tx.query<{ n: unknown }>(
          `SELECT seq_tup_read + idx_tup_fetch AS n FROM pg_stat_xact_user_tables WHERE relname = 'findings'`,
        );
        return Number(rows[0]?.n ?? 0);
      };
      const before = await findingsRead();
      const { rows } = await tx.query<{ r: { status: string; lifecycle: string; closes: boolean } }>(
        `SELECT ledger_record_receipt($1, $2, 'OK', NULL, 'ref-1', NULL, '{}'::jsonb, 'sha256:e',
                                      'dispatcher', NULL, NULL, 'SETTLED_COMMITTED', 'receipt_ok', 'dispatcher') AS r`,
        [Number(attempts[0]?.attempt_id), ex.executionId],
      );
      return { result: rows[0]?.r, findingsRead: (await findingsRead()) - before };
    });
    expect(read.result).toMatchObject({ status: "recorded", lifecycle: "SETTLED_COMMITTED", closes: false });
    // The check computed the status of all 26 findings before (a scan, three lookups each).
    expect(read.findingsRead).toBe(0);
    await expectAuditClean(ledger);
  });

  it("open executions are exactly the DISPATCHED and AMBIGUOUS ones, listed and counted", async () => {
    ledger = await openTestLedger(backend);
    for (const state of ["SETTLED_COMMITTED", "SETTLED_FAILED", "CANCELLED", "PERSISTED"] as const)
      for (let i = 0; i < 3; i++) await effectAt(ledger.app, state);
    expect(await listOpenExecutions(ledger.app)).toEqual([]);
    const ex = await effectAt(ledger.app, "DISPATCHED");
    const listed = await listOpenExecutions(ledger.app);
    expect(listed).toEqual([
      {
        executionId: ex.executionId,
        effectId: ex.effectId,
        step: 0,
        operationId: ex.operationId,
        openedBy: "register",
        frontier: "DISPATCHED",
      },
    ]);
    const { rows } = await ledger.app.query<{ attempt_id: unknown }>(
      "SELECT attempt_id FROM dispatch_attempts WHERE execution_id = $1",
      [ex.executionId],
    );
    const receiptId = await insertReceipt(ledger.app, Number(rows[0]?.attempt_id), "TIMEOUT");
    await transition(ledger.app, ex.executionId, "DISPATCHED", "AMBIGUOUS", "receipt_timeout", "dispatcher", {
      receipt_id: receiptId,
    });
    expect((await listOpenExecutions(ledger.app)).map((e) => e.frontier)).toEqual(["AMBIGUOUS"]);
    expect(await readLedgerGauges(ledger.app)).toMatchObject({
      openExecutions: 1,
      ambiguousExecutions: 1,
    });
    // Keyset paging past the only one: nothing.
    expect(await listOpenExecutions(ledger.app, 10, ex.executionId)).toEqual([]);
    await expectAuditClean(ledger);
  });
});
