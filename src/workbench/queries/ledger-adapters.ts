/**
 * workbench/queries/ledger-adapters — which adapters and declaration digests the ledger's
 * records actually cite, with how many records each. Lets the adapters page say whether a
 * record was registered under a declaration this package still ships. Imports: db.
 */
import type { Queryable } from "../../db/db.js";

/** One (adapter, declaration digest) pair cited by records. */
export interface LedgerAdapterUse {
  readonly adapter_id: string;
  readonly declaration_digest: string;
  readonly effects: number;
}

/** Reads every cited pair, most-used first. */
export async function readLedgerAdapters(q: Queryable): Promise<LedgerAdapterUse[]> {
  const { rows } = await q.query<{
    adapter_id: string;
    declaration_digest: string;
    effects: unknown;
  }>(
    `SELECT adapter_id, declaration_digest, count(*) AS effects
       FROM effect_records GROUP BY adapter_id, declaration_digest
      ORDER BY count(*) DESC, adapter_id, declaration_digest`,
  );
  return rows.map((r) => ({
    adapter_id: r.adapter_id,
    declaration_digest: r.declaration_digest,
    effects: Number(r.effects),
  }));
}
