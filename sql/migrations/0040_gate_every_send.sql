-- 0040_gate_every_send: every request that can create an effect passes the commit gate and is
-- recorded (docs/engine.md "Gate on every send").
--   gate_decisions.variant        gains 'c1_replay_probe': a C1 replay is gated like a first send.
--   dispatch_attempts             every attempt, replay probes included, cites an ALLOW decision
--                                 of its own execution, at most one attempt per decision
--                                 (trigger tg_dispatch_attempts__gated, DT005).
--   execution_escalations.reason  gains 'gate_denied': automatic work (a replay probe, a policy
--                                 or resumed re-dispatch) the gate denied is handed to a human once.
--   execution_parameters          a corrected retry: the recorded parameter variant an execution
--                                 adopted instead of the record's parameters, with the reason;
--                                 written only by ledger_open_execution.
--   ledger_open_execution(text, text, jsonb)  records why an execution was opened (the evidence
--                                 lands on its INTENDED and PERSISTED transitions, with the
--                                 settle transition a retry follows) and adopts a variant.

ALTER TABLE gate_decisions DROP CONSTRAINT gate_decisions_variant_known;
ALTER TABLE gate_decisions ADD CONSTRAINT gate_decisions_variant_known CHECK (variant IN
  ('dispatch', 'recovery_redispatch', 'resolve_redispatch', 'retry_after_failure', 'c1_replay_probe'));

ALTER TABLE dispatch_attempts DROP CONSTRAINT dispatch_attempts_gated_unless_replay_probe;
CREATE UNIQUE INDEX dispatch_attempts_one_per_decision ON dispatch_attempts (gate_decision_id)
  WHERE gate_decision_id IS NOT NULL;

CREATE FUNCTION tg_dispatch_attempts__gated() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  IF NEW.gate_decision_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM gate_decisions d
     WHERE d.decision_id = NEW.gate_decision_id
       AND d.outcome = 'ALLOW'
       AND d.execution_id = NEW.execution_id
       AND (d.variant = 'c1_replay_probe') = (NEW.kind = 'c1_replay_probe')
  ) THEN
    RAISE EXCEPTION 'attempt on execution % cites no ALLOW gate decision of its own (decision %)',
      NEW.execution_id, NEW.gate_decision_id USING ERRCODE = 'DT005';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER dispatch_attempts_gated BEFORE INSERT ON dispatch_attempts
  FOR EACH ROW EXECUTE FUNCTION tg_dispatch_attempts__gated();
ALTER TABLE dispatch_attempts ENABLE ALWAYS TRIGGER dispatch_attempts_gated;
REVOKE ALL ON FUNCTION tg_dispatch_attempts__gated() FROM PUBLIC;

ALTER TABLE execution_escalations DROP CONSTRAINT execution_escalations_reason_known;
ALTER TABLE execution_escalations ADD CONSTRAINT execution_escalations_reason_known CHECK (reason IN
  ('no_covering_key', 'opaque_destination', 'indeterminate_budget', 'attempt_cap', 'gate_denied'));

