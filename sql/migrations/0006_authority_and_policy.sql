-- 0006_authority_and_policy: the authority stamps an effect is dispatched under, their
-- expiry policy, and the deny-list / branch-cancellation inputs of the commit gate.

CREATE TABLE authorities (
  authority_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  authority_ref text NOT NULL,
  scope text NOT NULL,
  stamped_at timestamptz NOT NULL,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The latest link (highest link_id) is the effect's current authority.
CREATE TABLE effect_authorities (
  link_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  effect_id text NOT NULL REFERENCES effect_records (effect_id),
  authority_id bigint NOT NULL REFERENCES authorities (authority_id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX effect_authorities_effect_id_idx ON effect_authorities (effect_id);

CREATE TABLE authority_policies (
  policy_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope_pattern text NOT NULL, -- an exact scope, or '*' for the default
  max_age interval NOT NULL CONSTRAINT authority_policies_max_age_positive CHECK (max_age > interval '0'),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO authority_policies (scope_pattern, max_age) VALUES ('*', interval '24 hours');

CREATE TABLE branch_cancellations (
  branch_ref text PRIMARY KEY,
  reason text NOT NULL,
  cancelled_at timestamptz NOT NULL DEFAULT now()
);

-- NULL columns are wildcards; an entry must name at least one.
CREATE TABLE deny_entries (
  deny_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  effect_class text NULL CONSTRAINT deny_entries_effect_class_known CHECK (effect_class IN
    ('IDEMPOTENT', 'REVERSIBLE', 'COMPENSABLE', 'IRREVERSIBLE')),
  effect_type text NULL,
  scope text NULL,
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT deny_entries_names_something CHECK (effect_class IS NOT NULL OR effect_type IS NOT NULL OR scope IS NOT NULL)
);

CREATE TABLE deny_lifts (
  lift_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  deny_id bigint NOT NULL REFERENCES deny_entries (deny_id) CONSTRAINT deny_lifts_one_per_entry UNIQUE,
  lifted_at timestamptz NOT NULL DEFAULT now()
);
