/**
 * The append-only ledger and the role split, on both backends: UPDATE, DELETE and TRUNCATE
 * fail on every fact and seed table for irrevon_app, irrevon_owner and the superuser (even
 * when no row matches); irrevon_app cannot write lifecycle, finding or resolution rows
 * directly; irrevon_read cannot write anything; the D5 CHECK ties an attempt's key to its
 * operation id.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import type { ErrorCode } from "../../src/core/errors.js";
import type { Db } from "../../src/db/db.js";
import {
  APP_INSERT_TABLES,
  APP_LOCKABLE_TABLES,
  FACT_TABLES,
  LOCKED_FUNCTIONS,
  SEED_TABLES,
} from "../../src/db/ledger-tables.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";
import {
  countRows,
  dispatch,
  effectAt,
  insertEffect,
  openExecution,
} from "../support/ledger-fixtures.js";

const GUARDED = [...FACT_TABLES, ...SEED_TABLES];

/** A column to name in a no-op UPDATE (not an identity column, which fails before any trigger). */
async function firstColumn(l: TestLedger, table: string): Promise<string> {
  const { rows } = await l.superuser.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND is_identity = 'NO' ORDER BY ordinal_position LIMIT 1",
    [table],
  );
  const c = rows[0]?.column_name;
  if (c === undefined) throw new Error(`no columns for ${table}`);
  return c;
}

async function expectRewritesRefused(
  l: TestLedger,
  db: Db,
  expected: (table: string, op: "UPDATE" | "DELETE" | "TRUNCATE") => ErrorCode,
): Promise<void> {
  for (const table of GUARDED) {
    const col = await firstColumn(l, table);
    const before = await countRows(l.superuser, table);
    await expectDbError(db.query(`UPDATE ${table} SET ${col} = ${col}`), expected(table, "UPDATE"));
    await expectDbError(
      db.query(`UPDATE ${table} SET ${col} = ${col} WHERE false`),
      expected(table, "UPDATE"),
    );
    await expectDbError(db.query(`DELETE FROM ${table}`), expected(table, "DELETE"));
    await expectDbError(db.query(`TRUNCATE ${table} CASCADE`), expected(table, "TRUNCATE"));
    expect(await countRows(l.superuser, table)).toBe(before);
  }
}

