-- 0045_redispatch_newest_evidence: a re-dispatch is decided on the NEWEST evidence about the
-- effect, not on the newest ABSENT probe. ledger_resolve now refuses an edge into REDISPATCHED
-- (SQLSTATE DT004 → resolution_invalid, the rule in the error's CONSTRAINT field) when
--   * redispatch_no_record           the finding is not about an effect record;
--   * redispatch_presence_probe      any probe of any execution of the effect answered PRESENT;
--   * redispatch_contradicted        the effect has a CONTRADICTED finding that was never
--                                    COMPENSATED (open, escalated, or accepted as is: the
--                                    order exists);
--   * redispatch_late_ok             a late OK response was recorded for any attempt of it;
--   * redispatch_absence_not_newest  the edge's evidence does not cite, as absent_probe_id,
--                                    the newest probe of the effect's latest execution, or
--                                    that probe did not answer ABSENT.
-- How fresh that probe must be is the engine's configuration (redispatchAbsenceMaxAgeSeconds),
-- not checked here. Every other check of 0010 is unchanged.

CREATE FUNCTION irrevon_redispatch_refusal(p_finding_id bigint, p_evidence jsonb) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
DECLARE
  v_effect text;
  v_latest bigint;
  v_newest bigint;
  v_newest_result text;
BEGIN
  SELECT f.effect_id INTO v_effect FROM findings f WHERE f.finding_id = p_finding_id;
  IF v_effect IS NULL THEN
    RETURN 'redispatch_no_record';
  END IF;
  IF EXISTS (
    SELECT 1 FROM status_probes p JOIN effect_executions x ON x.execution_id = p.execution_id
     WHERE x.effect_id = v_effect AND p.result = 'PRESENT'
  ) THEN
    RETURN 'redispatch_presence_probe';
  END IF;
  IF EXISTS (
    SELECT 1 FROM findings c
     WHERE c.effect_id = v_effect AND c.classification = 'CONTRADICTED'
       AND NOT EXISTS (SELECT 1 FROM finding_resolutions r WHERE r.finding_id = c.finding_id AND r.to_status = 'COMPENSATED')
  ) THEN
    RETURN 'redispatch_contradicted';
  END IF;
  IF EXISTS (
    SELECT 1 FROM late_responses l
      JOIN dispatch_attempts a ON a.attempt_id = l.attempt_id
      JOIN effect_executions x ON x.execution_id = a.execution_id
     WHERE x.effect_id = v_effect AND l.transport_outcome = 'OK'
  ) THEN
    RETURN 'redispatch_late_ok';
  END IF;
  SELECT x.execution_id INTO v_latest FROM effect_executions x WHERE x.effect_id = v_effect ORDER BY x.step DESC LIMIT 1;
  SELECT p.probe_id, p.result INTO v_newest, v_newest_result FROM status_probes p
   WHERE p.execution_id = v_latest ORDER BY p.probe_id DESC LIMIT 1;
  IF v_newest IS NULL OR v_newest_result <> 'ABSENT' OR NOT irrevon_is_json_id(p_evidence -> 'absent_probe_id')
     OR (p_evidence ->> 'absent_probe_id')::numeric <> v_newest THEN
    RETURN 'redispatch_absence_not_newest';
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION ledger_resolve(
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
  v_refusal text;
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
  -- A re-dispatch creates the effect again: only on the newest evidence, and never when anything shows it exists.
  IF p_to_status = 'REDISPATCHED' THEN
    v_refusal := irrevon_redispatch_refusal(p_finding_id, p_evidence);
    IF v_refusal IS NOT NULL THEN
      RAISE EXCEPTION 'finding % cannot be re-dispatched on this evidence (%)', p_finding_id, v_refusal
        USING ERRCODE = 'DT004', CONSTRAINT = v_refusal;
    END IF;
  END IF;

  INSERT INTO finding_resolutions AS r (finding_id, from_status, to_status, evidence, actor)
  VALUES (p_finding_id, p_from_status, p_to_status, p_evidence, p_actor)
  RETURNING r.resolution_seq INTO v_seq;
  RETURN v_seq;
END
$$;
