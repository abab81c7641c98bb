-- 0050_hot_path: one statement per step of a guarded effect (issue 11; docs/decisions/
-- 0007-claim-design.md). Nothing here decides the gate: the four checks stay in the engine
-- (ledger/gate-evaluate). These functions only read what the gate decides on, in one
-- statement, and write what a decision permits, under the claim's locks, after checking that
-- the facts the gate saw are still the facts (a version: md5 of the inputs, gate time aside).
--   irrevon_claim_inputs(effect)      everything the claim and the gate read, as one jsonb
--   irrevon_claim_version(inputs)     the version of those inputs (gate time aside)
--   ledger_register(intent, skew, lock_slot, with_inputs)
--                                     registration or replay adjudication in one call
--   ledger_claim(...)                 slot/record locks, version re-check, slot-busy check,
--                                     decision row, attempt, PERSISTED→DISPATCHED
--   ledger_record_receipt(...)        receipt + settle transition, or a late response
--                                     (returned, not raised), and whether a finding waits
--                                     on this commit to close its resolution
-- All run as the caller (SECURITY INVOKER): irrevon_app's own grants and the locked functions
-- of 0010 still guard every row they write.

CREATE FUNCTION irrevon_iso(p_ts timestamptz) RETURNS text
LANGUAGE sql STABLE
SET search_path = public, pg_temp
AS $$
  SELECT to_char(p_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

-- Everything one claim reads, under whatever locks the caller holds. NULL: no such record.
-- PL/pgSQL so the (large) statement is planned once per session, not on every call.
CREATE FUNCTION irrevon_claim_inputs(p_effect_id text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = public, pg_temp
AS $$
DECLARE
  v_inputs jsonb;
BEGIN
  WITH rec AS (
    SELECT r.* FROM effect_records r WHERE r.effect_id = p_effect_id
  ), ex AS (
    SELECT f.execution_id, f.step, f.operation_id, f.opened_by, f.frontier
      FROM execution_frontiers f WHERE f.effect_id = p_effect_id
  ), latest AS (
    SELECT ex.* FROM ex ORDER BY ex.step DESC LIMIT 1
  ), fnd AS (
    SELECT f.finding_id, f.evidence->>'execution_id' AS cited FROM findings f
     WHERE f.effect_id = p_effect_id
  )
  SELECT jsonb_build_object(
    'record', jsonb_build_object(
      'effect_id', rec.effect_id, 'effect_type', rec.effect_type, 'effect_class', rec.effect_class,
      'scope', rec.scope, 'stable_ids', rec.stable_ids, 'adapter_id', rec.adapter_id,
      'declaration_digest', rec.declaration_digest, 'parameters_digest', rec.parameters_digest,
      'branch_ref', rec.branch_ref, 'identity_version', rec.identity_version,
      'contract_canonical', rec.contract_canonical, 'created_at', irrevon_iso(rec.created_at)),
    'executions', COALESCE((
      SELECT jsonb_agg(jsonb_build_object(
        'execution_id', ex.execution_id, 'step', ex.step, 'operation_id', ex.operation_id,
        'opened_by', ex.opened_by, 'frontier', ex.frontier,
        'receipt_ids', COALESCE((
          SELECT jsonb_agg(d.receipt_id ORDER BY d.receipt_id) FROM dispatch_receipts d
            JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
           WHERE a.execution_id = ex.execution_id), '[]'::jsonb),
        -- Findings cite their execution in evidence; one that does not is charged to the latest.
        'finding_ids', COALESCE((
          SELECT jsonb_agg(fnd.finding_id ORDER BY fnd.finding_id) FROM fnd
           WHERE CASE WHEN fnd.cited IS NULL THEN ex.execution_id = (SELECT l.execution_id FROM latest l)
                      WHEN fnd.cited ~ '^\s*-?[0-9]+(\.[0-9]*)?\s*$' THEN btrim(fnd.cited)::numeric = ex.execution_id
                      ELSE false END), '[]'::jsonb)
      ) ORDER BY ex.step) FROM ex), '[]'::jsonb),
    -- What the latest execution sends: the variant adopted at or before its step, else the record's.
    'sent', COALESCE((
      SELECT jsonb_build_object('parameters', p.parameters, 'parameters_digest', p.parameters_digest, 'adopted', true)
        FROM execution_parameters p JOIN effect_executions x ON x.execution_id = p.execution_id
       WHERE x.effect_id = p_effect_id AND x.step <= COALESCE((SELECT l.step FROM latest l), 0)
       ORDER BY x.step DESC LIMIT 1),
      jsonb_build_object('parameters', rec.parameters, 'parameters_digest', rec.parameters_digest, 'adopted', false)),
    'deny_hits', COALESCE((
      SELECT jsonb_agg(jsonb_build_object('deny_id', d.deny_id, 'reason', d.reason) ORDER BY d.deny_id)
        FROM deny_entries d
       WHERE NOT EXISTS (SELECT 1 FROM deny_lifts l WHERE l.deny_id = d.deny_id)
         AND (d.effect_class IS NULL OR d.effect_class = rec.effect_class)
         AND (d.effect_type IS NULL OR d.effect_type = rec.effect_type)
         AND (d.scope IS NULL OR d.scope = rec.scope)), '[]'::jsonb),
    'authority', (
      SELECT jsonb_build_object('authority_id', a.authority_id, 'authority_ref', a.authority_ref,
               'scope', a.scope, 'stamped_at', irrevon_iso(a.stamped_at),
               'expires_at', irrevon_iso(x.expiry), 'is_expired', COALESCE(now() > x.expiry, false))
        FROM effect_authorities l
        JOIN authorities a ON a.authority_id = l.authority_id
        CROSS JOIN LATERAL (
          SELECT COALESCE(a.expires_at, a.stamped_at + (
            SELECT p.max_age FROM authority_policies p
             WHERE p.scope_pattern IN (rec.scope, '*')
             ORDER BY (p.scope_pattern = rec.scope) DESC, p.policy_id DESC LIMIT 1)) AS expiry
        ) x
       WHERE l.effect_id = p_effect_id
       ORDER BY l.link_id DESC LIMIT 1),
    'branch_cancelled', rec.branch_ref IS NOT NULL
      AND EXISTS (SELECT 1 FROM branch_cancellations b WHERE b.branch_ref = rec.branch_ref),
    'variants', COALESCE((
      SELECT jsonb_agg(v.parameters_digest ORDER BY v.first_id) FROM (
        SELECT pv.parameters_digest, MIN(pv.variant_id) AS first_id FROM parameter_variants pv
         WHERE pv.effect_id = p_effect_id GROUP BY pv.parameters_digest) v), '[]'::jsonb),
    'presence', jsonb_build_object(
      'probe_ids', COALESCE((
        SELECT jsonb_agg(p.probe_id ORDER BY p.probe_id) FROM status_probes p
          JOIN effect_executions x ON x.execution_id = p.execution_id
         WHERE x.effect_id = p_effect_id AND p.result = 'PRESENT'), '[]'::jsonb),
      'finding_ids', COALESCE((
        SELECT jsonb_agg(f.finding_id ORDER BY f.finding_id) FROM findings f
         WHERE f.effect_id = p_effect_id AND f.classification = 'CONTRADICTED'
           AND f.evidence->>'direction' = 'failed_but_present'), '[]'::jsonb),
      'late_response_ids', COALESCE((
        SELECT jsonb_agg(lr.late_id ORDER BY lr.late_id) FROM late_responses lr
          JOIN dispatch_attempts a ON a.attempt_id = lr.attempt_id
          JOIN effect_executions x ON x.execution_id = a.execution_id
         WHERE x.effect_id = p_effect_id AND lr.transport_outcome = 'OK'), '[]'::jsonb)),
    -- The last decision per variant on the latest execution (a repeated automatic deny).
    'last_decisions', COALESCE((
      SELECT jsonb_object_agg(d.variant, jsonb_build_object('decision_id', d.decision_id,
               'outcome', d.outcome, 'deny_check', d.deny_check, 'evidence', d.evidence))
        FROM (SELECT DISTINCT ON (g.variant) g.* FROM gate_decisions g
               WHERE g.execution_id = (SELECT l.execution_id FROM latest l)
               ORDER BY g.variant, g.decision_id DESC) d), '{}'::jsonb),
    'gate_time', irrevon_iso(now())
  ) INTO v_inputs FROM rec;
  RETURN v_inputs;
END
$$;

CREATE FUNCTION irrevon_claim_version(p_inputs jsonb) RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = public, pg_temp
AS $$
  SELECT md5((p_inputs - 'gate_time')::text)
$$;

-- Takes the (scope, effect_type) slot row, inserting it if absent.
CREATE FUNCTION irrevon_lock_slot(p_scope text, p_effect_type text) RETURNS void
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
  INSERT INTO scope_slots (scope, effect_type) VALUES (p_scope, p_effect_type) ON CONFLICT DO NOTHING;
  PERFORM 1 FROM scope_slots s WHERE s.scope = p_scope AND s.effect_type = p_effect_type FOR UPDATE;
END
$$;

-- Registration (new record: authority, link, execution ∅→INTENDED→PERSISTED/CANCELLED) or the
-- adjudication of a replay, in one call. Refusals are RETURNED (status future_stamp, collision,
-- conflict, raced) with nothing written, so the engine raises the documented error.
CREATE FUNCTION ledger_register(p_intent jsonb, p_max_skew_ms bigint, p_lock_slot boolean, p_with_inputs boolean)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
  v_id text := p_intent->>'effect_id';
  v_stamped timestamptz := (p_intent->>'stamped_at')::timestamptz;
  v_event timestamptz := (p_intent->>'event_time')::timestamptz;
  v_now timestamptz := clock_timestamp();
  v_stored record;
  v_created boolean := false;
  v_variant text := NULL;
  v_refresh boolean := false;
  v_authority bigint;
  v_latest record;
  v_inputs jsonb := NULL;
BEGIN
  IF p_max_skew_ms IS NOT NULL AND v_stamped > v_now + p_max_skew_ms * interval '1 millisecond' THEN
    RETURN jsonb_build_object('status', 'future_stamp',
      'now_ms', floor(extract(epoch FROM v_now) * 1000)::bigint);
  END IF;
  IF p_lock_slot THEN
    PERFORM irrevon_lock_slot(p_intent->>'scope', p_intent->>'effect_type');
  END IF;
  -- D4 before anything is written: another preimage under this id is a collision, never a merge.
  SELECT r.contract_canonical INTO v_stored FROM effect_records r WHERE r.effect_id = v_id;
  IF FOUND AND v_stored.contract_canonical <> p_intent->>'contract_canonical' THEN
    RETURN jsonb_build_object('status', 'collision', 'stored_canonical', v_stored.contract_canonical);
  END IF;

  INSERT INTO effect_records (effect_id, identity_version, contract_canonical, effect_type, effect_class, scope,
                              stable_ids, adapter_id, declaration_digest, parameters, parameters_digest,
                              branch_ref, event_time)
  VALUES (v_id, (p_intent->>'identity_version')::smallint, p_intent->>'contract_canonical',
          p_intent->>'effect_type', p_intent->>'effect_class', p_intent->>'scope', p_intent->'stable_ids',
          p_intent->>'adapter_id', p_intent->>'declaration_digest', p_intent->'parameters',
          p_intent->>'parameters_digest', p_intent->>'branch_ref', v_event)
  ON CONFLICT (effect_id) DO NOTHING;
  v_created := FOUND;

  IF v_created THEN
    INSERT INTO authorities (authority_ref, scope, stamped_at)
    VALUES (p_intent->>'authority_ref', p_intent->>'scope', v_stamped) RETURNING authority_id INTO v_authority;
    INSERT INTO effect_authorities (effect_id, authority_id) VALUES (v_id, v_authority);
    PERFORM ledger_open_execution(v_id, 'register');
  ELSE
    SELECT r.contract_canonical, r.effect_class, r.adapter_id, r.branch_ref, r.parameters_digest,
           (r.event_time IS DISTINCT FROM v_event) AS event_time_differs,
           cur.authority_ref, (cur.stamped_at IS DISTINCT FROM v_stamped) AS stamped_at_differs
      INTO v_stored
      FROM effect_records r
      LEFT JOIN LATERAL (
        SELECT a.authority_ref, a.stamped_at FROM effect_authorities l
          JOIN authorities a ON a.authority_id = l.authority_id
         WHERE l.effect_id = r.effect_id ORDER BY l.link_id DESC LIMIT 1
      ) cur ON true
     WHERE r.effect_id = v_id
     FOR UPDATE OF r;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('status', 'raced');
    END IF;
    IF v_stored.contract_canonical <> p_intent->>'contract_canonical' THEN
      RETURN jsonb_build_object('status', 'collision', 'stored_canonical', v_stored.contract_canonical);
    END IF;
    IF v_stored.effect_class <> p_intent->>'effect_class'
       OR v_stored.adapter_id <> p_intent->>'adapter_id'
       OR v_stored.branch_ref IS DISTINCT FROM p_intent->>'branch_ref' THEN
      RETURN jsonb_build_object('status', 'conflict', 'stored', jsonb_build_object(
        'effect_class', v_stored.effect_class, 'adapter_id', v_stored.adapter_id,
        'branch_ref', v_stored.branch_ref));
    END IF;
    IF v_stored.parameters_digest <> p_intent->>'parameters_digest' OR v_stored.event_time_differs THEN
      INSERT INTO parameter_variants (effect_id, parameters_digest, event_time)
      VALUES (v_id, p_intent->>'parameters_digest', v_event);
      v_variant := p_intent->>'parameters_digest';
    END IF;
    v_refresh := v_stored.authority_ref IS DISTINCT FROM p_intent->>'authority_ref'
                 OR v_stored.stamped_at_differs IS DISTINCT FROM false;
    IF v_refresh THEN
      INSERT INTO authorities (authority_ref, scope, stamped_at)
      VALUES (p_intent->>'authority_ref', p_intent->>'scope', v_stamped) RETURNING authority_id INTO v_authority;
      INSERT INTO effect_authorities (effect_id, authority_id) VALUES (v_id, v_authority);
    END IF;
  END IF;

  SELECT f.operation_id, f.frontier INTO v_latest FROM execution_frontiers f
   WHERE f.effect_id = v_id ORDER BY f.step DESC LIMIT 1;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('status', 'no_execution');
  END IF;
  IF p_with_inputs THEN
    v_inputs := irrevon_claim_inputs(v_id);
  END IF;
  RETURN jsonb_build_object('status', 'ok', 'created', v_created, 'variant_digest', v_variant,
    'authority_refresh', v_refresh, 'operation_id', v_latest.operation_id, 'frontier', v_latest.frontier,
    'inputs', v_inputs, 'version', CASE WHEN v_inputs IS NULL THEN NULL ELSE irrevon_claim_version(v_inputs) END);
END
$$;

-- T-CLAIM in one call. The engine read irrevon_claim_inputs, decided the gate on it and passes
-- the decision with the version it decided on. Under the slot (when used) and record locks the
-- inputs are read again: another version ⇒ 'stale', nothing written, the engine decides again.
-- Then: an open attempt in the slot ⇒ 'scope_busy' (no decision row); the decision row (or the
-- repeated deny it names); on ALLOW the attempt (fenced, gated) and PERSISTED→DISPATCHED.
CREATE FUNCTION ledger_claim(
  p_effect_id text, p_version text, p_use_slot boolean, p_variant text,
  p_decision jsonb, p_repeat_of bigint, p_attempt jsonb
) RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
  v_rec record;
  v_inputs jsonb;
  v_latest jsonb;
  v_execution bigint;
  v_busy record;
  v_decision bigint;
  v_attempt bigint;
  v_attempt_no integer;
BEGIN
  SELECT r.scope, r.effect_type, r.adapter_id, r.declaration_digest INTO v_rec
    FROM effect_records r WHERE r.effect_id = p_effect_id;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('status', 'stale');
  END IF;
  IF p_use_slot THEN
    PERFORM irrevon_lock_slot(v_rec.scope, v_rec.effect_type);
  END IF;
  PERFORM 1 FROM effect_records r WHERE r.effect_id = p_effect_id FOR UPDATE;

  v_inputs := irrevon_claim_inputs(p_effect_id);
  IF v_inputs IS NULL OR irrevon_claim_version(v_inputs) IS DISTINCT FROM p_version THEN
    RETURN jsonb_build_object('status', 'stale');
  END IF;
  v_latest := v_inputs->'executions'->-1;
  v_execution := (v_latest->>'execution_id')::bigint;

  -- Slot-busy precedes the gate: an open attempt means some wire call's outcome is unknown.
  IF p_use_slot AND v_latest->>'frontier' <> 'CANCELLED' THEN
    SELECT o.attempt_id, o.effect_id INTO v_busy FROM open_attempts o
     WHERE o.scope = v_rec.scope AND o.effect_type = v_rec.effect_type ORDER BY o.attempt_id LIMIT 1;
    IF FOUND THEN
      RETURN jsonb_build_object('status', 'scope_busy', 'attempt_id', v_busy.attempt_id,
                                'blocking_effect_id', v_busy.effect_id);
    END IF;
  END IF;

  IF p_repeat_of IS NOT NULL THEN
    RETURN jsonb_build_object('status', 'denied', 'decision_id', p_repeat_of, 'repeated', true,
                              'execution_id', v_execution);
  END IF;
  INSERT INTO gate_decisions (effect_id, execution_id, variant, outcome, deny_check, checks, evidence)
  VALUES (p_effect_id, v_execution, p_variant, p_decision->>'outcome', p_decision->>'deny_check',
          p_decision->'checks', p_decision->'evidence')
  RETURNING decision_id INTO v_decision;
  IF p_decision->>'outcome' <> 'ALLOW' THEN
    RETURN jsonb_build_object('status', 'denied', 'decision_id', v_decision, 'repeated', false,
                              'execution_id', v_execution);
  END IF;

  INSERT INTO dispatch_attempts (execution_id, operation_id, attempt_no, kind, adapter_id, declaration_digest,
                                 idempotency_key, request_digest, gate_decision_id, owner_worker_id, fencing_token)
  SELECT v_execution, v_latest->>'operation_id', COALESCE(MAX(a.attempt_no), 0) + 1, p_attempt->>'kind',
         v_rec.adapter_id, v_rec.declaration_digest, v_latest->>'operation_id', p_attempt->>'request_digest',
         v_decision, p_attempt->>'owner_worker_id', (p_attempt->>'fencing_token')::bigint
    FROM dispatch_attempts a WHERE a.execution_id = v_execution
  RETURNING attempt_id, attempt_no INTO v_attempt, v_attempt_no;
  PERFORM ledger_transition(v_execution, 'PERSISTED', 'DISPATCHED', 'gate_allow', 'gate',
                            jsonb_build_object('decision_id', v_decision, 'attempt_id', v_attempt));
  RETURN jsonb_build_object('status', 'claimed', 'decision_id', v_decision, 'attempt_id', v_attempt,
                            'attempt_no', v_attempt_no, 'execution_id', v_execution,
                            'operation_id', v_latest->>'operation_id');
END
$$;

-- T-OUTCOME in one call, without a savepoint: the conditions that made the old receipt write
-- fail (fenced lease, a receipt already there, the execution moved on) are checked first and
-- answered with a late response. A race that still trips a constraint raises as before and the
-- engine falls back to the savepoint path. 'closes' tells the engine whether a finding waits on
-- this commit (a REDISPATCHED finding of the effect, a COMPENSATED one naming it as the
-- compensating effect); when false the after-commit close is left to the worker's cycle.
CREATE FUNCTION ledger_record_receipt(
  p_attempt_id bigint, p_execution_id bigint, p_outcome text, p_failure_kind text,
  p_destination_ref text, p_response_digest text, p_evidence jsonb, p_evidence_digest text,
  p_recorded_by text, p_worker text, p_token bigint, p_to_state text, p_cause text, p_actor text
) RETURNS jsonb
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
  v_frontier text;
  v_effect text;
  v_reason text := NULL;
  v_receipt bigint;
  v_late bigint;
  v_contradicts boolean;
  v_closes boolean := false;
BEGIN
  SELECT f.frontier, f.effect_id INTO v_frontier, v_effect FROM execution_frontiers f
   WHERE f.execution_id = p_execution_id;
  IF p_worker IS NOT NULL AND NOT irrevon_lease_live(p_worker, p_token) THEN
    v_reason := 'fenced';
  ELSIF EXISTS (SELECT 1 FROM dispatch_receipts d WHERE d.attempt_id = p_attempt_id) THEN
    v_reason := 'already_received';
  ELSIF v_frontier IS DISTINCT FROM 'DISPATCHED' THEN
    v_reason := 'stale_state';
  END IF;

  IF v_reason IS NOT NULL THEN
    v_contradicts := (v_frontier = 'SETTLED_FAILED' AND p_outcome = 'OK')
                  OR (v_frontier = 'SETTLED_COMMITTED' AND p_outcome = 'FAILED');
    INSERT INTO late_responses (attempt_id, transport_outcome, destination_ref, response_digest, evidence, contradicts_settle)
    VALUES (p_attempt_id, p_outcome, p_destination_ref, p_response_digest,
            p_evidence || jsonb_build_object('late_reason', v_reason, 'recorded_by', p_recorded_by,
                                             'frontier_at_arrival', v_frontier),
            COALESCE(v_contradicts, false))
    RETURNING late_id INTO v_late;
    RETURN jsonb_build_object('status', 'late', 'late_id', v_late, 'contradicts_settle', COALESCE(v_contradicts, false),
                              'frontier', v_frontier, 'reason', v_reason);
  END IF;

  INSERT INTO dispatch_receipts (attempt_id, transport_outcome, failure_kind, destination_ref, response_digest,
                                 evidence, recorded_by, recorded_by_worker, fencing_token)
  VALUES (p_attempt_id, p_outcome, p_failure_kind, p_destination_ref, p_response_digest,
          p_evidence || jsonb_build_object('evidence_digest', p_evidence_digest), p_recorded_by, p_worker, p_token)
  RETURNING receipt_id INTO v_receipt;
  PERFORM ledger_transition(p_execution_id, 'DISPATCHED', p_to_state, p_cause, p_actor,
                            jsonb_build_object('receipt_id', v_receipt));
  IF p_to_state = 'SETTLED_COMMITTED' THEN
    v_closes := EXISTS (
      SELECT 1 FROM findings f
       WHERE (f.effect_id = v_effect AND (SELECT r.to_status FROM finding_resolutions r
               WHERE r.finding_id = f.finding_id ORDER BY r.resolution_seq DESC LIMIT 1) = 'REDISPATCHED')
          OR ((SELECT r.to_status FROM finding_resolutions r
                WHERE r.finding_id = f.finding_id ORDER BY r.resolution_seq DESC LIMIT 1) = 'COMPENSATED'
              AND (SELECT r.evidence->>'compensating_effect_id' FROM finding_resolutions r
                    WHERE r.finding_id = f.finding_id AND r.to_status = 'COMPENSATED'
                    ORDER BY r.resolution_seq DESC LIMIT 1) = v_effect));
  END IF;
  RETURN jsonb_build_object('status', 'recorded', 'receipt_id', v_receipt, 'lifecycle', p_to_state,
                            'closes', v_closes);
END
$$;

REVOKE ALL ON FUNCTION
  irrevon_iso(timestamptz),
  irrevon_claim_inputs(text),
  irrevon_claim_version(jsonb),
  irrevon_lock_slot(text, text),
  ledger_register(jsonb, bigint, boolean, boolean),
  ledger_claim(text, text, boolean, text, jsonb, bigint, jsonb),
  ledger_record_receipt(bigint, bigint, text, text, text, text, jsonb, text, text, text, bigint, text, text, text)
FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
  irrevon_iso(timestamptz),
  irrevon_claim_inputs(text),
  irrevon_claim_version(jsonb),
  irrevon_lock_slot(text, text),
  ledger_register(jsonb, bigint, boolean, boolean),
  ledger_claim(text, text, boolean, text, jsonb, bigint, jsonb),
  ledger_record_receipt(bigint, bigint, text, text, text, text, jsonb, text, text, text, bigint, text, text, text)
TO irrevon_app;
GRANT EXECUTE ON FUNCTION irrevon_iso(timestamptz), irrevon_claim_inputs(text), irrevon_claim_version(jsonb)
TO irrevon_read;
