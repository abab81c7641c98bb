-- 0063_receipt_reads_open_findings: three costs of a guarded effect that did not have to be paid
-- (issue 11). No fact, check or lock changes.
--
-- 1. ledger_record_receipt decided whether a commit closes a resolution (a REDISPATCHED finding
--    of the effect, or a COMPENSATED one naming it as the compensating effect) by computing the
--    status of every finding in the ledger: a scan of findings with three lookups per finding, on
--    every clean effect's receipt. Findings accumulate with every adjudication (one per present
--    answer, closed at once), so the receipt grew slower with history (~0.7 ms at 220 findings
--    on Postgres 15). It now reads the derived index of open findings (0061), as the worker's
--    resolution steps already do: a finding at REDISPATCHED or COMPENSATED is not CLOSED, so it
--    is there with that status.
-- 2. ledger_claim, in the transaction whose ledger_register read its inputs (the marker, 0053),
--    no longer takes the slot's lock and the record's row lock a second time: that registration
--    took both, in the same order, and they last until the transaction ends.
-- 3. irrevon_is_json_id, irrevon_evidence_digest and irrevon_lock_key were LANGUAGE sql with a
--    SET clause, so never inlined, and Postgres 15 parsed and planned their body again on every
--    call from inside a statement (~45 µs each, three to four times per adjudication). They are
--    PL/pgSQL now, whose expressions keep their plans for the session: same body, same answers.

CREATE OR REPLACE FUNCTION ledger_record_receipt(
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
    -- A finding's status is in the derived index of open findings (0061); REDISPATCHED and
    -- COMPENSATED are not CLOSED, so every finding at either is there.
    -- Each of those findings is looked up by its key: no plan reads the whole findings table.
    v_closes := EXISTS (
      SELECT 1 FROM open_findings o
       WHERE o.status = 'REDISPATCHED'
         AND (SELECT f.effect_id FROM findings f WHERE f.finding_id = o.finding_id) = v_effect
    ) OR EXISTS (
      SELECT 1 FROM open_findings o
       WHERE o.status = 'COMPENSATED'
         AND (SELECT r.evidence->>'compensating_effect_id' FROM finding_resolutions r
               WHERE r.finding_id = o.finding_id AND r.to_status = 'COMPENSATED'
               ORDER BY r.resolution_seq DESC LIMIT 1) = v_effect);
  END IF;
  RETURN jsonb_build_object('status', 'recorded', 'receipt_id', v_receipt, 'lifecycle', p_to_state,
                            'closes', v_closes);
END
$$;


CREATE OR REPLACE FUNCTION ledger_claim(
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
  v_read_here boolean;
BEGIN
  -- A NULL anywhere here would skip a lock or a check below: refused, not guessed.
  IF p_use_slot IS NULL THEN
    RAISE EXCEPTION 'ledger_claim needs p_use_slot (true or false), got NULL' USING ERRCODE = 'DT005';
  END IF;
  -- In a session that never set the marker, current_setting gives NULL: not read here.
  v_read_here := COALESCE(current_setting('irrevon.claim_inputs_read', true)
                          = p_effect_id || '/' || p_version || '/' || p_use_slot::text, false);
  PERFORM set_config('irrevon.claim_inputs_read', '', true);
  SELECT r.scope, r.effect_type, r.adapter_id, r.declaration_digest INTO v_rec
    FROM effect_records r WHERE r.effect_id = p_effect_id;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('status', 'stale');
  END IF;
  -- Read in this transaction (the marker): ledger_register already holds the slot's lock (when
  -- p_use_slot: the marker carries its p_lock_slot) and the record's row (inserted, or locked
  -- FOR UPDATE), taken in the same order; locks last until the transaction ends.
  IF v_read_here IS NOT TRUE THEN
    IF p_use_slot THEN
      PERFORM irrevon_lock_slot(v_rec.scope, v_rec.effect_type);
    END IF;
    PERFORM 1 FROM effect_records r WHERE r.effect_id = p_effect_id FOR UPDATE;
  END IF;
  IF v_read_here THEN
    SELECT jsonb_build_object('execution_id', f.execution_id, 'operation_id', f.operation_id,
                              'frontier', f.frontier)
      INTO v_latest
      FROM execution_frontiers f WHERE f.effect_id = p_effect_id ORDER BY f.step DESC LIMIT 1;
  ELSE
    v_inputs := irrevon_claim_inputs(p_effect_id);
    IF v_inputs IS NULL OR irrevon_claim_version(v_inputs) IS DISTINCT FROM p_version THEN
      RETURN jsonb_build_object('status', 'stale');
    END IF;
    v_latest := v_inputs->'executions'->-1;
  END IF;
  v_execution := (v_latest->>'execution_id')::bigint;

  -- Slot-busy precedes the gate: an open attempt means some wire call's outcome is unknown.
  IF p_use_slot AND v_latest->>'frontier' <> 'CANCELLED' THEN
    SELECT o.attempt_id, o.effect_id INTO v_busy
      FROM irrevon_open_attempt_in_slot(v_rec.scope, v_rec.effect_type) o;
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


CREATE OR REPLACE FUNCTION irrevon_is_json_id(p_value jsonb) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
SET search_path = public, pg_temp
AS $$
BEGIN
  -- Two steps, not AND: only a JSON number may reach the numeric casts.
  IF jsonb_typeof(p_value) IS DISTINCT FROM 'number' THEN
    RETURN false;
  END IF;
  RETURN (p_value #>> '{}')::numeric = trunc((p_value #>> '{}')::numeric)
         AND (p_value #>> '{}')::numeric BETWEEN 1 AND 9223372036854775807;
END
$$;

CREATE OR REPLACE FUNCTION irrevon_evidence_digest(p_value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN 'sha256:' || encode(sha256(convert_to(irrevon_jcs(p_value), 'UTF8')), 'hex');
END
$$;

CREATE OR REPLACE FUNCTION irrevon_lock_key(p_name text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE
SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN ('x' || substr(encode(sha256(convert_to(p_name, 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint;
END
$$;
