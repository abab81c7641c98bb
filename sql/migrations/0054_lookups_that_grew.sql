-- 0054_lookups_that_grew: recovery got slower the bigger the ledger (issue 11; found by
-- `npm run bench:engine`, whose Postgres recovery runs on the ledger its throughput phase
-- filled: 200 AMBIGUOUS effects took 6.2 s there and 0.47 s on a fresh database). EXPLAIN
-- ANALYZE of irrevon_reconcile_inputs on a ledger of 12 000 effects: 1.3 s for a page of 100,
-- nearly all of it in one subquery — "the newest receipt of this execution that has a
-- destination ref", written as a join ORDER BY receipt_id DESC LIMIT 1. For an AMBIGUOUS
-- execution there is no such receipt, and the planner walked the receipts' primary key
-- newest-first looking for one: every receipt in the ledger, for every effect of the page.
-- The same shape is in the engine's reads of run() results (src/ledger/run-reads.ts, fixed
-- there). Nothing here changes a fact or an answer:
--
-- 1. irrevon_reconcile_inputs: that subquery becomes an aggregate over the execution's
--    attempts (each has at most one receipt), which no plan can answer by a walk of the ledger.
-- 2. "The newest probe / decision of an execution" gets an index in that order, so ORDER BY
--    probe_id DESC LIMIT 1 under an execution (decision_id DESC under an execution and variant,
--    as every decision lookup is made) is an index lookup, never a walk of
--    the primary key: status_probes (execution_id, probe_id) and gate_decisions (execution_id,
--    variant, decision_id) replace the single-column indexes they extend.
-- 3. irrevon_reconcile_inputs runs without JIT compilation. Its plan's cost estimate (a subplan
--    per field, an unknown number of ids) is above jit_above_cost, so a server with JIT spent
--    ~30 ms compiling every call — a page of 100 effects, and every single-effect re-read after
--    an ABSENT answer — to run a query of a few milliseconds.

CREATE INDEX status_probes_execution_probe_idx ON status_probes (execution_id, probe_id);
DROP INDEX status_probes_execution_id_idx;
CREATE INDEX gate_decisions_execution_variant_idx ON gate_decisions (execution_id, variant, decision_id);
DROP INDEX gate_decisions_execution_id_idx;

CREATE OR REPLACE FUNCTION irrevon_reconcile_inputs(p_effect_ids text[]) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = public, pg_temp
SET jit = off
AS $$
DECLARE
  v_now timestamptz := clock_timestamp();
  v_effects jsonb;
