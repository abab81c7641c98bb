/**
 * cli/commands/findings — `irrevon findings list [--class C] [--status S] [--effect ID]`: what
 * the destination says happened (CONFIRMED_UNIQUE, DUPLICATE, LOST, ORPHANED, CONTRADICTED)
 * and where each finding's resolution stands. Read-only (irrevon_read). `--json` prints
 * `{schema_version, count, findings:[{finding_id, classification, status, effect_id,
 * adapter_id, destination_ref, excess_effect_count, created_by, created_at, evidence}]}`.
 */
import type { Command } from "commander";
import { ErrorCode, IrrevonError } from "../../core/errors.js";
import { isIntentId } from "../../core/identity.js";
import {
  CLASSIFICATIONS,
  RESOLUTION_STATUSES,
  type Classification,
  type ResolutionStatus,
} from "../../core/state-tables.js";
import { DbRole } from "../../db/db.js";
import { listFindingsFiltered } from "../../ledger/resolution-list.js";
import type { FindingState } from "../../ledger/resolve-finding.js";
import { withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { openCliLedger } from "../open-engine.js";
import { emitResult } from "../output.js";

interface ListFlags extends LedgerFlags {
  readonly class?: string;
  readonly status?: string;
  readonly effect?: string;
}

function pick<T extends string>(
  value: string | undefined,
  known: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  const hit = known.find((k) => k === upper);
  if (hit === undefined) {
    throw new IrrevonError(ErrorCode.usage, `${flag} must be one of ${known.join(", ")}`, {
      details: { flag, value },
    });
  }
  return hit;
}

/** The JSON form of one finding. */
export function findingJson(f: FindingState): Record<string, unknown> {
  return {
    finding_id: f.findingId,
    classification: f.classification,
    status: f.status,
    effect_id: f.effectId,
    adapter_id: f.adapterId,
    destination_ref: f.destinationRef,
    excess_effect_count: f.excessEffectCount,
    created_by: f.createdBy,
    created_at: f.createdAt,
    evidence: f.evidence,
  };
}

function humanLine(f: FindingState): string {
  const subject = f.effectId ?? `${f.adapterId}/${f.destinationRef ?? "?"}`;
  const excess = f.excessEffectCount === null ? "" : ` excess=${f.excessEffectCount}`;
  return `#${f.findingId}  ${f.classification.padEnd(16)} ${f.status.padEnd(15)} ${subject}${excess}`;
}

/** Registers the `findings` command group. */
export function register(program: Command): void {
  const findings = program
    .command("findings")
    .description("classification findings and their resolution status");
  withLedgerOptions(
    findings
      .command("list")
      .description("list findings, newest 1000, oldest first")
      .option("--class <classification>", `only this class (${CLASSIFICATIONS.join(", ")})`)
      .option(
        "--status <status>",
        `only this resolution status (${RESOLUTION_STATUSES.join(", ")})`,
      )
      .option("--effect <effect_id>", "only findings of this effect"),
  ).action(async (flags: ListFlags) => {
    const classification = pick<Classification>(flags.class, CLASSIFICATIONS, "--class");
    const status = pick<ResolutionStatus>(flags.status, RESOLUTION_STATUSES, "--status");
    if (flags.effect !== undefined && !isIntentId(flags.effect)) {
      throw new IrrevonError(ErrorCode.usage, "--effect must be 64 lowercase hex characters", {
        details: { flag: "--effect" },
      });
    }
    const db = await openCliLedger(flags, DbRole.read);
    let rows: FindingState[];
    try {
      rows = await listFindingsFiltered(db, {
        ...(classification === undefined ? {} : { classification }),
        ...(status === undefined ? {} : { status }),
        ...(flags.effect === undefined ? {} : { effectId: flags.effect }),
      });
    } finally {
      await db.close();
    }
    emitResult(
      flags.json === true,
      { count: rows.length, findings: rows.map(findingJson) },
      rows.length === 0 ? "no findings" : rows.map(humanLine).join("\n"),
    );
  });
}
