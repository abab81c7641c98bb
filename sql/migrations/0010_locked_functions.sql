-- 0010_locked_functions: the only way lifecycle, finding and resolution rows are written.
-- SECURITY DEFINER (they run as irrevon_owner, which owns the tables) with a pinned
-- search_path so a caller cannot redirect a name to an object of its own. SQLSTATEs:
--   DT001 illegal lifecycle edge      DT002 stale expected state (checked before DT001)
--   DT003 illegal finding attachment  DT004 illegal resolution
--   DT005 precondition failed         (DT010, append-only refusal, is raised by 0008)

CREATE FUNCTION ledger_open_execution(p_effect_id text, p_opened_by text)
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
  v_execution bigint;
  v_operation text;
  v_state text;
BEGIN
  IF p_opened_by IS NULL OR p_opened_by NOT IN ('register', 'retry_after_failure', 'resolve_redispatch') THEN
    RAISE EXCEPTION 'unknown execution opener %', p_opened_by USING ERRCODE = 'DT005';
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
    SELECT f.frontier INTO v_frontier FROM execution_frontiers f
    WHERE f.effect_id = p_effect_id ORDER BY f.step DESC LIMIT 1;
    IF v_frontier IS DISTINCT FROM 'SETTLED_FAILED' THEN
      RAISE EXCEPTION '% needs the latest execution SETTLED_FAILED, found %', p_opened_by, v_frontier
        USING ERRCODE = 'DT005';
    END IF;
  END IF;

  v_operation := p_effect_id || ':' || v_step::text;
  INSERT INTO effect_executions AS x (effect_id, step, operation_id, opened_by)
  VALUES (p_effect_id, v_step, v_operation, p_opened_by)
  RETURNING x.execution_id INTO v_execution;

  INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence)
  VALUES (v_execution, NULL, 'INTENDED', 'register', 'registrar', jsonb_build_object('opened_by', p_opened_by));

  IF v_branch IS NOT NULL AND EXISTS (SELECT 1 FROM branch_cancellations b WHERE b.branch_ref = v_branch) THEN
    INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence)
    VALUES (v_execution, 'INTENDED', 'CANCELLED', 'branch_cancelled', 'registrar', jsonb_build_object('branch_ref', v_branch));
    v_state := 'CANCELLED';
  ELSE
    INSERT INTO effect_transitions (execution_id, from_state, to_state, cause, actor, evidence)
    VALUES (v_execution, 'INTENDED', 'PERSISTED', 'durable_write', 'registrar', jsonb_build_object('opened_by', p_opened_by));
    v_state := 'PERSISTED';
  END IF;

  RETURN QUERY SELECT v_execution, v_step, v_operation, v_state;
END
$$;

CREATE FUNCTION ledger_transition(
  p_execution_id bigint, p_expected_from text, p_to_state text, p_cause text, p_actor text, p_evidence jsonb
) RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  v_frontier text;
  v_seq bigint;
BEGIN
  PERFORM 1 FROM effect_executions x WHERE x.execution_id = p_execution_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no execution %', p_execution_id USING ERRCODE = 'DT005';
  END IF;
  IF p_evidence IS NULL OR jsonb_typeof(p_evidence) <> 'object' THEN
    RAISE EXCEPTION 'transition evidence must be a JSON object' USING ERRCODE = 'DT005';
  END IF;

  -- NULL frontier = genesis (no transition yet).
  SELECT t.to_state INTO v_frontier FROM effect_transitions t
  WHERE t.execution_id = p_execution_id ORDER BY t.transition_seq DESC LIMIT 1;

  -- Stale first: a caller that lost a race learns that, not that its edge was illegal.
  IF v_frontier IS DISTINCT FROM p_expected_from THEN
    RAISE EXCEPTION 'execution % is at %, not %', p_execution_id, COALESCE(v_frontier, 'genesis'), COALESCE(p_expected_from, 'genesis')
      USING ERRCODE = 'DT002';
  END IF;

  IF NOT EXISTS (
    SELECT 1 FROM lifecycle_edges e
    WHERE e.from_state IS NOT DISTINCT FROM p_expected_from
      AND e.to_state = p_to_state AND e.cause = p_cause AND e.actor = p_actor
  ) THEN
    RAISE EXCEPTION 'illegal lifecycle edge % -> % (cause %, actor %)', COALESCE(p_expected_from, 'genesis'), p_to_state, p_cause, p_actor
      USING ERRCODE = 'DT001';
  END IF;

  -- I6: leaving AMBIGUOUS needs a citation (probe ids, a receipt id, a human decision or a note).
  IF p_expected_from = 'AMBIGUOUS' AND NOT EXISTS (
    SELECT 1 FROM jsonb_each(p_evidence) e
    WHERE e.key IN ('probe_ids', 'receipt_id', 'human', 'note') AND jsonb_typeof(e.value) <> 'null'
  ) THEN
    RAISE EXCEPTION 'an exit from AMBIGUOUS must cite probe_ids, receipt_id, human or note'
      USING ERRCODE = 'DT005';
  END IF;

  INSERT INTO effect_transitions AS t (execution_id, from_state, to_state, cause, actor, evidence)
  VALUES (p_execution_id, p_expected_from, p_to_state, p_cause, p_actor, p_evidence)
  RETURNING t.transition_seq INTO v_seq;
  RETURN v_seq;
END
$$;

CREATE FUNCTION ledger_attach_finding(
  p_effect_id text, p_adapter_id text, p_destination_ref text, p_classification text,
  p_excess integer, p_evidence jsonb, p_evidence_digest text, p_created_by text
) RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  v_frontier text;
  v_finding bigint;
