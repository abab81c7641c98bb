/**
 * cli/commands/inspect — `irrevon inspect ID`: everything the ledger knows about one effect
 * (record, the three dimensions, timeline, gate decisions, attempts, receipts, probes,
 * findings, resolutions, parameter variants) and an integrity line that recomputes the
 * intent id from the stored canonical preimage. Stable-id values print as digests unless
 * `--reveal`. Exit 3 when there is no such effect, 4 when the integrity check fails.
 *
 * Without an explicit ledger it looks in the configured ledger and, failing that, in the
 * demo's ledger (`.irrevon/demo/ledger`, written by `irrevon demo`), and says which it used.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { IrrevonError } from "../../core/errors.js";
import { isIntentId } from "../../core/identity.js";
import { redactStableIds } from "../../core/stable-id-redaction.js";
import { DbRole } from "../../db/db.js";
import { openDatabase, type DatabaseLocation } from "../../db/open.js";
import { inspectEffect, type EffectInspection } from "../../ledger/inspect-effect.js";
import { EXIT_CODES } from "../exit-codes.js";
import { resolveLedger, withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { emitResult, requestExit, writeHuman } from "../output.js";
import { renderInspection } from "./inspect-render.js";

interface InspectFlags extends LedgerFlags {
  readonly reveal?: boolean;
}

/** Where `irrevon demo` keeps its embedded ledger, relative to the working directory. */
export const DEMO_LEDGER_DIR = ".irrevon/demo/ledger";

async function readFrom(location: DatabaseLocation, effectId: string): Promise<EffectInspection | null> {
  if (location.dataDir !== undefined && !existsSync(location.dataDir)) return null;
  const db = await openDatabase({ ...location, role: DbRole.read });
  try {
    return await inspectEffect(db, effectId);
  } catch (e) {
    if (e instanceof IrrevonError && e.code === "not_found") return null;
    throw e;
  } finally {
    await db.close();
  }
}

/** Registers the `inspect` command. */
export function register(program: Command): void {
  withLedgerOptions(
    program
      .command("inspect")
      .description("show everything the ledger knows about one effect, with an integrity check")
      .argument("<effect_id>", "the effect id (64 lowercase hex)")
      .option("--reveal", "show stable-id values instead of their sha256 digests"),
  ).action(async (effectId: string, flags: InspectFlags) => {
    if (!isIntentId(effectId)) {
      throw new IrrevonError("usage", "effect_id must be 64 lowercase hex characters", { details: { argument: "effect_id" } });
    }
    const ledger = resolveLedger(flags);
    const explicit = flags.databaseUrl !== undefined || flags.dataDir !== undefined || process.env["DATABASE_URL"] !== undefined;
    let source = ledger.describe;
    let doc = await readFrom(ledger.location, effectId);
    if (doc === null && !explicit && existsSync(resolve(DEMO_LEDGER_DIR))) {
      doc = await readFrom({ dataDir: resolve(DEMO_LEDGER_DIR) }, effectId);
      source = `demo ledger ${resolve(DEMO_LEDGER_DIR)}`;
    }
    if (doc === null) {
      throw new IrrevonError("not_found", `no effect ${effectId} in ${ledger.describe}`, { details: { effect_id: effectId } });
    }
    const shown = flags.reveal === true ? doc : redactStableIds(doc);
    // The JSON document is exactly the workbench's /api/v1/effects/:id/inspect body.
    if (flags.json === true && source !== ledger.describe) writeHuman(`inspect: read from the ${source}`);
    emitResult(flags.json === true, { ...shown }, renderInspection(shown, source));
    if (!doc.integrity.matches) requestExit(EXIT_CODES.integrity.code);
  });
}