BEGIN
  WITH ids AS (
    SELECT DISTINCT u.effect_id FROM unnest(p_effect_ids) AS u(effect_id)
  ), latest AS (
    SELECT ids.effect_id, l.execution_id, l.step, l.operation_id, l.opened_by, l.frontier
      FROM ids LEFT JOIN LATERAL (
        SELECT f.* FROM execution_frontiers f WHERE f.effect_id = ids.effect_id
         ORDER BY f.step DESC LIMIT 1) l ON true
  )
  SELECT COALESCE(jsonb_agg(jsonb_build_object(
    'effect_id', latest.effect_id,
    'record', (SELECT jsonb_build_object(
        'effect_id', r.effect_id, 'effect_type', r.effect_type, 'effect_class', r.effect_class,
        'scope', r.scope, 'stable_ids', r.stable_ids, 'adapter_id', r.adapter_id,
        'declaration_digest', r.declaration_digest, 'parameters_digest', r.parameters_digest,
        'branch_ref', r.branch_ref, 'identity_version', r.identity_version,
        'contract_canonical', r.contract_canonical, 'created_at', irrevon_iso(r.created_at))
        FROM effect_records r WHERE r.effect_id = latest.effect_id),
    'latest', CASE WHEN latest.execution_id IS NULL THEN NULL ELSE jsonb_build_object(
        'execution_id', latest.execution_id, 'effect_id', latest.effect_id, 'step', latest.step,
        'operation_id', latest.operation_id, 'opened_by', latest.opened_by, 'frontier', latest.frontier) END,
    'open_attempts', COALESCE((
      SELECT jsonb_agg(jsonb_build_object(
          'attempt_id', a.attempt_id, 'execution_id', a.execution_id, 'effect_id', latest.effect_id,
          'kind', a.kind, 'claimed_at', irrevon_iso(a.claimed_at),
          'owner_worker_id', a.owner_worker_id, 'fencing_token', a.fencing_token,
          'is_owner_live', (a.owner_worker_id IS NOT NULL AND irrevon_lease_live(a.owner_worker_id, a.fencing_token)))
          ORDER BY a.attempt_id)
        FROM dispatch_attempts a
       WHERE a.execution_id = latest.execution_id
         AND NOT EXISTS (SELECT 1 FROM dispatch_receipts d WHERE d.attempt_id = a.attempt_id)), '[]'::jsonb),
    'horizons', COALESCE((
      SELECT jsonb_agg(jsonb_build_object(
          'attempt_id', a.attempt_id, 'operation_id', a.operation_id, 'claimed_at', irrevon_iso(a.claimed_at),
          'receipt_recorded_at', CASE WHEN d.receipt_id IS NULL THEN NULL ELSE irrevon_iso(d.recorded_at) END,
          'commit_horizon_at', d.evidence->>'commit_horizon_at',
          'deadline_ms', CASE WHEN jsonb_typeof(d.evidence->'deadline_ms') = 'number' THEN d.evidence->'deadline_ms' END,
          'call_unsettled', (d.evidence->'call_unsettled') = 'true'::jsonb,
          'recorded_by_worker', d.recorded_by_worker, 'fencing_token', d.fencing_token,
          'last_late_at', (SELECT irrevon_iso(max(lr.recorded_at)) FROM late_responses lr
                            WHERE lr.attempt_id = a.attempt_id HAVING count(*) > 0),
          'receipt_lease', CASE WHEN d.recorded_by_worker IS NULL THEN NULL ELSE (
            SELECT jsonb_build_object('fencing_token', w.fencing_token, 'event', w.event,
                                      'expires_at', irrevon_iso(w.expires_at), 'is_past', w.expires_at <= clock_timestamp())
              FROM worker_leases w WHERE w.worker_id = d.recorded_by_worker
             ORDER BY w.lease_seq DESC LIMIT 1) END)
          ORDER BY a.attempt_no)
        FROM dispatch_attempts a LEFT JOIN dispatch_receipts d ON d.attempt_id = a.attempt_id
       WHERE a.execution_id = latest.execution_id), '[]'::jsonb),
    'probes', COALESCE((
      SELECT jsonb_agg(jsonb_build_object(
          'probe_id', p.probe_id, 'execution_id', p.execution_id, 'probe_kind', p.probe_kind,
          'query_keys', p.query_keys, 'evidence', p.evidence, 'result', p.result, 'n_found', p.n_found,
          'destination_refs', p.destination_refs, 'queried_at', irrevon_iso(p.queried_at))
          ORDER BY p.probe_id)
        FROM status_probes p
       WHERE p.execution_id = latest.execution_id AND p.probe_kind = 'reconcile_open'), '[]'::jsonb),
    -- The newest receipt's ref, as an aggregate over the execution's attempts (no ORDER BY …
    -- LIMIT 1 the planner can answer by walking every receipt newest-first).
    'destination_ref', (
      SELECT (array_agg(d.destination_ref ORDER BY d.receipt_id DESC))[1]
        FROM dispatch_attempts a JOIN dispatch_receipts d ON d.attempt_id = a.attempt_id
       WHERE a.execution_id = latest.execution_id AND d.destination_ref IS NOT NULL)
  )), '[]'::jsonb) INTO v_effects FROM latest;
  RETURN jsonb_build_object('now', irrevon_iso(v_now), 'effects', v_effects);
END
$$;
