-- 0058_open_attempt_slots: the slot-busy check reads the open attempts of its slot, not every
-- attempt ever made in it (issue 11; docs/decisions/0013-open-work-indexes.md).
--
-- Until now ledger_claim asked the open_attempts view for the oldest open attempt of the
-- (scope, effect_type) slot. The view is every attempt without a receipt, so the planner walked
-- every record of the scope, its executions and attempts, and probed the receipts of each: one
-- scope holding 4 000 settled orders cost a claim ~46 ms (EXPLAIN ANALYZE), and the cost of a
-- guarded effect grew with every effect before it in its scope (11 → 39 ms over 4 000 effects).
--
--   open_attempt_slots               a derived index, not a fact: one row per attempt that has no
--                                    receipt yet, keyed by its record's slot. Written only by the
--                                    two triggers below (irrevon_owner's functions); irrevon_app
--                                    and irrevon_read may only read it. It is not append-only
--                                    (I7 is about facts: a row leaves when its receipt arrives),
--                                    and the auditor checks that it holds exactly what the
--                                    open_attempts view derives from the facts.
--   irrevon_open_attempt_add()       AFTER INSERT ON dispatch_attempts: the new attempt is open
--   irrevon_open_attempt_close()     AFTER INSERT ON dispatch_receipts: its attempt is not
--   irrevon_open_attempt_in_slot(scope, effect_type)
--                                    the slot's oldest open attempt (ledger_claim and the
--                                    engine's savepoint claim path both ask this)
--
-- Both triggers run in the transaction that writes the attempt or the receipt, so the index
-- commits with the fact or not at all; a claim reads it under the slot lock exactly as it read
-- the view. Rows already open when this migration runs are copied from the view.

CREATE TABLE open_attempt_slots (
  attempt_id  bigint NOT NULL PRIMARY KEY,
  scope       text   NOT NULL,
  effect_type text   NOT NULL,
  effect_id   text   NOT NULL
);
CREATE INDEX open_attempt_slots_slot_idx ON open_attempt_slots (scope, effect_type, attempt_id);

CREATE FUNCTION irrevon_open_attempt_add() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  INSERT INTO open_attempt_slots (scope, effect_type, attempt_id, effect_id)
  SELECT r.scope, r.effect_type, NEW.attempt_id, r.effect_id
    FROM effect_executions x JOIN effect_records r ON r.effect_id = x.effect_id
   WHERE x.execution_id = NEW.execution_id;
  RETURN NULL;
END
$$;

CREATE FUNCTION irrevon_open_attempt_close() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  -- By its key alone: a join here let the planner start from the slot's records once the
  -- table's statistics said it was empty (after a VACUUM), walking the whole scope again.
  DELETE FROM open_attempt_slots s WHERE s.attempt_id = NEW.attempt_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER dispatch_attempts_open_attempt AFTER INSERT ON dispatch_attempts
  FOR EACH ROW EXECUTE FUNCTION irrevon_open_attempt_add();
CREATE TRIGGER dispatch_receipts_open_attempt AFTER INSERT ON dispatch_receipts
  FOR EACH ROW EXECUTE FUNCTION irrevon_open_attempt_close();
-- Fired in every session_replication_role, like 0008's guards: a skipped trigger would leave an
-- open attempt out of the index and its slot looking free.
ALTER TABLE dispatch_attempts ENABLE ALWAYS TRIGGER dispatch_attempts_open_attempt;
ALTER TABLE dispatch_receipts ENABLE ALWAYS TRIGGER dispatch_receipts_open_attempt;

INSERT INTO open_attempt_slots (scope, effect_type, attempt_id, effect_id)
SELECT o.scope, o.effect_type, o.attempt_id, o.effect_id FROM open_attempts o;

-- The slot's oldest open attempt, if any. The receipt check keeps a row the index failed to drop
-- from making the slot look busy; a row it failed to add cannot show here, which is why the
-- triggers fire always and the auditor checks them and the rows (rule derived_index).
-- PL/pgSQL so the statement keeps its plan for the session (0051: a SQL function with a pinned
-- search_path is planned again at every call).
CREATE FUNCTION irrevon_open_attempt_in_slot(p_scope text, p_effect_type text)
RETURNS TABLE (attempt_id bigint, effect_id text)
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN QUERY
  SELECT s.attempt_id, s.effect_id FROM open_attempt_slots s
   WHERE s.scope = p_scope AND s.effect_type = p_effect_type
     AND NOT EXISTS (SELECT 1 FROM dispatch_receipts d WHERE d.attempt_id = s.attempt_id)
   ORDER BY s.attempt_id LIMIT 1;
END
$$;

-- 0053's ledger_claim with one change: the slot-busy check asks irrevon_open_attempt_in_slot.
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
  v_read_here := current_setting('irrevon.claim_inputs_read', true)
                 = p_effect_id || '/' || p_version || '/' || p_use_slot::text;
  PERFORM set_config('irrevon.claim_inputs_read', '', true);
  SELECT r.scope, r.effect_type, r.adapter_id, r.declaration_digest INTO v_rec
    FROM effect_records r WHERE r.effect_id = p_effect_id;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('status', 'stale');
  END IF;
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

REVOKE ALL ON open_attempt_slots FROM PUBLIC;
GRANT SELECT ON open_attempt_slots TO irrevon_app, irrevon_read;
REVOKE ALL ON FUNCTION
  irrevon_open_attempt_add(),
  irrevon_open_attempt_close(),
  irrevon_open_attempt_in_slot(text, text)
FROM PUBLIC;
GRANT EXECUTE ON FUNCTION irrevon_open_attempt_in_slot(text, text) TO irrevon_app;
