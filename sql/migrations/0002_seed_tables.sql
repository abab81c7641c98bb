-- 0002_seed_tables: the three state dimensions as reference data. Rows are exactly
-- src/core/state-tables.ts (test/unit/state-seed.test.ts and the auditor compare them);
-- the locked functions decide legality by looking edges up here.

CREATE TABLE lifecycle_edges (
  from_state text NULL CONSTRAINT lifecycle_edges_from_state_known CHECK (from_state IN
    ('INTENDED', 'PERSISTED', 'DISPATCHED', 'SETTLED_COMMITTED', 'SETTLED_FAILED', 'AMBIGUOUS', 'CANCELLED')),
  to_state text NOT NULL CONSTRAINT lifecycle_edges_to_state_known CHECK (to_state IN
    ('INTENDED', 'PERSISTED', 'DISPATCHED', 'SETTLED_COMMITTED', 'SETTLED_FAILED', 'AMBIGUOUS', 'CANCELLED')),
  cause text NOT NULL,
  actor text NOT NULL,
  CONSTRAINT lifecycle_edges_unique UNIQUE NULLS NOT DISTINCT (from_state, to_state, cause, actor)
);

INSERT INTO lifecycle_edges (from_state, to_state, cause, actor) VALUES
  (NULL, 'INTENDED', 'register', 'registrar'),
  ('INTENDED', 'PERSISTED', 'durable_write', 'registrar'),
  ('INTENDED', 'CANCELLED', 'branch_cancelled', 'registrar'),
  ('PERSISTED', 'DISPATCHED', 'gate_allow', 'gate'),
  ('PERSISTED', 'CANCELLED', 'branch_cancelled', 'gate'),
  ('PERSISTED', 'CANCELLED', 'branch_cancelled', 'human'),
  ('DISPATCHED', 'SETTLED_COMMITTED', 'receipt_ok', 'dispatcher'),
  ('DISPATCHED', 'SETTLED_FAILED', 'receipt_failed', 'dispatcher'),
  ('DISPATCHED', 'AMBIGUOUS', 'receipt_timeout', 'dispatcher'),
  ('DISPATCHED', 'AMBIGUOUS', 'receipt_timeout', 'recovery'),
  ('DISPATCHED', 'AMBIGUOUS', 'receipt_lost', 'dispatcher'),
  ('DISPATCHED', 'AMBIGUOUS', 'receipt_lost', 'recovery'),
  ('AMBIGUOUS', 'SETTLED_COMMITTED', 'reconciled_present', 'reconciler'),
  ('AMBIGUOUS', 'SETTLED_COMMITTED', 'reconciled_present', 'recovery'),
  ('AMBIGUOUS', 'SETTLED_COMMITTED', 'reconciled_present', 'human'),
  ('AMBIGUOUS', 'SETTLED_COMMITTED', 'replay_ok', 'reconciler'),
  ('AMBIGUOUS', 'SETTLED_COMMITTED', 'replay_ok', 'recovery'),
  ('AMBIGUOUS', 'SETTLED_COMMITTED', 'replay_ok', 'human'),
  ('AMBIGUOUS', 'SETTLED_FAILED', 'reconciled_absent', 'reconciler'),
  ('AMBIGUOUS', 'SETTLED_FAILED', 'reconciled_absent', 'recovery'),
  ('AMBIGUOUS', 'SETTLED_FAILED', 'reconciled_absent', 'human'),
  ('AMBIGUOUS', 'SETTLED_FAILED', 'replay_failed', 'reconciler'),
  ('AMBIGUOUS', 'SETTLED_FAILED', 'replay_failed', 'recovery'),
  ('AMBIGUOUS', 'SETTLED_FAILED', 'replay_failed', 'human');

CREATE TABLE classification_attachments (
  frontier text NOT NULL,
  classification text NOT NULL,
  CONSTRAINT classification_attachments_unique UNIQUE (frontier, classification)
);

INSERT INTO classification_attachments (frontier, classification) VALUES
  ('SETTLED_COMMITTED', 'CONFIRMED_UNIQUE'),
  ('SETTLED_COMMITTED', 'DUPLICATE'),
  ('SETTLED_COMMITTED', 'CONTRADICTED'),
  ('SETTLED_FAILED', 'DUPLICATE'),
  ('SETTLED_FAILED', 'LOST'),
  ('SETTLED_FAILED', 'CONTRADICTED');

CREATE TABLE resolution_actions (
  classification text NOT NULL,
  action text NOT NULL,
  CONSTRAINT resolution_actions_unique UNIQUE (classification, action)
);

INSERT INTO resolution_actions (classification, action) VALUES
  ('CONFIRMED_UNIQUE', 'ACCEPTED_AS_IS'),
  ('DUPLICATE', 'COMPENSATED'),
  ('DUPLICATE', 'ACCEPTED_AS_IS'),
  ('DUPLICATE', 'ESCALATED_HUMAN'),
  ('LOST', 'REDISPATCHED'),
  ('LOST', 'ACCEPTED_AS_IS'),
  ('LOST', 'ESCALATED_HUMAN'),
  ('ORPHANED', 'COMPENSATED'),
  ('ORPHANED', 'ACCEPTED_AS_IS'),
  ('ORPHANED', 'ESCALATED_HUMAN'),
  ('CONTRADICTED', 'COMPENSATED'),
  ('CONTRADICTED', 'ACCEPTED_AS_IS'),
  ('CONTRADICTED', 'ESCALATED_HUMAN');

CREATE TABLE resolution_status_edges (
  from_status text NOT NULL,
  to_status text NOT NULL,
  CONSTRAINT resolution_status_edges_unique UNIQUE (from_status, to_status)
);

INSERT INTO resolution_status_edges (from_status, to_status) VALUES
  ('OPEN', 'COMPENSATED'),
  ('OPEN', 'REDISPATCHED'),
  ('OPEN', 'ACCEPTED_AS_IS'),
  ('OPEN', 'ESCALATED_HUMAN'),
  ('ESCALATED_HUMAN', 'COMPENSATED'),
  ('ESCALATED_HUMAN', 'REDISPATCHED'),
  ('ESCALATED_HUMAN', 'ACCEPTED_AS_IS'),
  ('COMPENSATED', 'CLOSED'),
  ('REDISPATCHED', 'CLOSED'),
  ('ACCEPTED_AS_IS', 'CLOSED');
