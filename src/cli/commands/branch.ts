/**
 * cli/commands/branch — `irrevon branch cancel BRANCH_REF --reason R [--cancel-persisted]`:
 * cancels an agent branch (§4 check 3). Later registrations on it become INTENDED→CANCELLED and
 * the gate denies dispatch of its records (branch_lineage); with `--cancel-persisted`, records
 * on it that are PERSISTED (never dispatched) are moved to CANCELLED now. Idempotent.
 * `--json`: `{schema_version, branch_ref, reason, cancelled_executions:[execution ids]}`.
 */
import type { Command } from "commander";
import { DbRole } from "../../db/db.js";
import { cancelBranch, checkBranchCancel } from "../../ledger/operator-controls.js";
import { withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { openCliLedger } from "../open-engine.js";
import { emitResult } from "../output.js";

interface CancelFlags extends LedgerFlags {
  readonly reason: string;
  readonly cancelPersisted?: boolean;
}

/** Registers the `branch` command group. */
export function register(program: Command): void {
  const branch = program.command("branch").description("agent branches the gate checks");
  withLedgerOptions(
    branch
      .command("cancel")
      .description("cancel a branch: its records are no longer dispatched")
      .argument("<branch_ref>", "the branch_ref the intents were registered with")
      .requiredOption("--reason <text>", "why (recorded)")
      .option(
        "--cancel-persisted",
        "also move its PERSISTED (never dispatched) executions to CANCELLED",
      ),
  ).action(async (branchRef: string, flags: CancelFlags) => {
    checkBranchCancel(branchRef, flags.reason);
    const db = await openCliLedger(flags, DbRole.app);
    let cancelled: number[];
    try {
      cancelled = await cancelBranch(db, branchRef, flags.reason, {
        cancelPersisted: flags.cancelPersisted === true,
      });
    } finally {
      await db.close();
    }
    emitResult(
      flags.json === true,
      { branch_ref: branchRef, reason: flags.reason, cancelled_executions: cancelled },
      `branch ${branchRef} cancelled` +
        (flags.cancelPersisted === true
          ? ` · ${cancelled.length} execution(s) moved to CANCELLED`
          : ""),
    );
  });
}
