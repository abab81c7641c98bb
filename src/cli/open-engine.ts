/**
 * cli/open-engine — how the operator commands reach the ledger: the engine (`worker`,
 * `resolve`), an app-role handle (`deny`, `branch`) or a read-only one (`findings`), from the
 * shared ledger options and `irrevon.toml` (tunables from `[reconcile]` and `[sweep]`, adapters
 * from `[adapters.<id>]`). On the embedded ledger one process owns the data directory: a second
 * opener is refused with `ledger_locked`, and the message says what to do instead.
 */
import { existsSync } from "node:fs";
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Db } from "../db/db.js";
import { DbRole } from "../db/db.js";
import { openDatabase } from "../db/open.js";
import type { EngineEventSink } from "../engine/events.js";
import { openIrrevon, type Irrevon } from "../engine/irrevon.js";
import { adaptersFromConfig } from "./adapters-from-config.js";
import { resolveLedger, type LedgerFlags, type ResolvedLedger } from "./ledger-options.js";

/** Re-labels the data-directory lock refusal with what the operator can do about it. */
export function explainLocked(e: unknown, ledger: ResolvedLedger): unknown {
  if (!(e instanceof IrrevonError) || e.code !== ErrorCode.ledger_locked) return e;
  return new IrrevonError(
    ErrorCode.ledger_locked,
    `${e.message}: with the embedded ledger one process owns the data directory; stop that process, ` +
      "or run several workers against a Postgres server (--database-url)",
    { retryable: e.retryable, details: { ...e.details, ledger: ledger.describe }, cause: e },
  );
}

/**
 * An operator command acts on what a ledger holds: with no embedded ledger there is nothing to
 * act on, and creating one (17 MB) just to say so would write on a refused command. `not_found`
 * (exit 3), naming the directory and the fix.
 */
function requireExistingLedger(ledger: ResolvedLedger): void {
  const { databaseUrl, dataDir } = ledger.location;
  if (databaseUrl !== undefined) return;
  if (dataDir !== undefined && existsSync(dataDir)) return;
  throw new IrrevonError(
    ErrorCode.not_found,
    `no embedded ledger at ${dataDir ?? "(none)"}; run \`irrevon init\` first, or pass --data-dir or --database-url to name an existing ledger`,
    { details: { data_dir: dataDir ?? null } },
  );
}

/** Options of {@link openCliEngine}. */
export interface CliEngineOptions {
  /** Create and migrate an embedded ledger that does not exist yet (`worker`); else not_found. */
  readonly create?: boolean;
  /** Build the configured adapters (needed to reach a destination). */
  readonly withAdapters: boolean;
  readonly events?: EngineEventSink;
}

/** Opens the engine for a command; the caller closes it. */
export async function openCliEngine(
  flags: LedgerFlags,
  options: CliEngineOptions,
): Promise<{ irrevon: Irrevon; ledger: ResolvedLedger }> {
  const ledger = resolveLedger(flags);
  if (options.create !== true) requireExistingLedger(ledger);
  const { config } = ledger.loaded;
  const adapters = options.withAdapters ? adaptersFromConfig(config) : [];
  const url = ledger.location.databaseUrl;
  try {
    const irrevon = await openIrrevon({
      database: url !== undefined ? { url } : { dataDir: ledger.location.dataDir ?? "" },
      adapters,
      config: {
        rereadGapSeconds: config.reconcile.reread_gap_seconds,
        escalationBudget: config.reconcile.escalation_budget,
        orphanGraceSeconds: config.sweep.orphan_grace_seconds,
      },
      ...(options.events === undefined ? {} : { events: options.events }),
    });
    return { irrevon, ledger };
  } catch (e) {
    throw explainLocked(e, ledger);
  }
}

/**
 * Opens the ledger as `role` without an engine (no lease, no adapters). An embedded ledger that
 * does not exist yet is `not_found` rather than an empty new ledger; one whose schema is behind
 * is migrated first for the app role.
 */
export async function openCliLedger(flags: LedgerFlags, role: DbRole): Promise<Db> {
  const ledger = resolveLedger(flags);
  requireExistingLedger(ledger);
  const { databaseUrl } = ledger.location;
  try {
    return await openDatabase({
      ...ledger.location,
      role,
      ...(databaseUrl === undefined && role !== DbRole.read ? { autoMigrate: true } : {}),
    });
  } catch (e) {
    throw explainLocked(e, ledger);
  }
}
