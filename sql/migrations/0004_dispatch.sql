-- 0004_dispatch: the commit gate's decisions, the claimed wire attempts, their receipts and
-- late responses, the destination status probes, and the slot rows the claim locks.

CREATE TABLE scope_slots (
  scope text NOT NULL,
  effect_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, effect_type)
);

CREATE TABLE gate_decisions (
  decision_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  effect_id text NOT NULL REFERENCES effect_records (effect_id),
  execution_id bigint NULL REFERENCES effect_executions (execution_id),
  variant text NOT NULL CONSTRAINT gate_decisions_variant_known CHECK (variant IN
    ('dispatch', 'recovery_redispatch', 'resolve_redispatch', 'retry_after_failure')),
  outcome text NOT NULL CONSTRAINT gate_decisions_outcome_known CHECK (outcome IN ('ALLOW', 'DENY')),
  deny_check text NULL CONSTRAINT gate_decisions_deny_check_known CHECK (deny_check IN
    ('deny_list', 'authority', 'branch_lineage', 'dedup')),
  checks jsonb NOT NULL,
  evidence jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT gate_decisions_deny_names_check CHECK ((outcome = 'DENY') = (deny_check IS NOT NULL))
);
CREATE INDEX gate_decisions_effect_id_idx ON gate_decisions (effect_id);

CREATE TABLE dispatch_attempts (
  attempt_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  execution_id bigint NOT NULL,
  operation_id text NOT NULL,
  attempt_no integer NOT NULL CONSTRAINT dispatch_attempts_attempt_no_positive CHECK (attempt_no >= 1),
  kind text NOT NULL CONSTRAINT dispatch_attempts_kind_known CHECK (kind IN
    ('primary', 'recovery_redispatch', 'c1_replay_probe')),
  adapter_id text NOT NULL,
  declaration_digest text NOT NULL,
  idempotency_key text NOT NULL,
  request_digest text NOT NULL,
  gate_decision_id bigint NULL REFERENCES gate_decisions (decision_id),
  claimed_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT dispatch_attempts_execution_attempt_unique UNIQUE (execution_id, attempt_no),
  -- D5: the key sent to the destination is the execution's operation id, enforced here.
  CONSTRAINT dispatch_attempts_execution_operation_fk FOREIGN KEY (execution_id, operation_id)
    REFERENCES effect_executions (execution_id, operation_id),
  CONSTRAINT dispatch_attempts_key_is_operation_id CHECK (idempotency_key = operation_id),
  CONSTRAINT dispatch_attempts_gated_unless_replay_probe
    CHECK ((kind <> 'c1_replay_probe') = (gate_decision_id IS NOT NULL))
);

CREATE TABLE dispatch_receipts (
  receipt_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  attempt_id bigint NOT NULL REFERENCES dispatch_attempts (attempt_id)
    CONSTRAINT dispatch_receipts_one_per_attempt UNIQUE,
  transport_outcome text NOT NULL CONSTRAINT dispatch_receipts_transport_outcome_known CHECK (transport_outcome IN
    ('OK', 'FAILED', 'TIMEOUT', 'LOST')),
  failure_kind text NULL CONSTRAINT dispatch_receipts_failure_kind_known CHECK (failure_kind IN ('TERMINAL', 'RETRYABLE')),
  destination_ref text,
  response_digest text,
  evidence jsonb NOT NULL,
  recorded_by text NOT NULL CONSTRAINT dispatch_receipts_recorded_by_known CHECK (recorded_by IN
    ('dispatcher', 'reconciler', 'recovery')),
  recorded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT dispatch_receipts_failure_kind_iff_failed CHECK ((transport_outcome = 'FAILED') = (failure_kind IS NOT NULL))
);

CREATE TABLE late_responses (
  late_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  attempt_id bigint NOT NULL REFERENCES dispatch_attempts (attempt_id),
  transport_outcome text NOT NULL CONSTRAINT late_responses_transport_outcome_known CHECK (transport_outcome IN
    ('OK', 'FAILED', 'TIMEOUT', 'LOST')),
  destination_ref text,
  response_digest text,
  evidence jsonb NOT NULL,
  contradicts_settle boolean NOT NULL DEFAULT false,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX late_responses_attempt_id_idx ON late_responses (attempt_id);

CREATE TABLE status_probes (
  probe_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  execution_id bigint NOT NULL REFERENCES effect_executions (execution_id),
  adapter_id text NOT NULL,
  declaration_digest text NOT NULL,
  probe_kind text NOT NULL CONSTRAINT status_probes_probe_kind_known CHECK (probe_kind IN ('reconcile_open', 'audit', 'sweep')),
  query_keys jsonb NOT NULL,
  result text NOT NULL CONSTRAINT status_probes_result_known CHECK (result IN ('PRESENT', 'ABSENT', 'INDETERMINATE')),
  n_found integer CONSTRAINT status_probes_n_found_nonnegative CHECK (n_found >= 0),
  destination_refs jsonb,
  response_digest text,
  queried_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT status_probes_present_iff_found CHECK ((result = 'PRESENT') = (n_found IS NOT NULL AND n_found >= 1)),
  -- Stricter than the reference (which let ABSENT carry a NULL count): ABSENT means zero found.
  CONSTRAINT status_probes_absent_found_none CHECK (result <> 'ABSENT' OR n_found IS NOT DISTINCT FROM 0)
);
CREATE INDEX status_probes_execution_id_idx ON status_probes (execution_id);
