/**
 * engine/adapter-registry — the configured adapters, each with its validated capability
 * declaration and digest (computed once at open). Looking up an adapter the engine was not
 * given is `capability_unsupported`. A declaration that promises batch status lookups
 * (`queryable.batch_max`) from an adapter without `statusQueryBatch` is refused at open
 * (`config_invalid` naming the field and the fix), so the engine never finds out mid-recovery.
 * Imports: core, adapters.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import type { Adapter, CapabilityDeclaration } from "../adapters/contract.js";
import {
  declarationDigest,
  loadDeclaration,
  parseIsoDurationSeconds,
} from "../adapters/declaration.js";

/** One configured adapter. */
export interface AdapterEntry {
  readonly adapter: Adapter;
  readonly declaration: CapabilityDeclaration;
  readonly declarationDigest: string;
  /** Declared status_settlement_lag in seconds; null = unbounded (absence goes to a human). */
  readonly statusLagSeconds: number | null;
  /** Declared idempotency window in seconds; null when the destination has no keys. */
  readonly idempotencyWindowSeconds: number | null;
  /**
   * Most keys one `statusQueryBatch` call may carry (`queryable.batch_max`); null when the
   * adapter offers no batch lookup (every status query is its own wire call).
   */
  readonly batchMax: number | null;
}

/** The configured adapters, by adapter id. */
export interface AdapterRegistry {
  get(adapterId: string): AdapterEntry | undefined;
  /** Throws capability_unsupported when `adapterId` is not configured. */
  require(adapterId: string): AdapterEntry;
  list(): readonly AdapterEntry[];
}

/** Validates every declaration (invalid ⇒ declaration_invalid) and indexes by adapter id. */
export function buildAdapterRegistry(adapters: readonly Adapter[]): AdapterRegistry {
  const byId = new Map<string, AdapterEntry>();
  for (const adapter of adapters) {
    const declaration = loadDeclaration(adapter.declare());
    if (declaration.adapter !== adapter.adapterId) {
      throw new IrrevonError(
        ErrorCode.declaration_invalid,
        "declaration names a different adapter",
        {
          details: { adapter_id: adapter.adapterId, declared: declaration.adapter },
        },
      );
    }
    if (byId.has(adapter.adapterId)) {
      throw new IrrevonError(ErrorCode.config_invalid, "two adapters share one adapter id", {
        details: { adapter_id: adapter.adapterId },
      });
    }
    const batchMax = declaration.queryable.batch_max ?? null;
    if (batchMax !== null && typeof adapter.statusQueryBatch !== "function") {
      const field = "/queryable/batch_max";
      const fix =
        "implement statusQueryBatch on the adapter, or remove queryable.batch_max from its declaration";
      throw new IrrevonError(
        ErrorCode.config_invalid,
        `adapter ${adapter.adapterId} declares ${field} = ${batchMax} but has no statusQueryBatch; fix: ${fix}`,
        {
          details: {
            adapter_id: adapter.adapterId,
            field,
            reason: "declared batch lookups without statusQueryBatch",
            allowed: "queryable.batch_max only on an adapter that implements statusQueryBatch",
            fix,
          },
        },
      );
    }
    const lag = declaration.consistency.status_settlement_lag;
    const window = declaration.idempotency.supported ? declaration.idempotency.window : null;
    byId.set(adapter.adapterId, {
      adapter,
      declaration,
      declarationDigest: declarationDigest(declaration),
      statusLagSeconds: lag === null ? null : parseIsoDurationSeconds(lag),
      idempotencyWindowSeconds: window === null ? null : parseIsoDurationSeconds(window),
      batchMax,
    });
  }
  return {
    get: (id) => byId.get(id),
    require(id) {
      const entry = byId.get(id);
      if (entry === undefined) {
        throw new IrrevonError(
          ErrorCode.capability_unsupported,
          "no adapter is configured for this adapter_id",
          {
            details: { adapter_id: id, configured: [...byId.keys()] },
          },
        );
      }
      return entry;
    },
    list: () => [...byId.values()],
  };
}
