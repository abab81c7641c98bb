-- 0003_records_and_executions: what was intended (effect_records, parameter_variants) and the
-- lifecycle of each execution (effect_executions, effect_transitions). Lifecycle rows are
-- written only by the locked functions of 0010 (irrevon_app has no INSERT on them).

CREATE TABLE effect_records (
  effect_id text PRIMARY KEY
    CONSTRAINT effect_records_effect_id_format CHECK (effect_id ~ '^[0-9a-f]{64}$'),
  -- D4: the identity procedure's version and its exact preimage (the RFC 8785 text of
  -- {effect_type, scope, stable_ids}, stored as text: JCS output is valid UTF-8 without NUL).
  identity_version smallint NOT NULL DEFAULT 1
    CONSTRAINT effect_records_identity_version_known CHECK (identity_version = 1),
  contract_canonical text NOT NULL,
  effect_type text NOT NULL CONSTRAINT effect_records_effect_type_nonempty CHECK (effect_type <> ''),
  effect_class text NOT NULL CONSTRAINT effect_records_effect_class_known CHECK (effect_class IN
    ('IDEMPOTENT', 'REVERSIBLE', 'COMPENSABLE', 'IRREVERSIBLE')),
  scope text NOT NULL CONSTRAINT effect_records_scope_nonempty CHECK (scope <> ''),
  stable_ids jsonb NOT NULL CONSTRAINT effect_records_stable_ids_object CHECK (jsonb_typeof(stable_ids) = 'object'),
  adapter_id text NOT NULL,
  declaration_digest text NOT NULL,
  parameters jsonb NOT NULL,
  parameters_digest text NOT NULL,
  branch_ref text,
  event_time timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The id IS the hash of the stored preimage, and the preimage IS the stored identity members:
  -- a different preimage can never be filed under an existing id (D4 identity_collision).
  CONSTRAINT effect_records_id_is_preimage_hash
    CHECK (effect_id = encode(sha256(convert_to(contract_canonical, 'UTF8')), 'hex')),
  CONSTRAINT effect_records_preimage_matches_members
    CHECK (contract_canonical::jsonb = jsonb_build_object('effect_type', effect_type, 'scope', scope, 'stable_ids', stable_ids))
);

CREATE TABLE parameter_variants (
  variant_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  effect_id text NOT NULL REFERENCES effect_records (effect_id),
  parameters_digest text NOT NULL,
  event_time timestamptz,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX parameter_variants_effect_id_idx ON parameter_variants (effect_id);

CREATE TABLE effect_executions (
  execution_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  effect_id text NOT NULL REFERENCES effect_records (effect_id),
  step integer NOT NULL CONSTRAINT effect_executions_step_nonnegative CHECK (step >= 0),
  operation_id text NOT NULL,
  opened_by text NOT NULL CONSTRAINT effect_executions_opened_by_known CHECK (opened_by IN
    ('register', 'retry_after_failure', 'resolve_redispatch')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT effect_executions_effect_step_unique UNIQUE (effect_id, step),
  CONSTRAINT effect_executions_operation_id_unique UNIQUE (operation_id),
  -- Target of dispatch_attempts' composite key (D5: an attempt's key is its execution's id).
  CONSTRAINT effect_executions_execution_operation_unique UNIQUE (execution_id, operation_id),
  CONSTRAINT effect_executions_operation_id_derived CHECK (operation_id = effect_id || ':' || step::text)
);

CREATE TABLE effect_transitions (
  transition_seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  execution_id bigint NOT NULL REFERENCES effect_executions (execution_id),
  from_state text NULL CONSTRAINT effect_transitions_from_state_known CHECK (from_state IN
    ('INTENDED', 'PERSISTED', 'DISPATCHED', 'SETTLED_COMMITTED', 'SETTLED_FAILED', 'AMBIGUOUS', 'CANCELLED')),
  to_state text NOT NULL CONSTRAINT effect_transitions_to_state_known CHECK (to_state IN
    ('INTENDED', 'PERSISTED', 'DISPATCHED', 'SETTLED_COMMITTED', 'SETTLED_FAILED', 'AMBIGUOUS', 'CANCELLED')),
  cause text NOT NULL CONSTRAINT effect_transitions_cause_known CHECK (cause IN
    ('register', 'durable_write', 'branch_cancelled', 'gate_allow', 'receipt_ok', 'receipt_failed',
     'receipt_timeout', 'receipt_lost', 'reconciled_present', 'replay_ok', 'reconciled_absent', 'replay_failed')),
  actor text NOT NULL CONSTRAINT effect_transitions_actor_known CHECK (actor IN
    ('registrar', 'gate', 'dispatcher', 'reconciler', 'recovery', 'human')),
  evidence jsonb NOT NULL CONSTRAINT effect_transitions_evidence_object CHECK (jsonb_typeof(evidence) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- One successor per state per execution: the compare-and-set that makes a lost race visible.
  CONSTRAINT effect_transitions_one_successor UNIQUE NULLS NOT DISTINCT (execution_id, from_state)
);
