-- 0044_evidence_citations: evidence over belief. Until now an exit from AMBIGUOUS only had to
-- NAME a citation (any non-null probe_ids, receipt_id, human or note), so a transition could
-- cite a probe that never existed and the ledger looked consistent. From here on the locked
-- functions verify what is cited:
--   * probe_ids  — a non-empty array of distinct ids of probes OF THIS EXECUTION.
--                  SETTLED_COMMITTED: every cited probe answered PRESENT.
--                  SETTLED_FAILED: every cited probe answered ABSENT and was not marked by
--                  the reconciler as read before the destination's lag elapsed
--                  (evidence.lag_not_elapsed); at least two of them; the later-recorded read
--                  was not taken before the earlier one (queried_at); and no probe of the
--                  execution, cited or not, ever answered PRESENT. (When the lag starts is
--                  the reconciler's arithmetic, not checked here.)
--   * receipt_id — a receipt of an attempt OF THIS EXECUTION whose outcome supports the
--                  target: OK for SETTLED_COMMITTED, FAILED for SETTLED_FAILED.
--   * human      — only with actor 'human', an object naming who decided (decided_by).
-- A bare `note` is no longer a citation. Every citation present must check out, and at least
-- one must be present (none: DT005, as before). Findings attached to an effect may cite only
-- probes and receipts of that effect's executions.
--
-- SQLSTATE DT044 (→ evidence_invalid): a citation failed verification; the rule it broke is the
-- error's CONSTRAINT field (citation_malformed, citation_probe_unknown, citation_probe_result,
-- citation_absence_two_reads, citation_absence_contradicted, citation_receipt_unknown,
-- citation_receipt_outcome, citation_human_actor, citation_human_decided_by). The code carries
-- this migration's number so migrations written in parallel cannot pick the same one.

