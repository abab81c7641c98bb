-- 0060_settle_reads_its_clock: a probe that settles on a PRESENT answer takes its time from the
-- settle statement itself (issue 11, recovery: one statement fewer per present effect).
--
-- After a PRESENT answer the reconciler read the database clock in a statement of its own, only
-- to stamp the probe's queried_at (engine time: database time plus the clock's test offset, and
-- never earlier than the instant the probe was judged due at), then sent the settle. Nothing is
-- decided on that time, so the settle can read it: ledger_reconcile_settle now accepts a probe
-- without queried_at and with clock_offset_ms and not_before instead, and stamps
--   queried_at = GREATEST(clock_timestamp() + clock_offset_ms, not_before)   (to the millisecond,
--                                                                           like the engine's)
-- which is the engine's formula (engine/engine-time) read one statement later, still after the
-- answer arrived. A probe that carries queried_at is written with it, as before. Everything
-- else is 0052's function unchanged.

CREATE OR REPLACE FUNCTION ledger_reconcile_settle(
  p_probe jsonb, p_prior_probe_ids bigint[], p_to_state text, p_cause text, p_actor text, p_finding jsonb
) RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
  v_probe bigint;
  v_ids jsonb;
  v_seq bigint;
  v_evidence jsonb;
  v_finding bigint;
  v_state text;
  v_message text;
  v_constraint text;
BEGIN
  INSERT INTO status_probes (execution_id, adapter_id, declaration_digest, probe_kind, query_keys, result,
                             n_found, destination_refs, response_digest, queried_at, evidence)
  VALUES ((p_probe->>'execution_id')::bigint, p_probe->>'adapter_id', p_probe->>'declaration_digest',
          p_probe->>'probe_kind', p_probe->'query_keys', p_probe->>'result',
          (p_probe->>'n_found')::integer, p_probe->'destination_refs', p_probe->>'response_digest',
          COALESCE((p_probe->>'queried_at')::timestamptz,
                   GREATEST(date_trunc('milliseconds', clock_timestamp())
                              + (p_probe->>'clock_offset_ms')::bigint * interval '1 millisecond',
                            (p_probe->>'not_before')::timestamptz)),
          p_probe->'evidence')
  RETURNING probe_id INTO v_probe;
  v_ids := to_jsonb(COALESCE(p_prior_probe_ids, ARRAY[]::bigint[]) || v_probe);

  -- The exit and its finding form one subtransaction: refused, they leave nothing, and the
  -- probe (already answered by the destination) stays on record, as when it was written first.
  BEGIN
    v_seq := ledger_transition((p_probe->>'execution_id')::bigint, 'AMBIGUOUS', p_to_state, p_cause, p_actor,
                               jsonb_build_object('probe_ids', v_ids));
    v_evidence := jsonb_build_object('execution_id', (p_probe->>'execution_id')::bigint,
                                     'settle_transition_seq', v_seq, 'probe_ids', v_ids)
                  || COALESCE(p_finding->'evidence', '{}'::jsonb);
    v_finding := ledger_attach_finding(p_finding->>'effect_id', p_finding->>'adapter_id',
                                       p_finding->>'destination_ref', p_finding->>'classification',
                                       (p_finding->>'excess')::integer, v_evidence,
                                       irrevon_evidence_digest(v_evidence), p_finding->>'created_by');
    IF jsonb_typeof(p_finding->'escalate') = 'object' THEN
      PERFORM ledger_resolve(v_finding, 'OPEN', 'ESCALATED_HUMAN', 'system',
                             (p_finding->'escalate') || jsonb_build_object('probe_ids', v_ids));
    END IF;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_message = MESSAGE_TEXT,
                            v_constraint = CONSTRAINT_NAME;
    RETURN jsonb_build_object('status', 'refused', 'probe_id', v_probe, 'sqlstate', v_state,
                              'message', v_message, 'constraint', NULLIF(v_constraint, ''));
  END;
  RETURN jsonb_build_object('status', 'settled', 'probe_id', v_probe, 'transition_seq', v_seq,
                            'finding_id', v_finding);
END
$$;
