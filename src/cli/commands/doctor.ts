/**
 * cli/commands/doctor — `irrevon doctor`: is this installation trustworthy? Checks the
 * configuration, the identity procedure against its conformance vectors, that the database
 * is reachable and migrated with an intact journal, that the roles really are restricted
 * (each forbidden write is tried in a transaction that is always rolled back), that every
 * packaged and configured declaration is valid, the clock skew between this process
 * and the database, and that the stored ledger passes every auditor rule (among them that
 * each exit from AMBIGUOUS cites evidence that exists and supports it). Exit 0 when every
 * check passes, 3 otherwise.
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { loadDeclaration } from "../../adapters/declaration.js";
import { refdestDeclaration } from "../../adapters/declarations/refdest.js";
import { IrrevonError } from "../../core/errors.js";
import { identitySelfTest } from "../../core/identity-selftest.js";
import { DbRole, type Db, type PrivilegedDb } from "../../db/db.js";
import { JOURNAL_TABLE } from "../../db/migrator.js";
import { MIGRATIONS } from "../../db/migrations.generated.js";
import { openPrivileged } from "../../db/open.js";
import { auditLedger } from "../../ledger/auditor.js";
import { EXIT_CODES } from "../exit-codes.js";
import { resolveLedger, withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { emitResult, requestExit } from "../output.js";
import { adaptersFromConfig } from "../adapters-from-config.js";
import type { IrrevonConfig } from "../config.js";

export interface DoctorCheck {
  readonly check: string;
  readonly status: "ok" | "fail";
  readonly detail: Readonly<Record<string, unknown>>;
}

/** Maximum tolerated skew between this process's clock and the database's. */
export const MAX_CLOCK_SKEW_MS = 30_000;

class Rollback extends Error {}

/** Runs `sql` as `role` in a transaction that is always rolled back; returns the error code it raised, if any. */
async function refusedCode(db: Db, sql: string): Promise<string | null> {
  let code: string | null = null;
  try {
    await db.transaction(async (tx) => {
      try {
        await tx.query(sql);
      } catch (e) {
        code = e instanceof IrrevonError ? e.code : "unknown";
      }
      throw new Rollback();
    });
  } catch (e) {
    if (!(e instanceof Rollback) && code === null) code = e instanceof IrrevonError ? e.code : "unknown";
  }
  return code;
}

async function privilegeChecks(root: PrivilegedDb): Promise<DoctorCheck> {
  const app = root.as(DbRole.app);
  const read = root.as(DbRole.read);
  const attempts: Record<string, string | null> = {
    app_update_effect_records: await refusedCode(app, "UPDATE effect_records SET scope = scope WHERE false"),
    app_delete_gate_decisions: await refusedCode(app, "DELETE FROM gate_decisions WHERE false"),
    app_insert_effect_transitions: await refusedCode(app, "INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence) VALUES (-1, NULL, 'INTENDED', 'register', 'registrar', '{}')"),
    read_insert_deny_entries: await refusedCode(read, "INSERT INTO deny_entries (effect_type, reason) VALUES ('doctor.check', 'doctor')"),
  };
  const allRefused = Object.values(attempts).every((c) => c !== null);
  return { check: "role_privileges", status: allRefused ? "ok" : "fail", detail: { refused_with: attempts } };
}

async function journalCheck(root: PrivilegedDb): Promise<DoctorCheck> {
  const exists = await root.query<{ present: boolean }>(`SELECT to_regclass('${JOURNAL_TABLE}') IS NOT NULL AS present`);
  if (exists.rows[0]?.present !== true) {
    return { check: "ledger_migrated", status: "fail", detail: { applied: 0, fix: "run `irrevon migrate` (or `irrevon init`)" } };
  }
  const { rows } = await root.query<{ filename: string; sha256: string }>(`SELECT filename, sha256 FROM ${JOURNAL_TABLE} ORDER BY filename`);
  const journal = new Map(rows.map((r) => [r.filename, r.sha256]));
  const missing = MIGRATIONS.filter((m) => !journal.has(m.filename)).map((m) => m.filename);
  const changed = MIGRATIONS.filter((m) => journal.has(m.filename) && journal.get(m.filename) !== m.sha256).map((m) => m.filename);
  const unknown = [...journal.keys()].filter((f) => !MIGRATIONS.some((m) => m.filename === f));
  const ok = missing.length === 0 && changed.length === 0 && unknown.length === 0;
  return { check: "ledger_migrated", status: ok ? "ok" : "fail", detail: { applied: journal.size, missing, changed, unknown } };
}

