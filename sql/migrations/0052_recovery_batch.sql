-- 0052_recovery_batch: recovery at scale (issue 11, "recovery of 200"). Nothing here decides
-- anything: the absence rule and every reconcile decision stay in the engine
-- (engine/reconciler, engine/reconcile-absence). These only read what a reconcile step decides
-- on, for many effects in one statement, and write what a decision permits in one call.
--   effect_transitions (execution_id, transition_seq)
--                                    the frontier of an execution is its newest transition;
--                                    without this index every frontier read (the views of 0009)
--                                    walked the whole transition table backwards, so listing the
--                                    open executions grew with the square of the ledger
--   irrevon_jcs(value)               RFC 8785 text of a JSON value built by the ledger (integer
--                                    numbers, ASCII member names): the same text as
--                                    core/canonical for such values, so a digest computed here
--                                    equals the engine's canonicalDigest
--   irrevon_reconcile_inputs(ids)    everything a reconcile step reads, for many effects, and
--                                    the database clock, as one jsonb
--   ledger_reconcile_settle(...)     a probe that settles an AMBIGUOUS execution: the probe row,
--                                    the exit transition citing it and the finding (with its
--                                    escalation) in one call; a refused exit (a lost race)
--                                    keeps the probe and is returned, not raised
-- Run as the caller (SECURITY INVOKER) like 0050: irrevon_app's grants and the locked
-- functions of 0010/0044 (ledger_transition, ledger_attach_finding, ledger_resolve) still
-- guard every row written.

-- The frontier lookup index (effect_transitions (execution_id, transition_seq)) is 0051's.

CREATE FUNCTION irrevon_jcs(p_value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = public, pg_temp
AS $$
DECLARE
  v_text text;
  v_number numeric;
BEGIN
  CASE jsonb_typeof(p_value)
  WHEN 'object' THEN
    IF EXISTS (SELECT 1 FROM jsonb_object_keys(p_value) k WHERE k !~ '^[ -~]*$') THEN
      RAISE EXCEPTION 'irrevon_jcs: member names must be printable ASCII' USING ERRCODE = 'DT005';
    END IF;
    -- Printable ASCII sorts the same by bytes (C collation) as by UTF-16 code units (RFC 8785).
    SELECT '{' || COALESCE(string_agg(to_json(e.key)::text || ':' || irrevon_jcs(e.value), ','
                                      ORDER BY e.key COLLATE "C"), '') || '}'
      INTO v_text FROM jsonb_each(p_value) e;
    RETURN v_text;
  WHEN 'array' THEN
    SELECT '[' || COALESCE(string_agg(irrevon_jcs(e.value), ',' ORDER BY e.ord), '') || ']'
      INTO v_text FROM jsonb_array_elements(p_value) WITH ORDINALITY AS e(value, ord);
    RETURN v_text;
  WHEN 'string' THEN
    RETURN to_json(p_value #>> '{}')::text;
  WHEN 'number' THEN
    v_number := (p_value #>> '{}')::numeric;
    IF v_number <> trunc(v_number) OR abs(v_number) > 9007199254740991 THEN
      RAISE EXCEPTION 'irrevon_jcs: only safe integers are supported, got %', v_number USING ERRCODE = 'DT005';
    END IF;
    RETURN trunc(v_number)::text;
  WHEN 'boolean' THEN
    RETURN p_value #>> '{}';
  ELSE
    RETURN 'null';
  END CASE;
END
$$;

-- The engine's digest format: "sha256:" || hex(SHA-256(JCS(value))).
CREATE FUNCTION irrevon_evidence_digest(p_value jsonb) RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = public, pg_temp
AS $$
  SELECT 'sha256:' || encode(sha256(convert_to(irrevon_jcs(p_value), 'UTF8')), 'hex')
$$;

-- Per effect: the record, its latest execution (frontier), that execution's open attempts
-- (with their owner's lease liveness), every attempt with what the absence rule reads (receipt
-- instants, stamped horizon, the receipt writer's latest lease row, the newest late response),
-- its reconcile probes and the newest destination ref a receipt recorded. Field names are the
-- column names of the single-effect reads in src/ledger, so one mapper serves both. 'now' is
-- read first: the lease rows and every fact after it are at least that new.
CREATE FUNCTION irrevon_reconcile_inputs(p_effect_ids text[]) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = public, pg_temp
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
    'destination_ref', (
      SELECT d.destination_ref FROM dispatch_receipts d JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
       WHERE a.execution_id = latest.execution_id AND d.destination_ref IS NOT NULL
       ORDER BY d.receipt_id DESC LIMIT 1)
  )), '[]'::jsonb) INTO v_effects FROM latest;
  RETURN jsonb_build_object('now', irrevon_iso(v_now), 'effects', v_effects);
END
$$;

-- One probe that settles its AMBIGUOUS execution, in one call (one transaction):
--   p_probe           the status_probes row (execution_id, adapter_id, declaration_digest,
--                     probe_kind, query_keys, result, n_found, destination_refs,
--                     response_digest, queried_at, evidence)
--   p_prior_probe_ids probes cited before this one (the first ABSENT read of a confirmation)
--   p_to_state, p_cause, p_actor
--                     the exit from AMBIGUOUS (checked by ledger_transition: edge, citations)
--   p_finding         {effect_id, adapter_id, destination_ref, classification, excess,
--                     created_by, evidence (members added to the cited probe ids), escalate}
-- The transition cites {probe_ids} (the prior ids and this probe's); the finding's evidence is
-- {execution_id, settle_transition_seq, probe_ids, ...p_finding.evidence}, digested here exactly
-- as the engine digests it; an escalation's evidence also gets the probe_ids. A refused exit
-- (DT002: another writer settled first; DT044: a citation failed; any other error) writes
-- neither transition nor finding, keeps the probe, and is returned as status 'refused' with
-- its SQLSTATE, message and constraint for the engine to raise, not raised here.
CREATE FUNCTION ledger_reconcile_settle(
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
          (p_probe->>'queried_at')::timestamptz, p_probe->'evidence')
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

REVOKE ALL ON FUNCTION
  irrevon_jcs(jsonb),
  irrevon_evidence_digest(jsonb),
  irrevon_reconcile_inputs(text[]),
  ledger_reconcile_settle(jsonb, bigint[], text, text, text, jsonb)
FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
  irrevon_jcs(jsonb),
  irrevon_evidence_digest(jsonb),
  irrevon_reconcile_inputs(text[]),
  ledger_reconcile_settle(jsonb, bigint[], text, text, text, jsonb)
TO irrevon_app;
GRANT EXECUTE ON FUNCTION irrevon_jcs(jsonb), irrevon_evidence_digest(jsonb), irrevon_reconcile_inputs(text[])
TO irrevon_read;
