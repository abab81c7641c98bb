-- 0062_register_version_once: ledger_register computes the claim version of the inputs it read
-- once (it hashed the inputs twice: for the read-once marker and for its result; each hash turns
-- the whole inputs document into text), and opens a new record's execution through the
-- three-argument ledger_open_execution directly (the two-argument form only adds an empty
-- evidence object, in a function call of its own). Issue 11: server time per guarded effect.
-- Everything else is 0056's function unchanged.

CREATE OR REPLACE FUNCTION ledger_register(p_intent jsonb, p_max_skew_ms bigint, p_lock_slot boolean, p_with_inputs boolean)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
  v_version text := NULL;
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
    SELECT o.execution_id, o.operation_id, o.state INTO v_opened
      FROM ledger_open_execution(v_id, 'register', '{}'::jsonb) o;
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
    v_version := irrevon_claim_version(v_inputs);
    PERFORM set_config('irrevon.claim_inputs_read', v_id || '/' || v_version || '/' || p_lock_slot::text, true);
  END IF;
  RETURN jsonb_build_object('status', 'ok', 'created', v_created, 'variant_digest', v_variant,
    'authority_refresh', v_refresh, 'operation_id', v_latest.operation_id, 'frontier', v_latest.frontier,
    'inputs', v_inputs, 'version', v_version);
END
$function$;
