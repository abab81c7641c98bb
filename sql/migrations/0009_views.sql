-- 0009_views: read views over the facts. A frontier is the to_state of an execution's latest
-- transition; a record's lifecycle is the frontier of its highest step.

CREATE VIEW execution_frontiers AS
SELECT
  x.execution_id,
  x.effect_id,
  x.step,
  x.operation_id,
  x.opened_by,
  x.created_at,
  t.to_state AS frontier,
  t.transition_seq AS frontier_seq,
  t.created_at AS frontier_at
FROM effect_executions x
JOIN LATERAL (
  SELECT tr.to_state, tr.transition_seq, tr.created_at
  FROM effect_transitions tr
  WHERE tr.execution_id = x.execution_id
  ORDER BY tr.transition_seq DESC
  LIMIT 1
) t ON true;

CREATE VIEW effect_frontiers AS
SELECT DISTINCT ON (f.effect_id)
  f.effect_id,
  f.execution_id,
  f.step,
  f.operation_id,
  f.opened_by,
  f.frontier,
  f.frontier_seq,
  f.frontier_at
FROM execution_frontiers f
ORDER BY f.effect_id, f.step DESC;

-- An attempt without a receipt is open: its wire call may or may not have happened.
CREATE VIEW open_attempts AS
SELECT
  a.attempt_id,
  a.execution_id,
  a.operation_id,
  a.attempt_no,
  a.kind,
  a.adapter_id,
  a.declaration_digest,
  a.idempotency_key,
  a.request_digest,
  a.gate_decision_id,
  a.claimed_at,
  x.effect_id,
  r.scope,
  r.effect_type
FROM dispatch_attempts a
JOIN effect_executions x ON x.execution_id = a.execution_id
JOIN effect_records r ON r.effect_id = x.effect_id
WHERE NOT EXISTS (SELECT 1 FROM dispatch_receipts d WHERE d.attempt_id = a.attempt_id);
