-- 0059_open_executions: finding the open executions reads the open executions, not every
-- execution's frontier (issue 11; docs/decisions/0013-open-work-indexes.md, second index).
--
-- Recovery's pages, every worker cycle and the worker's health gauges asked execution_frontiers
-- for the executions at DISPATCHED or AMBIGUOUS. A frontier is an execution's newest transition,
-- so each of those reads computed the frontier of every execution in the ledger: a ledger of
-- 16 000 effects cost a recovery page 13–19 ms for a few hundred open executions, and a worker
-- paid it (four times, with the gauges) on every cycle, more with every effect ever sent.
--
--   open_executions                 a derived index, not a fact: one row per execution whose
--                                   newest transition entered DISPATCHED or AMBIGUOUS, with
--                                   that state. Written only by the trigger below (as
--                                   irrevon_owner); the roles only read it; the auditor checks
--                                   it against execution_frontiers (rule derived_index).
--   irrevon_open_execution_track()  AFTER INSERT ON effect_transitions, for the transitions
--                                   that can change it (into a state other than INTENDED and
--                                   PERSISTED, or out of an open state): into DISPATCHED or
--                                   AMBIGUOUS ⇒ the row (its state updated on
--                                   DISPATCHED→AMBIGUOUS); anything else ⇒ no row.
-- Transitions of one execution are written one at a time under its row lock (ledger_transition,
-- ledger_open_execution) and the one-successor constraint, so the row follows the newest one.
-- Executions open when this migration runs are copied from execution_frontiers.

CREATE TABLE open_executions (
  execution_id bigint NOT NULL PRIMARY KEY,
  frontier     text   NOT NULL CHECK (frontier IN ('DISPATCHED', 'AMBIGUOUS'))
);

CREATE FUNCTION irrevon_open_execution_track() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  IF NEW.to_state IN ('DISPATCHED', 'AMBIGUOUS') THEN
    INSERT INTO open_executions (execution_id, frontier) VALUES (NEW.execution_id, NEW.to_state)
    ON CONFLICT (execution_id) DO UPDATE SET frontier = EXCLUDED.frontier;
  ELSE
    DELETE FROM open_executions o WHERE o.execution_id = NEW.execution_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER effect_transitions_open_execution AFTER INSERT ON effect_transitions
  FOR EACH ROW
  WHEN (NEW.to_state NOT IN ('INTENDED', 'PERSISTED') OR NEW.from_state IN ('DISPATCHED', 'AMBIGUOUS'))
  EXECUTE FUNCTION irrevon_open_execution_track();
ALTER TABLE effect_transitions ENABLE ALWAYS TRIGGER effect_transitions_open_execution;

INSERT INTO open_executions (execution_id, frontier)
SELECT f.execution_id, f.frontier FROM execution_frontiers f WHERE f.frontier IN ('DISPATCHED', 'AMBIGUOUS');

REVOKE ALL ON open_executions FROM PUBLIC;
GRANT SELECT ON open_executions TO irrevon_app, irrevon_read;
REVOKE ALL ON FUNCTION irrevon_open_execution_track() FROM PUBLIC;
