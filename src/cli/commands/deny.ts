/**
 * cli/commands/deny — the commit gate's deny list (§4 check 1):
 *   `irrevon deny add (--effect-type T | --scope S | --effect-class C)… --reason R` adds an
 *   entry (unset columns are wildcards; at least one must be set) and prints its id;
 *   `irrevon deny lift DENY_ID` lifts it (a new fact, never a delete).
 * Lifting an entry twice is a declared outcome (exit 3); an unknown id exits 3 (not_found).
 * `--json`: `{schema_version, deny_id, effect_type, scope, effect_class, reason}` and
 * `{schema_version, deny_id, lift_id}`.
 */
import type { Command } from "commander";
import { ErrorCode } from "../../core/errors.js";
import type { EffectClass } from "../../core/state-tables.js";
import { DbRole } from "../../db/db.js";
import { addDenyEntry, checkDenyEntry, liftDenyEntry } from "../../ledger/operator-controls.js";
import { withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { openCliLedger } from "../open-engine.js";
import { parseId, withDeclaredOutcomes } from "../operator-args.js";
import { emitResult } from "../output.js";

interface AddFlags extends LedgerFlags {
  readonly effectType?: string;
  readonly scope?: string;
  readonly effectClass?: string;
  readonly reason: string;
}

/** Registers the `deny` command group. */
export function register(program: Command): void {
  const deny = program.command("deny").description("the commit gate's deny list");
  withLedgerOptions(
    deny
      .command("add")
      .description("deny dispatches matching every given column (unset = any)")
      .option("--effect-type <type>", "e.g. order.create")
      .option("--scope <scope>", "e.g. acme-store/prod")
      .option("--effect-class <class>", "IDEMPOTENT | REVERSIBLE | COMPENSABLE | IRREVERSIBLE")
      .requiredOption("--reason <text>", "why (shown in every denial it causes)"),
  ).action(async (flags: AddFlags) => {
    const input = {
      reason: flags.reason,
      ...(flags.effectType === undefined ? {} : { effectType: flags.effectType }),
      ...(flags.scope === undefined ? {} : { scope: flags.scope }),
      ...(flags.effectClass === undefined
        ? {}
        : { effectClass: flags.effectClass.toUpperCase() as EffectClass }),
    };
    checkDenyEntry(input);
    const db = await openCliLedger(flags, DbRole.app);
    let denyId: number;
    try {
      denyId = await addDenyEntry(db, input);
    } finally {
      await db.close();
    }
    emitResult(
      flags.json === true,
      {
        deny_id: denyId,
        effect_type: input.effectType ?? null,
        scope: input.scope ?? null,
        effect_class: input.effectClass ?? null,
        reason: input.reason,
      },
      `deny entry ${denyId} added`,
    );
  });
  withLedgerOptions(
    deny
      .command("lift")
      .description("lift a deny entry")
      .argument("<deny_id>", "the entry's id (printed by `deny add`)"),
  ).action(async (denyText: string, flags: LedgerFlags) => {
    const json = flags.json === true;
    const denyId = parseId(denyText, "deny_id");
    await withDeclaredOutcomes(json, [ErrorCode.illegal_state, ErrorCode.not_found], async () => {
      const db = await openCliLedger(flags, DbRole.app);
      let liftId: number;
      try {
        liftId = await liftDenyEntry(db, denyId);
      } finally {
        await db.close();
      }
      emitResult(json, { deny_id: denyId, lift_id: liftId }, `deny entry ${denyId} lifted`);
    });
  });
}