BEGIN
  IF p_evidence IS NULL OR jsonb_typeof(p_evidence) <> 'object' THEN
    RAISE EXCEPTION 'finding evidence must be a JSON object' USING ERRCODE = 'DT005';
  END IF;
  IF p_created_by IS NULL OR p_created_by NOT IN ('reconciler', 'recovery', 'sweep', 'human') THEN
    RAISE EXCEPTION 'unknown finding creator %', p_created_by USING ERRCODE = 'DT005';
  END IF;
  IF p_classification IS NULL OR p_classification NOT IN ('CONFIRMED_UNIQUE', 'DUPLICATE', 'LOST', 'ORPHANED', 'CONTRADICTED') THEN
    RAISE EXCEPTION 'unknown classification %', p_classification USING ERRCODE = 'DT003';
  END IF;

  IF p_effect_id IS NULL THEN
    IF p_classification <> 'ORPHANED' THEN
      RAISE EXCEPTION 'only ORPHANED findings may lack an effect record' USING ERRCODE = 'DT003';
    END IF;
    IF p_destination_ref IS NULL THEN
      RAISE EXCEPTION 'an ORPHANED finding is keyed by its destination_ref' USING ERRCODE = 'DT005';
    END IF;
  ELSE
    IF p_classification = 'ORPHANED' THEN
      RAISE EXCEPTION 'ORPHANED never attaches to an effect record' USING ERRCODE = 'DT003';
    END IF;
    PERFORM 1 FROM effect_records r WHERE r.effect_id = p_effect_id FOR UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'no effect record %', p_effect_id USING ERRCODE = 'DT005';
    END IF;
    SELECT f.frontier INTO v_frontier FROM execution_frontiers f
    WHERE f.effect_id = p_effect_id ORDER BY f.step DESC LIMIT 1;
    v_frontier := COALESCE(v_frontier, 'INTENDED');
    IF NOT EXISTS (
      SELECT 1 FROM classification_attachments a WHERE a.frontier = v_frontier AND a.classification = p_classification
    ) THEN
      RAISE EXCEPTION '% cannot attach to a record at %', p_classification, v_frontier USING ERRCODE = 'DT003';
    END IF;
  END IF;

  IF p_classification = 'DUPLICATE' AND (p_excess IS NULL OR p_excess < 1) THEN
    RAISE EXCEPTION 'a DUPLICATE finding needs excess_effect_count >= 1' USING ERRCODE = 'DT005';
  END IF;

  INSERT INTO findings AS f (effect_id, adapter_id, destination_ref, classification, excess_effect_count,
                             evidence, evidence_digest, created_by)
  VALUES (p_effect_id, p_adapter_id, p_destination_ref, p_classification, p_excess,
          p_evidence, p_evidence_digest, p_created_by)
  RETURNING f.finding_id INTO v_finding;

  -- A unique confirmation needs no decision: it is accepted and closed in the same transaction.
  IF p_classification = 'CONFIRMED_UNIQUE' THEN
    INSERT INTO finding_resolutions (finding_id, from_status, to_status, evidence, actor) VALUES
      (v_finding, 'OPEN', 'ACCEPTED_AS_IS', '{"auto": "confirmed_unique_settle"}'::jsonb, 'system'),
      (v_finding, 'ACCEPTED_AS_IS', 'CLOSED', '{"auto": "confirmed_unique_settle"}'::jsonb, 'system');
  END IF;

  RETURN v_finding;
END
$$;

CREATE FUNCTION ledger_resolve(
  p_finding_id bigint, p_from_status text, p_to_status text, p_actor text, p_evidence jsonb
) RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  v_class text;
  v_current text;
  v_seq bigint;
BEGIN
  SELECT f.classification INTO v_class FROM findings f WHERE f.finding_id = p_finding_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no finding %', p_finding_id USING ERRCODE = 'DT005';
  END IF;
  IF p_evidence IS NULL OR jsonb_typeof(p_evidence) <> 'object' THEN
    RAISE EXCEPTION 'resolution evidence must be a JSON object' USING ERRCODE = 'DT005';
  END IF;
  IF p_actor IS NULL OR p_actor NOT IN ('human', 'policy_auto', 'recovery', 'system') THEN
    RAISE EXCEPTION 'unknown resolution actor %', p_actor USING ERRCODE = 'DT005';
  END IF;

  SELECT r.to_status INTO v_current FROM finding_resolutions r
  WHERE r.finding_id = p_finding_id ORDER BY r.resolution_seq DESC LIMIT 1;
  v_current := COALESCE(v_current, 'OPEN');

  IF v_current IS DISTINCT FROM p_from_status THEN
    RAISE EXCEPTION 'finding % is %, not %', p_finding_id, v_current, p_from_status USING ERRCODE = 'DT002';
  END IF;
  IF NOT EXISTS (
    SELECT 1 FROM resolution_status_edges e WHERE e.from_status = p_from_status AND e.to_status = p_to_status
  ) THEN
    RAISE EXCEPTION 'illegal resolution edge % -> %', p_from_status, p_to_status USING ERRCODE = 'DT004';
  END IF;
  -- Entering an action needs a legal class x action cell: DUPLICATE stays unredispatchable after escalation (I8).
  IF p_to_status <> 'CLOSED' AND NOT EXISTS (
    SELECT 1 FROM resolution_actions a WHERE a.classification = v_class AND a.action = p_to_status
  ) THEN
    RAISE EXCEPTION '% is not a legal action for a % finding', p_to_status, v_class USING ERRCODE = 'DT004';
  END IF;

  INSERT INTO finding_resolutions AS r (finding_id, from_status, to_status, evidence, actor)
  VALUES (p_finding_id, p_from_status, p_to_status, p_evidence, p_actor)
  RETURNING r.resolution_seq INTO v_seq;
  RETURN v_seq;
END
$$;