describeEachBackend("append-only and privileges", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
    // Rows in every table the fixtures can reach, so a refused statement had something to hit.
    const ex = await effectAt(l.app, "SETTLED_COMMITTED");
    await l.app.query(
      "SELECT ledger_attach_finding($1, 'refdest', NULL, 'CONFIRMED_UNIQUE', NULL, '{}'::jsonb, 'd', 'reconciler')",
      [ex.effectId],
    );
  });
  afterEach(async () => {
    await l.close();
  });

  it("irrevon_owner: UPDATE, DELETE and TRUNCATE raise append_only_violation on every fact and seed table", async () => {
    await expectRewritesRefused(l, l.owner, () => "append_only_violation");
  });

  it("the superuser is refused too", async () => {
    await expectRewritesRefused(l, l.superuser, () => "append_only_violation");
  });

  it("irrevon_app: UPDATE reaches the trigger only where it may lock rows; everything else is privilege_denied", async () => {
    await expectRewritesRefused(l, l.app, (table, op) =>
      op === "UPDATE" && (APP_LOCKABLE_TABLES as readonly string[]).includes(table)
        ? "append_only_violation"
        : "privilege_denied",
    );
  });

  it("irrevon_app can SELECT … FOR UPDATE the slot and record rows", async () => {
    const e = await insertEffect(l.app);
    await l.app.transaction(async (tx) => {
      await tx.query("INSERT INTO scope_slots (scope, effect_type) VALUES ($1, $2)", [
        e.identity.scope,
        e.identity.effect_type,
      ]);
      const slot = await tx.query(
        "SELECT 1 FROM scope_slots WHERE scope = $1 AND effect_type = $2 FOR UPDATE",
        [e.identity.scope, e.identity.effect_type],
      );
      const rec = await tx.query("SELECT 1 FROM effect_records WHERE effect_id = $1 FOR UPDATE", [
        e.effectId,
      ]);
      expect([slot.rowCount, rec.rowCount]).toEqual([1, 1]);
    });
  });

  it("irrevon_app cannot INSERT lifecycle, finding, resolution, policy or seed rows", async () => {
    const e = await insertEffect(l.app);
    const ex = await openExecution(l.app, e.effectId);
    const attempts: Array<[string, string, unknown[]]> = [
      [
        "effect_executions",
        "INSERT INTO effect_executions (effect_id, step, operation_id, opened_by) VALUES ($1, 7, $1 || ':7', 'register')",
        [e.effectId],
      ],
      [
        "effect_transitions",
        "INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence) VALUES ($1, 'PERSISTED', 'DISPATCHED', 'gate_allow', 'gate', '{}')",
        [ex.executionId],
      ],
      [
        "findings",
        "INSERT INTO findings (effect_id, adapter_id, classification, evidence, evidence_digest, created_by) VALUES ($1, 'a', 'LOST', '{}', 'd', 'human')",
        [e.effectId],
      ],
      [
        "finding_resolutions",
        "INSERT INTO finding_resolutions (finding_id, from_status, to_status, evidence, actor) VALUES (1, 'OPEN', 'CLOSED', '{}', 'human')",
        [],
      ],
      [
        "authority_policies",
        "INSERT INTO authority_policies (scope_pattern, max_age) VALUES ('*', interval '100 years')",
        [],
      ],
      [
        "lifecycle_edges",
        "INSERT INTO lifecycle_edges (from_state, to_state, cause, actor) VALUES ('SETTLED_FAILED', 'DISPATCHED', 'gate_allow', 'gate')",
        [],
      ],
      [
        "classification_attachments",
        "INSERT INTO classification_attachments VALUES ('DISPATCHED', 'LOST')",
        [],
      ],
      [
        "resolution_actions",
        "INSERT INTO resolution_actions VALUES ('DUPLICATE', 'REDISPATCHED')",
        [],
      ],
      [
        "resolution_status_edges",
        "INSERT INTO resolution_status_edges VALUES ('OPEN', 'CLOSED')",
        [],
      ],
    ];
    for (const [table, sql, params] of attempts) {
      const before = await countRows(l.superuser, table);
      await expectDbError(l.app.query(sql, params), "privilege_denied", "42501");
      expect(await countRows(l.superuser, table)).toBe(before);
    }
  });

  it("irrevon_app has INSERT on exactly the evidence tables and EXECUTE on exactly the four functions", async () => {
    for (const table of FACT_TABLES) {
      const { rows } = await l.superuser.query<{
        ins: boolean;
        upd: boolean;
        del: boolean;
        trunc: boolean;
      }>(
        `SELECT has_table_privilege('irrevon_app', $1, 'INSERT') AS ins, has_table_privilege('irrevon_app', $1, 'UPDATE') AS upd,
                has_table_privilege('irrevon_app', $1, 'DELETE') AS del, has_table_privilege('irrevon_app', $1, 'TRUNCATE') AS trunc`,
        [table],
      );
      expect({ table, ...rows[0] }).toEqual({
        table,
        ins: (APP_INSERT_TABLES as readonly string[]).includes(table),
        upd: (APP_LOCKABLE_TABLES as readonly string[]).includes(table),
        del: false,
        trunc: false,
      });
    }
    for (const fn of LOCKED_FUNCTIONS) {
      const { rows } = await l.superuser.query<{ app: boolean; rd: boolean; pub: boolean }>(
        `SELECT has_function_privilege('irrevon_app', $1, 'EXECUTE') AS app, has_function_privilege('irrevon_read', $1, 'EXECUTE') AS rd,
                EXISTS (SELECT 1 FROM pg_proc p, aclexplode(p.proacl) a WHERE p.oid = $1::regprocedure AND a.grantee = 0) AS pub`,
        [fn],
      );
      expect({ fn, ...rows[0] }).toEqual({ fn, app: true, rd: false, pub: false });
    }
  });

  it("irrevon_read cannot write: INSERT, UPDATE, function EXECUTE all fail, even in a transaction not marked read-only", async () => {
    const e = await insertEffect(l.app);
    const ex = await openExecution(l.app, e.effectId);
    const before = await countRows(l.superuser, "effect_records");
    await expectDbError(
      l.read.query("INSERT INTO deny_entries (scope, reason) VALUES ('x', 'y')"),
      "privilege_denied",
    );
    await expectDbError(
      l.read.transaction((tx) =>
        tx.query("INSERT INTO branch_cancellations (branch_ref, reason) VALUES ('b', 'r')"),
      ),
      "privilege_denied",
    );
    await expectDbError(
      l.read.query("UPDATE effect_records SET scope = scope"),
      "privilege_denied",
    );
    await expectDbError(
      l.read.query("SELECT * FROM ledger_open_execution($1, 'register')", [e.effectId]),
      "privilege_denied",
      "42501",
    );
    await expectDbError(
      l.read.query(
        "SELECT ledger_transition($1, 'PERSISTED', 'CANCELLED', 'branch_cancelled', 'human', '{}'::jsonb)",
        [ex.executionId],
      ),
      "privilege_denied",
      "42501",
    );
    expect(await countRows(l.superuser, "effect_records")).toBe(before);
    const { rows } = await l.read.query<{ ro: string; who: string }>(
      "SELECT current_setting('transaction_read_only') AS ro, current_user AS who",
    );
    expect(rows[0]).toEqual({ ro: "on", who: "irrevon_read" });
    // …but it reads every table and view.
    const view = await l.read.query("SELECT * FROM effect_frontiers");
    expect(view.rowCount).toBeGreaterThan(0);
  });

  it("an attempt's idempotency key must equal its execution's operation id (D5)", async () => {
    const ex = await effectAt(l.app, "PERSISTED");
    const { decisionId } = await l.app.transaction(async (tx) => {
      const d = await tx.query<{ decision_id: number }>(
        "INSERT INTO gate_decisions (effect_id, execution_id, variant, outcome, checks, evidence) VALUES ($1, $2, 'dispatch', 'ALLOW', '[]', '{}') RETURNING decision_id",
        [ex.effectId, ex.executionId],
      );
      return { decisionId: Number(d.rows[0]?.decision_id) };
    });
    const insert = (operationId: string, key: string) =>
      l.app.query(
        `INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest, idempotency_key, request_digest, gate_decision_id)
         VALUES ($1, $2, 1, 'primary', 'refdest', 'd', $3, 'r', $4)`,
        [ex.executionId, operationId, key, decisionId],
      );
    const mismatch = await expectDbError(
      insert(ex.operationId, `${ex.operationId}-retry`),
      "storage_error",
      "23514",
    );
    expect(mismatch.details["constraint"]).toBe("dispatch_attempts_key_is_operation_id");
    const foreign = await expectDbError(
      insert(`${ex.effectId}:9`, `${ex.effectId}:9`),
      "storage_error",
      "23503",
    );
    expect(foreign.details["constraint"]).toBe("dispatch_attempts_execution_operation_fk");
    expect(await countRows(l.superuser, "dispatch_attempts")).toBe(1); // the beforeEach attempt only
    await insert(ex.operationId, ex.operationId);
  });

  it("the engine's register → dispatch flow works entirely as irrevon_app and stays auditor-clean", async () => {
    const e = await insertEffect(l.app);
    const ex = await openExecution(l.app, e.effectId);
    await dispatch(l.app, ex);
    await expectAuditClean(l);
  });
});
