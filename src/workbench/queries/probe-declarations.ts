/**
 * workbench/queries/probe-declarations — the adapter and declaration digest each status probe
 * of an effect was read under. The inspect document does not carry them, and a probe's
 * conclusion (ABSENT after the declared lag) is only as good as the declaration it cites.
 * Imports: db.
 */
import type { Queryable } from "../../db/db.js";

/** One probe's citation. */
export interface ProbeDeclaration {
  readonly probeId: number;
  readonly adapterId: string;
  readonly declarationDigest: string;
}

/** Reads the citation of every probe of `effectId`. */
export async function readProbeDeclarations(
  q: Queryable,
  effectId: string,
): Promise<ProbeDeclaration[]> {
  const { rows } = await q.query<{
    probe_id: unknown;
    adapter_id: string;
    declaration_digest: string;
  }>(
    `SELECT p.probe_id, p.adapter_id, p.declaration_digest
       FROM status_probes p JOIN effect_executions x ON x.execution_id = p.execution_id
      WHERE x.effect_id = $1 ORDER BY p.probe_id`,
    [effectId],
  );
  return rows.map((r) => ({
    probeId: Number(r.probe_id),
    adapterId: r.adapter_id,
    declarationDigest: r.declaration_digest,
  }));
}