-- A JSON value that is a positive integer id fitting a bigint.
CREATE FUNCTION irrevon_is_json_id(p_value jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE
SET search_path = public, pg_temp
AS $$
  -- CASE, not AND: only a JSON number may reach the numeric casts.
  SELECT CASE WHEN jsonb_typeof(p_value) IS DISTINCT FROM 'number' THEN false
              ELSE (p_value #>> '{}')::numeric = trunc((p_value #>> '{}')::numeric)
                   AND (p_value #>> '{}')::numeric BETWEEN 1 AND 9223372036854775807 END
$$;

-- The ids of a probe_ids citation, or NULL when it is not a non-empty array of distinct ids.
CREATE FUNCTION irrevon_cited_ids(p_value jsonb) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE
SET search_path = public, pg_temp
AS $$
DECLARE
  v_ids bigint[];
BEGIN
  IF jsonb_typeof(p_value) IS DISTINCT FROM 'array' OR jsonb_array_length(p_value) = 0 THEN
    RETURN NULL;
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_value) e WHERE NOT irrevon_is_json_id(e)) THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(DISTINCT (e #>> '{}')::numeric::bigint) INTO v_ids FROM jsonb_array_elements(p_value) e;
  IF cardinality(v_ids) <> jsonb_array_length(p_value) THEN
    RETURN NULL;
  END IF;
  RETURN v_ids;
END
$$;

-- Why an exit from AMBIGUOUS to p_to_state by p_actor citing p_evidence is refused (the rule's
-- name), or NULL when every citation in it checks out. Not granted to anyone: the locked
-- functions call it as the owner.
CREATE FUNCTION irrevon_ambiguous_exit_refusal(
  p_execution_id bigint, p_to_state text, p_actor text, p_evidence jsonb
) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
DECLARE
  v_probes jsonb := p_evidence -> 'probe_ids';
  v_receipt jsonb := p_evidence -> 'receipt_id';
  v_human jsonb := p_evidence -> 'human';
  v_ids bigint[];
  v_outcome text;
  v_receipt_execution bigint;
BEGIN
  IF v_probes IS NOT NULL AND jsonb_typeof(v_probes) <> 'null' THEN
    v_ids := irrevon_cited_ids(v_probes);
    IF v_ids IS NULL THEN
      RETURN 'citation_malformed';
    END IF;
    IF (SELECT count(*) FROM status_probes p WHERE p.probe_id = ANY (v_ids) AND p.execution_id = p_execution_id)
       <> cardinality(v_ids) THEN
      RETURN 'citation_probe_unknown';
    END IF;
    IF p_to_state = 'SETTLED_COMMITTED' THEN
      IF EXISTS (SELECT 1 FROM status_probes p WHERE p.probe_id = ANY (v_ids) AND p.result <> 'PRESENT') THEN
        RETURN 'citation_probe_result';
      END IF;
    ELSE
      IF EXISTS (
        SELECT 1 FROM status_probes p WHERE p.probe_id = ANY (v_ids)
          AND (p.result <> 'ABSENT' OR p.evidence -> 'lag_not_elapsed' = 'true'::jsonb)
      ) THEN
        RETURN 'citation_probe_result';
      END IF;
      IF cardinality(v_ids) < 2 OR (
        SELECT l.queried_at < f.queried_at
          FROM (SELECT p.queried_at FROM status_probes p WHERE p.probe_id = ANY (v_ids) ORDER BY p.probe_id LIMIT 1) f,
               (SELECT p.queried_at FROM status_probes p WHERE p.probe_id = ANY (v_ids) ORDER BY p.probe_id DESC LIMIT 1) l
      ) THEN
        RETURN 'citation_absence_two_reads';
      END IF;
      IF EXISTS (SELECT 1 FROM status_probes p WHERE p.execution_id = p_execution_id AND p.result = 'PRESENT') THEN
        RETURN 'citation_absence_contradicted';
      END IF;
    END IF;
  END IF;

  IF v_receipt IS NOT NULL AND jsonb_typeof(v_receipt) <> 'null' THEN
    IF NOT irrevon_is_json_id(v_receipt) THEN
      RETURN 'citation_malformed';
    END IF;
    SELECT d.transport_outcome, a.execution_id INTO v_outcome, v_receipt_execution
      FROM dispatch_receipts d JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
     WHERE d.receipt_id = (v_receipt #>> '{}')::numeric::bigint;
    IF NOT FOUND OR v_receipt_execution <> p_execution_id THEN
      RETURN 'citation_receipt_unknown';
    END IF;
    IF v_outcome <> (CASE WHEN p_to_state = 'SETTLED_COMMITTED' THEN 'OK' ELSE 'FAILED' END) THEN
      RETURN 'citation_receipt_outcome';
    END IF;
  END IF;

  IF v_human IS NOT NULL AND jsonb_typeof(v_human) <> 'null' THEN
    IF p_actor IS DISTINCT FROM 'human' THEN
      RETURN 'citation_human_actor';
    END IF;
    IF jsonb_typeof(v_human) <> 'object' OR jsonb_typeof(v_human -> 'decided_by') IS DISTINCT FROM 'string'
       OR btrim(v_human ->> 'decided_by') = '' THEN
      RETURN 'citation_human_decided_by';
    END IF;
  END IF;
  RETURN NULL;
END
$$;

-- Why a finding on effect p_effect_id citing p_evidence is refused, or NULL.
CREATE FUNCTION irrevon_finding_citation_refusal(p_effect_id text, p_evidence jsonb) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
DECLARE
  v_probes jsonb := p_evidence -> 'probe_ids';
  v_receipt jsonb := p_evidence -> 'receipt_id';
  v_ids bigint[];
BEGIN
  IF v_probes IS NOT NULL AND jsonb_typeof(v_probes) <> 'null' THEN
    v_ids := irrevon_cited_ids(v_probes);
    IF v_ids IS NULL THEN
      RETURN 'citation_malformed';
    END IF;
    IF (SELECT count(*) FROM status_probes p JOIN effect_executions x ON x.execution_id = p.execution_id
         WHERE p.probe_id = ANY (v_ids) AND x.effect_id = p_effect_id) <> cardinality(v_ids) THEN
      RETURN 'citation_probe_unknown';
    END IF;
  END IF;
  IF v_receipt IS NOT NULL AND jsonb_typeof(v_receipt) <> 'null' THEN
    IF NOT irrevon_is_json_id(v_receipt) THEN
      RETURN 'citation_malformed';
    END IF;
    IF NOT EXISTS (
      SELECT 1 FROM dispatch_receipts d
        JOIN dispatch_attempts a ON a.attempt_id = d.attempt_id
        JOIN effect_executions x ON x.execution_id = a.execution_id
       WHERE d.receipt_id = (v_receipt #>> '{}')::numeric::bigint AND x.effect_id = p_effect_id
    ) THEN
      RETURN 'citation_receipt_unknown';
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION ledger_transition(
  p_execution_id bigint, p_expected_from text, p_to_state text, p_cause text, p_actor text, p_evidence jsonb
) RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  v_frontier text;
  v_seq bigint;
  v_refusal text;
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

  -- Leaving AMBIGUOUS needs a citation (probe ids, a receipt id or a human decision) ...
  IF p_expected_from = 'AMBIGUOUS' THEN
    IF NOT EXISTS (
      SELECT 1 FROM jsonb_each(p_evidence) e
      WHERE e.key IN ('probe_ids', 'receipt_id', 'human') AND jsonb_typeof(e.value) <> 'null'
    ) THEN
      RAISE EXCEPTION 'an exit from AMBIGUOUS must cite probe_ids, receipt_id or human'
        USING ERRCODE = 'DT005';
    END IF;
    -- ... and everything it cites must exist, be of this execution and support the target.
    v_refusal := irrevon_ambiguous_exit_refusal(p_execution_id, p_to_state, p_actor, p_evidence);
    IF v_refusal IS NOT NULL THEN
      RAISE EXCEPTION 'execution % cannot leave AMBIGUOUS for % on this evidence (%)', p_execution_id, p_to_state, v_refusal
        USING ERRCODE = 'DT044', CONSTRAINT = v_refusal;
    END IF;
  END IF;

  INSERT INTO effect_transitions AS t (execution_id, from_state, to_state, cause, actor, evidence)
  VALUES (p_execution_id, p_expected_from, p_to_state, p_cause, p_actor, p_evidence)
  RETURNING t.transition_seq INTO v_seq;
  RETURN v_seq;
END
$$;

CREATE OR REPLACE FUNCTION ledger_attach_finding(
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
  v_refusal text;
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
    -- A finding about an effect cites only that effect's probes and receipts.
    v_refusal := irrevon_finding_citation_refusal(p_effect_id, p_evidence);
    IF v_refusal IS NOT NULL THEN
      RAISE EXCEPTION 'a % finding on % cannot cite this evidence (%)', p_classification, p_effect_id, v_refusal
        USING ERRCODE = 'DT044', CONSTRAINT = v_refusal;
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
