/**
 * The auditor on both backends: a clean ledger passes; each planted violation (rows the
 * locked functions would never write, inserted by the superuser, with a CHECK dropped where
 * the schema itself forbids the row) is reported under exactly the expected rules.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { LIFECYCLE_STATES } from "../../src/core/state-tables.js";
import type { Queryable } from "../../src/db/db.js";
import { AUDIT_RULES, auditLedger, type AuditRule } from "../../src/ledger/auditor.js";
import { expectAuditClean } from "../support/audit.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import {
  attachFinding,
  dispatch,
  effectAt,
  insertEffect,
  insertProbe,
  openExecution,
  rawExecution,
  resolve,
  type ExecutionRef,
} from "../support/ledger-fixtures.js";

/** Inserts a transition row directly, bypassing ledger_transition (only the owner side can). */
async function rawTransition(
  db: Queryable,
  ex: ExecutionRef,
  from: string | null,
  to: string,
  cause: string,
  actor: string,
  evidence: object = {},
): Promise<void> {
  await db.query(
    "INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence) VALUES ($1, $2, $3, $4, $5, $6::jsonb)",
    [ex.executionId, from, to, cause, actor, JSON.stringify(evidence)],
  );
}

async function rawFinding(
  db: Queryable,
  effectId: string | null,
  classification: string,
  excess: number | null = null,
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO findings (effect_id, adapter_id, destination_ref, classification, excess_effect_count, evidence, evidence_digest, created_by)
     VALUES ($1, 'refdest', 'ref-x', $2, $3, '{}'::jsonb, 'd', 'human') RETURNING finding_id AS id`,
    [effectId, classification, excess],
  );
  return Number(rows[0]?.id);
}

async function rawResolution(
  db: Queryable,
  findingId: number,
  from: string,
  to: string,
): Promise<void> {
  await db.query(
    "INSERT INTO finding_resolutions (finding_id, from_status, to_status, evidence, actor) VALUES ($1, $2, $3, '{}'::jsonb, 'human')",
    [findingId, from, to],
  );
}

interface Plant {
  readonly name: string;
  readonly rules: readonly AuditRule[];
  plant(l: TestLedger): Promise<void>;
}

const PLANTS: readonly Plant[] = [
  {
    name: "a disabled UPDATE/DELETE trigger",
    rules: ["append_only"],
    plant: (l) =>
      l.superuser
        .query("ALTER TABLE effect_records DISABLE TRIGGER effect_records_append_only")
        .then(() => undefined),
  },
  {
    name: "a dropped TRUNCATE trigger",
    rules: ["append_only"],
    plant: (l) =>
      l.superuser
        .query("DROP TRIGGER lifecycle_edges_no_truncate ON lifecycle_edges")
        .then(() => undefined),
  },
  {
    name: "a trigger weakened to fire only in origin sessions",
    rules: ["append_only"],
    plant: (l) =>
      l.superuser
        .query("ALTER TABLE findings ENABLE TRIGGER findings_append_only")
        .then(() => undefined),
  },
  {
    name: "a tampered seed table",
    rules: ["seed_tables"],
    plant: (l) =>
      l.superuser
        .query(
          "INSERT INTO resolution_actions (classification, action) VALUES ('DUPLICATE', 'REDISPATCHED')",
        )
        .then(() => undefined),
  },
  {
    name: "an illegal edge",
    rules: ["state_legality"],
    plant: async (l) =>
      rawTransition(
        l.superuser,
        await effectAt(l.superuser, "PERSISTED"),
        "PERSISTED",
        "SETTLED_COMMITTED",
        "receipt_ok",
        "dispatcher",
      ),
  },
  {
    name: "a chain that does not start at genesis",
    rules: ["contiguity"],
    plant: async (l) => {
      const e = await insertEffect(l.superuser);
      await rawTransition(
        l.superuser,
        await rawExecution(l.superuser, e.effectId, 0),
        "INTENDED",
        "PERSISTED",
        "durable_write",
        "registrar",
      );
    },
  },
  {
    name: "a gap in a chain",
    rules: ["contiguity"],
    plant: async (l) => {
      const ex = await effectAt(l.superuser, "PERSISTED");
      await rawTransition(
        l.superuser,
        ex,
        "DISPATCHED",
        "SETTLED_COMMITTED",
        "receipt_ok",
        "dispatcher",
      );
    },
  },
  {
    name: "an execution without transitions",
    rules: ["contiguity"],
    plant: async (l) => {
      await rawExecution(l.superuser, (await insertEffect(l.superuser)).effectId, 0);
    },
  },
  {
    name: "a transition after a terminal state",
    rules: ["terminality", "state_legality"],
    plant: async (l) =>
      rawTransition(
        l.superuser,
        await effectAt(l.superuser, "SETTLED_COMMITTED"),
        "SETTLED_COMMITTED",
        "SETTLED_FAILED",
        "receipt_failed",
        "dispatcher",
      ),
  },
  {
    name: "AMBIGUOUS entered without a TIMEOUT/LOST receipt",
    rules: ["ambiguous_evidence"],
    plant: async (l) =>
      rawTransition(
        l.superuser,
        await effectAt(l.superuser, "DISPATCHED"),
        "DISPATCHED",
        "AMBIGUOUS",
        "receipt_lost",
        "recovery",
      ),
  },
  {
    name: "AMBIGUOUS left without citing evidence",
    rules: ["ambiguous_evidence"],
    plant: async (l) =>
      rawTransition(
        l.superuser,
        await effectAt(l.superuser, "AMBIGUOUS"),
        "AMBIGUOUS",
        "SETTLED_FAILED",
        "reconciled_absent",
        "reconciler",
        { reason: "gut feeling" },
      ),
  },
  {
    name: "AMBIGUOUS left citing a probe that does not exist",
    rules: ["evidence_citation"],
    plant: async (l) =>
      rawTransition(
        l.superuser,
        await effectAt(l.superuser, "AMBIGUOUS"),
        "AMBIGUOUS",
        "SETTLED_FAILED",
        "reconciled_absent",
        "reconciler",
        { probe_ids: [424242] },
      ),
  },
  {
    name: "AMBIGUOUS left as failed citing one ABSENT read of the execution",
    rules: ["evidence_citation"],
    plant: async (l) => {
      const ex = await effectAt(l.superuser, "AMBIGUOUS");
      const probe = await insertProbe(l.superuser, ex.executionId, "ABSENT");
      await rawTransition(
        l.superuser,
        ex,
        "AMBIGUOUS",
        "SETTLED_FAILED",
        "reconciled_absent",
        "reconciler",
        {
          probe_ids: [probe],
        },
      );
    },
  },
  {
    name: "AMBIGUOUS left as committed citing another execution's receipt",
    rules: ["evidence_citation"],
    plant: async (l) => {
      const other = await effectAt(l.superuser, "SETTLED_COMMITTED");
      const { rows } = await l.superuser.query<{ receipt_id: number }>(
        `SELECT r.receipt_id FROM dispatch_receipts r JOIN dispatch_attempts a ON a.attempt_id = r.attempt_id
          WHERE a.execution_id = $1`,
        [other.executionId],
      );
      await rawTransition(
        l.superuser,
        await effectAt(l.superuser, "AMBIGUOUS"),
        "AMBIGUOUS",
        "SETTLED_COMMITTED",
        "replay_ok",
        "reconciler",
        { receipt_id: Number(rows[0]?.receipt_id) },
      );
    },
  },
  {
    name: "a finding citing another effect's probe",
    rules: ["evidence_citation"],
    plant: async (l) => {
      const other = await effectAt(l.superuser, "SETTLED_FAILED");
      const probe = await insertProbe(l.superuser, other.executionId, "PRESENT");
      const ex = await effectAt(l.superuser, "SETTLED_FAILED");
      await l.superuser.query(
        `INSERT INTO findings (effect_id, adapter_id, classification, evidence, evidence_digest, created_by)
         VALUES ($1, 'refdest', 'CONTRADICTED', $2::jsonb, 'd', 'reconciler')`,
        [ex.effectId, JSON.stringify({ probe_ids: [probe] })],
      );
    },
  },
  {
    name: "DISPATCHED without an ALLOW decision or an attempt",
    rules: ["gate"],
    plant: async (l) =>
      rawTransition(
        l.superuser,
        await effectAt(l.superuser, "PERSISTED"),
        "PERSISTED",
        "DISPATCHED",
        "gate_allow",
        "gate",
      ),
  },
  {
    name: "an open attempt missing from the derived index of open attempts",
    rules: ["derived_index"],
    plant: async (l) => {
      const ex = await effectAt(l.superuser, "PERSISTED");
      await dispatch(l.superuser, ex);
      await l.superuser.query("DELETE FROM open_attempt_slots");
    },
  },
  {
    name: "a derived index's trigger that no longer fires always",
    rules: ["derived_index"],
    plant: (l) =>
      l.superuser
        .query("ALTER TABLE dispatch_attempts ENABLE TRIGGER dispatch_attempts_open_attempt")
        .then(() => undefined),
  },
  {
    name: "an open execution missing from the derived index of open executions",
    rules: ["derived_index"],
    plant: async (l) => {
      await effectAt(l.superuser, "AMBIGUOUS");
      await l.superuser.query("DELETE FROM open_executions");
    },
  },
  {
    name: "a derived open-execution row left at its old state",
    rules: ["derived_index"],
    plant: async (l) => {
      await l.superuser.query(
        "ALTER TABLE effect_transitions DISABLE TRIGGER effect_transitions_open_execution",
      );
      const ex = await effectAt(l.superuser, "DISPATCHED");
      await l.superuser.query(
        "INSERT INTO open_executions (execution_id, frontier) VALUES ($1, 'AMBIGUOUS')",
        [ex.executionId],
      );
    },
  },
  {
    name: "an open finding missing from the derived index of open findings",
    rules: ["derived_index"],
    plant: async (l) => {
      const committed = await effectAt(l.superuser, "SETTLED_COMMITTED");
      await attachFinding(l.superuser, committed.effectId, "DUPLICATE", { excess: 1 });
      await l.superuser.query("DELETE FROM open_findings");
    },
  },
  {
    name: "a derived open-attempt row that outlived its receipt",
    rules: ["derived_index"],
    plant: async (l) => {
      await l.superuser.query("ALTER TABLE dispatch_receipts DISABLE TRIGGER dispatch_receipts_open_attempt");
      await effectAt(l.superuser, "SETTLED_COMMITTED");
    },
  },
  {
    name: "an attempt whose key is not its operation id",
    rules: ["attempt_key"],
    plant: async (l) => {
      await l.superuser.query(
        "ALTER TABLE dispatch_attempts DROP CONSTRAINT dispatch_attempts_key_is_operation_id",
      );
      // The planted attempt cites no gate decision; 0040's trigger would refuse it first.
      await l.superuser.query(
        "ALTER TABLE dispatch_attempts DISABLE TRIGGER dispatch_attempts_gated",
      );
      const ex = await effectAt(l.superuser, "PERSISTED");
      await l.superuser.query(
        `INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest, idempotency_key, request_digest)
         VALUES ($1, $2, 1, 'c1_replay_probe', 'a', 'd', 'some-other-key', 'r')`,
        [ex.executionId, ex.operationId],
      );
    },
  },
  {
    name: "a finding attached in an illegal cell",
    rules: ["classification"],
    plant: async (l) => {
      await rawFinding(
        l.superuser,
        (await effectAt(l.superuser, "SETTLED_COMMITTED")).effectId,
        "LOST",
      );
    },
  },
  {
    name: "a DUPLICATE without excess",
    rules: ["classification"],
    plant: async (l) => {
      await l.superuser.query("ALTER TABLE findings DROP CONSTRAINT findings_duplicate_has_excess");
      await rawFinding(
        l.superuser,
        (await effectAt(l.superuser, "SETTLED_COMMITTED")).effectId,
        "DUPLICATE",
        0,
      );
    },
  },
  {
    name: "an ORPHANED finding on a record",
    rules: ["classification"],
    plant: async (l) => {
      await l.superuser.query("ALTER TABLE findings DROP CONSTRAINT findings_orphan_iff_no_record");
      await rawFinding(
        l.superuser,
        (await effectAt(l.superuser, "SETTLED_COMMITTED")).effectId,
        "ORPHANED",
      );
    },
  },
  {
    name: "a resolution chain that does not start at OPEN",
    rules: ["resolution"],
    plant: async (l) => {
      const id = await attachFinding(
        l.superuser,
        (await effectAt(l.superuser, "SETTLED_FAILED")).effectId,
        "LOST",
      );
      await rawResolution(l.superuser, id, "ESCALATED_HUMAN", "ACCEPTED_AS_IS");
    },
  },
  {
    name: "an illegal resolution (OPEN → CLOSED)",
    rules: ["resolution"],
    plant: async (l) => {
      const id = await attachFinding(
        l.superuser,
        (await effectAt(l.superuser, "SETTLED_FAILED")).effectId,
        "LOST",
      );
      await rawResolution(l.superuser, id, "OPEN", "CLOSED");
    },
  },
  {
    name: "a DUPLICATE redispatched after escalation",
    rules: ["resolution"],
    plant: async (l) => {
      const id = await attachFinding(
        l.superuser,
        (await effectAt(l.superuser, "SETTLED_COMMITTED")).effectId,
        "DUPLICATE",
      );
      await resolve(l.superuser, id, "OPEN", "ESCALATED_HUMAN");
      await rawResolution(l.superuser, id, "ESCALATED_HUMAN", "REDISPATCHED");
    },
  },
];

describeEachBackend("auditor", (backend) => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger(backend);
  });
  afterEach(async () => {
    await l.close();
  });

  it("passes an empty ledger and a ledger holding every state, finding and resolution the functions allow", async () => {
    await expectAuditClean(l);
    for (const state of LIFECYCLE_STATES)
      await effectAt(state === "INTENDED" ? l.superuser : l.app, state);
    const committed = await effectAt(l.app, "SETTLED_COMMITTED");
    await attachFinding(l.app, committed.effectId, "CONFIRMED_UNIQUE");
    const dup = await attachFinding(l.app, committed.effectId, "DUPLICATE", { excess: 1 });
    await resolve(l.app, dup, "OPEN", "ESCALATED_HUMAN");
    await resolve(l.app, dup, "ESCALATED_HUMAN", "COMPENSATED");
    const failed = await effectAt(l.app, "SETTLED_FAILED");
    const absent = await insertProbe(l.app, failed.executionId, "ABSENT");
    const lost = await attachFinding(l.app, failed.effectId, "LOST");
    await resolve(l.app, lost, "OPEN", "REDISPATCHED", "policy_auto", {
      note: "test",
      absent_probe_id: absent,
    });
    const retry = await openExecution(l.app, failed.effectId, "resolve_redispatch");
    await dispatch(l.app, retry);
    await attachFinding(l.app, null, "ORPHANED", { createdBy: "sweep" });
    await expectAuditClean(l);
  });

  it("covers every rule with at least one planted violation", () => {
    expect(new Set(PLANTS.flatMap((p) => p.rules))).toEqual(new Set(AUDIT_RULES));
  });

  for (const p of PLANTS) {
    it(`reports ${p.name} as ${p.rules.join(" + ")}`, async () => {
      await p.plant(l);
      const violations = await auditLedger(l.read);
      expect(new Set(violations.map((v) => v.rule))).toEqual(new Set(p.rules));
    });
  }
});