async function clockCheck(root: PrivilegedDb): Promise<DoctorCheck> {
  const before = Date.now();
  const { rows } = await root.query<{ now: Date }>("SELECT now() AS now");
  const after = Date.now();
  const dbMs = new Date(rows[0]?.now ?? 0).getTime();
  const skewMs = Math.round(dbMs - (before + after) / 2);
  return { check: "clock_skew", status: Math.abs(skewMs) <= MAX_CLOCK_SKEW_MS + (after - before) ? "ok" : "fail", detail: { skew_ms: skewMs, limit_ms: MAX_CLOCK_SKEW_MS } };
}

/** How many violations of each rule the auditor finds (as irrevon_read, read-only); a few named in full. */
async function auditCheck(root: PrivilegedDb): Promise<DoctorCheck> {
  const violations = await auditLedger(root.as(DbRole.read));
  const byRule: Record<string, number> = {};
  for (const v of violations) byRule[v.rule] = (byRule[v.rule] ?? 0) + 1;
  return {
    check: "ledger_audit",
    status: violations.length === 0 ? "ok" : "fail",
    detail: { violations: violations.length, by_rule: byRule, first: violations.slice(0, 5) },
  };
}

function declarationsCheck(): DoctorCheck {
  const problems: string[] = [];
  const names: string[] = [];
  for (const tier of ["C1", "C2", "C3"] as const) {
    try {
      names.push(loadDeclaration(refdestDeclaration(tier)).adapter);
    } catch (e) {
      problems.push(`refdest ${tier}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { check: "capability_declarations", status: problems.length === 0 ? "ok" : "fail", detail: { valid: names, problems } };
}

/** The configured adapters can be built: the worker will reach its destinations' URLs. */
function adaptersCheck(config: IrrevonConfig): DoctorCheck {
  try {
    const adapters = adaptersFromConfig(config);
    return { check: "adapters", status: "ok", detail: { configured: adapters.map((a) => a.adapterId) } };
  } catch (e) {
    const details = e instanceof IrrevonError ? e.details : {};
    return {
      check: "adapters",
      status: "fail",
      detail: { code: e instanceof IrrevonError ? e.code : "unknown", message: e instanceof Error ? e.message : String(e), ...details },
    };
  }
}

function humanDetail(c: DoctorCheck): string {
  if (c.check === "identity_selftest") {
    return (c.detail["vectors"] as Array<{ name: string; ok: boolean }>).map((v) => `${v.name} ${v.ok ? "ok" : "MISMATCH"}`).join(", ");
  }
  return JSON.stringify(c.detail);
}

/** Registers the `doctor` command. */
export function register(program: Command): void {
  withLedgerOptions(program.command("doctor").description("check configuration, adapters, identity, database, roles, declarations and clock")).action(
    async (flags: LedgerFlags) => {
      const checks: DoctorCheck[] = [];
      const ledger = resolveLedger(flags);
      checks.push({ check: "configuration", status: "ok", detail: { path: ledger.loaded.path, database: ledger.describe } });
      checks.push(adaptersCheck(ledger.loaded.config));
      const selfTest = identitySelfTest();
      checks.push({ check: "identity_selftest", status: selfTest.every((r) => r.ok) ? "ok" : "fail", detail: { vectors: selfTest } });
      let root: PrivilegedDb | null = null;
      try {
        if (ledger.location.dataDir !== undefined && !existsSync(ledger.location.dataDir)) {
          throw new IrrevonError("not_found", `no embedded ledger at ${ledger.location.dataDir}; run \`irrevon init\``, { details: { data_dir: ledger.location.dataDir } });
        }
        root = await openPrivileged(ledger.location);
        await root.query("SELECT 1");
        checks.push({ check: "database_reachable", status: "ok", detail: { database: ledger.describe, backend: root.backend } });
        const journal = await journalCheck(root);
        checks.push(journal);
        if (journal.status === "ok") {
          checks.push(await privilegeChecks(root));
          checks.push(await auditCheck(root));
        }
        checks.push(await clockCheck(root));
      } catch (e) {
        checks.push({ check: "database_reachable", status: "fail", detail: { database: ledger.describe, code: e instanceof IrrevonError ? e.code : "unknown", message: e instanceof Error ? e.message.split("\n")[0] : String(e) } });
      } finally {
        await root?.close();
      }
      checks.push(declarationsCheck());
      const ok = checks.every((c) => c.status === "ok");
      emitResult(
        flags.json === true,
        { ok, checks },
        [...checks.map((c) => `${c.status === "ok" ? "ok  " : "FAIL"}  ${c.check.padEnd(24)} ${humanDetail(c)}`), ok ? "doctor: all checks passed" : "doctor: some checks failed"].join("\n"),
      );
      if (!ok) requestExit(EXIT_CODES.declared_outcome.code);
    },
  );
}
