/**
 * test/support/no-second-create — the property the model-based test checks after every step:
 * never a second create for one effect unless a human explicitly chose it with fresh evidence
 * of absence. Reads the ledger straight from its tables (read role or superuser) and the
 * destination's truth log, and returns every effect that breaks it (empty = holds).
 *
 * "A second create" = the destination holds effects under two or more DIFFERENT operation ids
 * of one effect record (client ref or idempotency key = `<effect_id>:<step>`); copies under one
 * operation id are the destination's duplicates, reported by the audit as DUPLICATE, not a
 * second order of ours. Every later operation id that reached the destination must be an
 * execution opened by `resolve_redispatch` whose REDISPATCHED edge was written by actor
 * `human`, cited as `absent_probe_id` an ABSENT probe that was then the newest probe of the
 * previous execution, and came after no PRESENT probe, no uncompensated CONTRADICTED finding
 * and no late OK response of the effect.
 */
import { expect } from "vitest";
import type { Db } from "../../src/db/db.js";
import type { TruthEffect } from "../../src/refdest/wire-types.js";

/** What the check needs of a destination: its truth log. */
export interface TruthSource {
  truthDump(): { readonly effects: readonly TruthEffect[] };
}

/** One effect that reached the destination under a later operation id nobody chose with evidence. */
export interface SecondCreate {
  readonly effectId: string;
  readonly operationIds: readonly string[];
  readonly unchosen: string;
  readonly reason: string;
}

interface Execution {
  execution_id: unknown;
  effect_id: string;
  step: number;
  operation_id: string;
  opened_by: string;
}

/** Every effect that breaks "no second create unless a human chose it on fresh absence". */
export async function findUnchosenSecondCreates(
  db: Db,
  destination: TruthSource,
): Promise<SecondCreate[]> {
  const truth = destination.truthDump().effects;
  return db.transaction(
    async (tx) => {
      const executions = (
        await tx.query<Execution>(
          "SELECT execution_id, effect_id, step, operation_id, opened_by FROM effect_executions ORDER BY effect_id, step",
        )
      ).rows;
      const byOperation = new Map(executions.map((x) => [x.operation_id, x]));
      const reached = new Map<string, Set<string>>();
      for (const e of truth) {
        for (const ref of [e.client_ref, e.idempotency_key]) {
          const x = ref === null ? undefined : byOperation.get(ref);
          if (x === undefined) continue;
          const set = reached.get(x.effect_id) ?? new Set<string>();
          set.add(x.operation_id);
          reached.set(x.effect_id, set);
        }
      }
      const out: SecondCreate[] = [];
      for (const [effectId, ops] of reached) {
        if (ops.size < 2) continue;
        const ordered = [...ops].sort(
          (a, b) => (byOperation.get(a)?.step ?? 0) - (byOperation.get(b)?.step ?? 0),
        );
        for (const op of ordered.slice(1)) {
          const reason = await whyNotChosen(tx, effectId, byOperation.get(op));
          if (reason !== null) out.push({ effectId, operationIds: ordered, unchosen: op, reason });
        }
      }
      return out;
    },
    { readOnly: true },
  );
}

/** Null when `x` was opened by a human re-dispatch on fresh absence; else why not. */
async function whyNotChosen(
  tx: Pick<Db, "query">,
  effectId: string,
  x: Execution | undefined,
): Promise<string | null> {
  if (x === undefined || x.opened_by !== "resolve_redispatch")
    return `opened by ${x?.opened_by ?? "nothing"}, not a human re-dispatch`;
  // The REDISPATCHED edge written in the transaction that opened this execution.
  const { rows } = await tx.query<{
    actor: string;
    absent_probe_id: unknown;
    decided_at: string;
    cited_result: string | null;
    cited_execution: unknown;
    newest_then: unknown;
    presence_before: boolean;
  }>(
    `SELECT r.actor, r.evidence->>'absent_probe_id' AS absent_probe_id, r.created_at::text AS decided_at,
            p.result AS cited_result, p.execution_id AS cited_execution,
            (SELECT max(q.probe_id) FROM status_probes q WHERE q.execution_id = p.execution_id
              AND q.recorded_at <= r.created_at) AS newest_then,
            EXISTS (SELECT 1 FROM status_probes q JOIN effect_executions y ON y.execution_id = q.execution_id
                     WHERE y.effect_id = $1 AND q.result = 'PRESENT' AND q.recorded_at <= r.created_at)
         OR EXISTS (SELECT 1 FROM findings c WHERE c.effect_id = $1 AND c.classification = 'CONTRADICTED'
                     AND c.created_at <= r.created_at
                     AND NOT EXISTS (SELECT 1 FROM finding_resolutions z
                                      WHERE z.finding_id = c.finding_id AND z.to_status = 'COMPENSATED'))
         OR EXISTS (SELECT 1 FROM late_responses l JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
                      JOIN effect_executions y ON y.execution_id = a.execution_id
                     WHERE y.effect_id = $1 AND l.transport_outcome = 'OK' AND l.recorded_at <= r.created_at)
            AS presence_before
       FROM findings f JOIN finding_resolutions r ON r.finding_id = f.finding_id AND r.to_status = 'REDISPATCHED'
       LEFT JOIN status_probes p ON p.probe_id = (r.evidence->>'absent_probe_id')::bigint
      WHERE f.effect_id = $1 AND r.evidence->>'failed_execution_id' =
            (SELECT w.execution_id::text FROM effect_executions w WHERE w.effect_id = $1 AND w.step = $2 - 1)
      ORDER BY r.resolution_seq DESC LIMIT 1`,
    [effectId, x.step],
  );
  const d = rows[0];
  if (d === undefined) return "no REDISPATCHED decision on the execution before it";
  if (d.actor !== "human") return `re-dispatch decided by ${d.actor}, not a human`;
  if (d.cited_result !== "ABSENT") return "the decision cites no ABSENT probe";
  if (String(d.newest_then) !== String(d.absent_probe_id))
    return "the cited ABSENT probe was not the newest read when deciding";
  if (d.presence_before) return "the ledger already showed the effect when deciding";
  return null;
}

/** Fails the test listing every second create nobody chose on fresh evidence of absence. */
export async function expectNoUnchosenSecondCreate(
  db: Db,
  destination: TruthSource,
): Promise<void> {
  expect(await findUnchosenSecondCreates(db, destination)).toEqual([]);
}
