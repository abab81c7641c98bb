-- 0056_new_record_inputs: the registration of a NEW record reads the gate's inputs without
-- the lookups that cannot find anything yet (issue 11: irrevon_claim_inputs was a fifth of the
-- server's work on the fused path, ~0.33 ms of ledger_register's 0.93 ms on Postgres).
--
-- A record inserted by this very statement, under its row lock, has exactly one execution
-- (step 0, opened by 'register', PERSISTED or CANCELLED, just returned by
-- ledger_open_execution), and nothing that hangs off a record or an execution: no receipt,
-- finding, probe, late response, parameter variant, adopted parameters or gate decision (every
-- one of those references the record or its execution, which did not exist before this
-- statement). irrevon_new_record_claim_inputs builds the same jsonb irrevon_claim_inputs would
-- return for it: the record, deny hits, authority (with its expiry) and branch are read with
-- the very expressions of irrevon_claim_inputs; the rest are the empty values those lookups
-- return. The version is therefore the same, so a claim that reads again (another transaction,
-- another slot choice) compares equal. test/integration/new-record-inputs.test.ts checks the
-- two functions agree, gate time included, for new records under deny entries (matching,
-- lifted, not matching), authority policies (scope, default, expired) and branches
-- (cancelled, not). A replay (the record existed) reads irrevon_claim_inputs as before, and
-- so does every claim without the registration's marker (0053). Also: a new record's latest
-- execution is the one just opened, so it is not looked up again.

CREATE FUNCTION irrevon_new_record_claim_inputs(
  p_effect_id text, p_execution_id bigint, p_operation_id text, p_frontier text
) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = public, pg_temp
AS $$
DECLARE
  v_inputs jsonb;
BEGIN
  SELECT jsonb_build_object(
    'record', jsonb_build_object(
      'effect_id', rec.effect_id, 'effect_type', rec.effect_type, 'effect_class', rec.effect_class,
      'scope', rec.scope, 'stable_ids', rec.stable_ids, 'adapter_id', rec.adapter_id,
      'declaration_digest', rec.declaration_digest, 'parameters_digest', rec.parameters_digest,
      'branch_ref', rec.branch_ref, 'identity_version', rec.identity_version,
      'contract_canonical', rec.contract_canonical, 'created_at', irrevon_iso(rec.created_at)),
    'executions', jsonb_build_array(jsonb_build_object(
      'execution_id', p_execution_id, 'step', 0, 'operation_id', p_operation_id,
      'opened_by', 'register', 'frontier', p_frontier,
      'receipt_ids', '[]'::jsonb, 'finding_ids', '[]'::jsonb)),
    'sent', jsonb_build_object('parameters', rec.parameters, 'parameters_digest', rec.parameters_digest, 'adopted', false),
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
    'variants', '[]'::jsonb,
    'presence', jsonb_build_object('probe_ids', '[]'::jsonb, 'finding_ids', '[]'::jsonb,
                                   'late_response_ids', '[]'::jsonb),
    'last_decisions', '{}'::jsonb,
    'gate_time', irrevon_iso(now())
  ) INTO v_inputs FROM effect_records rec WHERE rec.effect_id = p_effect_id;
  RETURN v_inputs;
END
$$;

REVOKE ALL ON FUNCTION irrevon_new_record_claim_inputs(text, bigint, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION irrevon_new_record_claim_inputs(text, bigint, text, text) TO irrevon_app;

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
  v_opened record;
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
    SELECT o.execution_id, o.operation_id, o.state INTO v_opened FROM ledger_open_execution(v_id, 'register') o;
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

  IF v_created THEN
    -- Opened just now, by this call: no need to look it up.
    SELECT v_opened.operation_id, v_opened.state AS frontier INTO v_latest;
  ELSE
    SELECT f.operation_id, f.frontier INTO v_latest FROM execution_frontiers f
     WHERE f.effect_id = v_id ORDER BY f.step DESC LIMIT 1;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('status', 'no_execution');
    END IF;
  END IF;
  IF p_with_inputs THEN
    -- Two statements, not one CASE: PL/pgSQL plans an expression as a whole the first time a
    -- session reaches it, and v_opened is unassigned on a replay.
    IF v_created THEN
      v_inputs := irrevon_new_record_claim_inputs(v_id, v_opened.execution_id, v_opened.operation_id, v_opened.state);
    ELSE
      v_inputs := irrevon_claim_inputs(v_id);
    END IF;
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
