/**
 * workbench/packaged-declarations — the capability declarations shipped with the package,
 * as the adapters page and `/api/v1/adapters` show them: tier, declared lags (text and
 * seconds; null = undeclared, which sends absence to a human), query keys, citations, and
 * the digest every record and probe cites. Imports: adapters, workbench.
 */
import type { CapabilityDeclaration } from "../adapters/contract.js";
import { declarationDigest, parseIsoDurationSeconds } from "../adapters/declaration.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
  REFDEST_C2_LAGGED_DECLARATION,
  REFDEST_C3_DECLARATION,
} from "../adapters/declarations/refdest.js";

/** One packaged declaration, summarised. */
export interface DeclarationView {
  readonly adapter_id: string;
  readonly destination: string;
  readonly api_version: string;
  readonly tier: "C1" | "C2" | "C3";
  readonly declaration_digest: string;
  readonly lags: {
    readonly status_settlement_lag: string | null;
    readonly status_settlement_lag_seconds: number | null;
    readonly listing_lag: string | null;
    readonly listing_lag_seconds: number | null;
  };
  readonly idempotency_window: string | null;
  readonly queryable_by: readonly string[];
  readonly list_queryable: boolean;
  readonly citations: readonly string[];
  readonly declaration: CapabilityDeclaration;
}

const PACKAGED: readonly CapabilityDeclaration[] = [
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
  REFDEST_C2_LAGGED_DECLARATION,
  REFDEST_C3_DECLARATION,
];

const seconds = (lag: string | null): number | null =>
  lag === null ? null : parseIsoDurationSeconds(lag);

function toView(d: CapabilityDeclaration): DeclarationView {
  return {
    adapter_id: d.adapter,
    destination: d.destination,
    api_version: d.api_version,
    tier: d.tier,
    declaration_digest: declarationDigest(d),
    lags: {
      status_settlement_lag: d.consistency.status_settlement_lag,
      status_settlement_lag_seconds: seconds(d.consistency.status_settlement_lag),
      listing_lag: d.consistency.listing_lag,
      listing_lag_seconds: seconds(d.consistency.listing_lag),
    },
    idempotency_window: d.idempotency.window,
    queryable_by: d.queryable.by,
    list_queryable: d.list_queryable,
    citations: d.citations,
    declaration: d,
  };
}

let cached: readonly DeclarationView[] | undefined;

/** Every packaged declaration, in a fixed order. */
export function packagedDeclarations(): readonly DeclarationView[] {
  cached ??= PACKAGED.map(toView);
  return cached;
}

/** The packaged declaration with this digest, if any (a probe or record cites a digest). */
export function declarationByDigest(digest: string): DeclarationView | undefined {
  return packagedDeclarations().find((d) => d.declaration_digest === digest);
}
