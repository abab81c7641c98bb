-- 0053_fused_claim_read_once: a claim made in the same transaction as the registration that
-- read its inputs (registerAndDispatch, run()) does not read them a second time (issue 11:
-- irrevon_claim_inputs was a third of the server's work per effect, and the fused path ran it
-- twice within one transaction).
--
-- Why the second read adds nothing there: ledger_register reads the inputs AFTER it holds the
-- locks ledger_claim would take (the record row, inserted by this transaction or locked FOR
-- UPDATE; the (scope, effect_type) slot when it locks it), and holds them until the same
-- commit. now() (the authority's expiry, the gate time) is the transaction's start in both
-- reads. So the claim decides on inputs read under its own locks, as before; what the second
-- read could still see — a fact no lock covers, such as a deny entry committed between the two
-- statements — is the same kind of fact it cannot see when it commits after its read either.
--
-- How the claim knows: ledger_register clears, then (after its read) leaves a transaction-local
-- marker 'irrevon.claim_inputs_read' = effect / version / slot-locked; ledger_claim skips the
-- read only on an exact match of its own effect, version and slot use, and clears the marker
-- first, so it serves one claim only. The claim still takes its locks (held already: no wait),
-- so nothing it writes depends on the marker being honest. Callers write nothing between the
-- two calls (engine/register-dispatch). Anything else (two calls, retries, re-dispatches, a claim after
-- a 'stale') takes the locks and reads again exactly as 0050 did. Nothing else changes: the
-- same rows are written and the same answers returned.

CREATE OR REPLACE FUNCTION ledger_register(p_intent jsonb, p_max_skew_ms bigint, p_lock_slot boolean, p_with_inputs boolean)
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
  -- A marker of an earlier registration in this transaction never outlives the next one.
  PERFORM set_config('irrevon.claim_inputs_read', '', true);
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
    -- Read under the locks this transaction now holds until it ends (the record's row: inserted
    -- here or locked FOR UPDATE above; the slot's when p_lock_slot): a claim later in the same
    -- transaction on this version need not read the inputs again (ledger_claim).
    PERFORM set_config('irrevon.claim_inputs_read',
      v_id || '/' || irrevon_claim_version(v_inputs) || '/' || p_lock_slot::text, true);
  END IF;
  RETURN jsonb_build_object('status', 'ok', 'created', v_created, 'variant_digest', v_variant,
    'authority_refresh', v_refresh, 'operation_id', v_latest.operation_id, 'frontier', v_latest.frontier,
    'inputs', v_inputs, 'version', CASE WHEN v_inputs IS NULL THEN NULL ELSE irrevon_claim_version(v_inputs) END);
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
  -- Inputs this transaction's ledger_register read on this version, under the record lock and
  -- (if the same) the slot lock it still holds: no second read. Used once, then forgotten.
  v_read_here := current_setting('irrevon.claim_inputs_read', true)
                 = p_effect_id || '/' || p_version || '/' || p_use_slot::text;
  PERFORM set_config('irrevon.claim_inputs_read', '', true);
  SELECT r.scope, r.effect_type, r.adapter_id, r.declaration_digest INTO v_rec
    FROM effect_records r WHERE r.effect_id = p_effect_id;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('status', 'stale');
  END IF;
  -- The locks are taken in every case (already held when the marker matched: no wait), so the
  -- slot-busy check and the writes below never run without them, whatever a caller did.
  IF p_use_slot THEN
    PERFORM irrevon_lock_slot(v_rec.scope, v_rec.effect_type);
  END IF;
  PERFORM 1 FROM effect_records r WHERE r.effect_id = p_effect_id FOR UPDATE;
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