CREATE TABLE execution_parameters (
  execution_id bigint PRIMARY KEY REFERENCES effect_executions (execution_id),
  effect_id text NOT NULL REFERENCES effect_records (effect_id),
  parameters jsonb NOT NULL
    CONSTRAINT execution_parameters_parameters_object CHECK (jsonb_typeof(parameters) = 'object'),
  parameters_digest text NOT NULL,
  reason text NOT NULL
    CONSTRAINT execution_parameters_reason_given CHECK (reason <> '' AND length(reason) <= 2000),
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER execution_parameters_append_only BEFORE UPDATE OR DELETE ON execution_parameters
  FOR EACH STATEMENT EXECUTE FUNCTION irrevon_no_rewrite();
CREATE TRIGGER execution_parameters_no_truncate BEFORE TRUNCATE ON execution_parameters
  FOR EACH STATEMENT EXECUTE FUNCTION irrevon_no_rewrite();
ALTER TABLE execution_parameters ENABLE ALWAYS TRIGGER execution_parameters_append_only;
ALTER TABLE execution_parameters ENABLE ALWAYS TRIGGER execution_parameters_no_truncate;
REVOKE ALL ON execution_parameters FROM PUBLIC;
GRANT SELECT ON execution_parameters TO irrevon_app, irrevon_read;

CREATE FUNCTION ledger_open_execution(p_effect_id text, p_opened_by text, p_evidence jsonb)
RETURNS TABLE (execution_id bigint, step integer, operation_id text, state text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  v_branch text;
  v_step integer;
  v_frontier text;
  v_previous bigint;
  v_after jsonb := NULL;
  v_execution bigint;
  v_operation text;
  v_state text;
  v_evidence jsonb;
  v_parameters jsonb;
  v_digest text;
  v_reason text;
BEGIN
  IF p_opened_by IS NULL OR p_opened_by NOT IN ('register', 'retry_after_failure', 'resolve_redispatch') THEN
    RAISE EXCEPTION 'unknown execution opener %', p_opened_by USING ERRCODE = 'DT005';
  END IF;
  IF p_evidence IS NULL OR jsonb_typeof(p_evidence) <> 'object' THEN
    RAISE EXCEPTION 'execution evidence must be a JSON object' USING ERRCODE = 'DT005';
  END IF;
  v_parameters := p_evidence->'parameters';
  v_digest := p_evidence->>'parameters_digest';
  v_reason := p_evidence->>'reason';
  IF v_parameters IS NOT NULL THEN
    IF p_opened_by <> 'retry_after_failure' THEN
      RAISE EXCEPTION 'only a retry adopts a parameter variant' USING ERRCODE = 'DT005';
    END IF;
    IF jsonb_typeof(v_parameters) <> 'object' OR v_digest IS NULL
       OR v_reason IS NULL OR v_reason = '' THEN
      RAISE EXCEPTION 'an adopted variant needs parameters, parameters_digest and a reason'
        USING ERRCODE = 'DT005';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM parameter_variants v
                    WHERE v.effect_id = p_effect_id AND v.parameters_digest = v_digest) THEN
      RAISE EXCEPTION 'parameter variant % is not recorded for effect %', v_digest, p_effect_id
        USING ERRCODE = 'DT005';
    END IF;
  END IF;

  SELECT r.branch_ref INTO v_branch FROM effect_records r WHERE r.effect_id = p_effect_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no effect record %', p_effect_id USING ERRCODE = 'DT005';
  END IF;

  SELECT COALESCE(MAX(x.step) + 1, 0) INTO v_step FROM effect_executions x WHERE x.effect_id = p_effect_id;

  IF p_opened_by = 'register' THEN
    IF v_step <> 0 THEN
      RAISE EXCEPTION 'register opens step 0 only; effect % already has executions', p_effect_id
        USING ERRCODE = 'DT005';
    END IF;
  ELSE
    SELECT f.frontier, f.execution_id INTO v_frontier, v_previous FROM execution_frontiers f
    WHERE f.effect_id = p_effect_id ORDER BY f.step DESC LIMIT 1;
    IF v_frontier IS DISTINCT FROM 'SETTLED_FAILED' THEN
      RAISE EXCEPTION '% needs the latest execution SETTLED_FAILED, found %', p_opened_by, v_frontier
        USING ERRCODE = 'DT005';
    END IF;
    -- The settle this execution follows: a FAILED receipt, a reconciled absence, a human's word.
    SELECT jsonb_build_object('execution_id', t.execution_id, 'transition_seq', t.transition_seq,
                              'cause', t.cause, 'actor', t.actor)
      INTO v_after FROM effect_transitions t
     WHERE t.execution_id = v_previous AND t.to_state = 'SETTLED_FAILED'
     ORDER BY t.transition_seq DESC LIMIT 1;
  END IF;

  v_evidence := jsonb_build_object('opened_by', p_opened_by) || (p_evidence - 'parameters');
  IF v_after IS NOT NULL THEN
    v_evidence := v_evidence || jsonb_build_object('after', v_after);
  END IF;

  v_operation := p_effect_id || ':' || v_step::text;
  INSERT INTO effect_executions AS x (effect_id, step, operation_id, opened_by)
  VALUES (p_effect_id, v_step, v_operation, p_opened_by)
  RETURNING x.execution_id INTO v_execution;

  IF v_parameters IS NOT NULL THEN
    INSERT INTO execution_parameters (execution_id, effect_id, parameters, parameters_digest, reason)
    VALUES (v_execution, p_effect_id, v_parameters, v_digest, v_reason);
  END IF;

  INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence)
  VALUES (v_execution, NULL, 'INTENDED', 'register', 'registrar', v_evidence);

  IF v_branch IS NOT NULL AND EXISTS (SELECT 1 FROM branch_cancellations b WHERE b.branch_ref = v_branch) THEN
    INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence)
    VALUES (v_execution, 'INTENDED', 'CANCELLED', 'branch_cancelled', 'registrar', jsonb_build_object('branch_ref', v_branch));
    v_state := 'CANCELLED';
  ELSE
    INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence)
    VALUES (v_execution, 'INTENDED', 'PERSISTED', 'durable_write', 'registrar', v_evidence);
    v_state := 'PERSISTED';
  END IF;

  RETURN QUERY SELECT v_execution, v_step, v_operation, v_state;
END
$$;

-- The two-argument form keeps its signature (callers and grants) and records no extra evidence.
CREATE OR REPLACE FUNCTION ledger_open_execution(p_effect_id text, p_opened_by text)
RETURNS TABLE (execution_id bigint, step integer, operation_id text, state text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN QUERY SELECT * FROM ledger_open_execution(p_effect_id, p_opened_by, '{}'::jsonb);
END
$$;

REVOKE ALL ON FUNCTION ledger_open_execution(text, text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_open_execution(text, text, jsonb) TO irrevon_app;
