/**
 * `irrevon doctor` runs the auditor: on a Postgres ledger where an exit from AMBIGUOUS cites
 * a probe that does not exist (planted by the owner side, which the locked functions would
 * refuse), the `ledger_audit` check fails under `evidence_citation` and doctor exits 3; on a
 * clean ledger the check passes.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonOf, runCli } from "../support/cli.js";
import { openTestLedger, SKIP_POSTGRES, type TestLedger } from "../support/databases.js";
import { effectAt } from "../support/ledger-fixtures.js";

interface Check {
  check: string;
  status: string;
  detail: Record<string, unknown>;
}

describe.skipIf(SKIP_POSTGRES)("irrevon doctor audits the ledger [postgres]", () => {
  let l: TestLedger;
  beforeEach(async () => {
    l = await openTestLedger("postgres");
  });
  afterEach(async () => {
    await l.close();
  });

  async function doctor(): Promise<{ code: number | null; audit: Check | undefined }> {
    const cwd = mkdtempSync(join(tmpdir(), "irrevon-doctor-"));
    const run = await runCli(["doctor", "--json", "--database-url", l.url ?? ""], { cwd });
    const checks = jsonOf(run)["checks"] as Check[];
    return { code: run.code, audit: checks.find((c) => c.check === "ledger_audit") };
  }

  it("passes a clean ledger and fails one whose AMBIGUOUS exit cites a missing probe", async () => {
    const ex = await effectAt(l.app, "AMBIGUOUS");
    const clean = await doctor();
    expect(clean.audit?.status).toBe("ok");

    await l.superuser.query(
      `INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence)
       VALUES ($1, 'AMBIGUOUS', 'SETTLED_FAILED', 'reconciled_absent', 'reconciler', '{"probe_ids":[424242]}'::jsonb)`,
      [ex.executionId],
    );
    const planted = await doctor();
    expect(planted.code).toBe(3);
    expect(planted.audit?.status).toBe("fail");
    expect(planted.audit?.detail["by_rule"]).toEqual({ evidence_citation: 1 });
  }, 120_000);
});
