-- 0005_findings: what the destination says happened (classification findings) and what a
-- human or policy decided about it (resolution chains). Both are written only by the locked
-- functions ledger_attach_finding and ledger_resolve.

CREATE TABLE findings (
  finding_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  effect_id text NULL REFERENCES effect_records (effect_id),
  adapter_id text NOT NULL,
  destination_ref text,
  classification text NOT NULL CONSTRAINT findings_classification_known CHECK (classification IN
    ('CONFIRMED_UNIQUE', 'DUPLICATE', 'LOST', 'ORPHANED', 'CONTRADICTED')),
  excess_effect_count integer,
  evidence jsonb NOT NULL,
  evidence_digest text NOT NULL,
  created_by text NOT NULL CONSTRAINT findings_created_by_known CHECK (created_by IN ('reconciler', 'recovery', 'sweep', 'human')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT findings_orphan_iff_no_record CHECK ((classification = 'ORPHANED') = (effect_id IS NULL)),
  CONSTRAINT findings_keyed CHECK (effect_id IS NOT NULL OR destination_ref IS NOT NULL),
  CONSTRAINT findings_duplicate_has_excess
    CHECK (classification <> 'DUPLICATE' OR (excess_effect_count IS NOT NULL AND excess_effect_count >= 1))
);
CREATE UNIQUE INDEX findings_one_orphan_per_ref ON findings (adapter_id, destination_ref)
  WHERE classification = 'ORPHANED';
CREATE INDEX findings_effect_id_idx ON findings (effect_id);

CREATE TABLE finding_resolutions (
  resolution_seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  finding_id bigint NOT NULL REFERENCES findings (finding_id),
  from_status text NOT NULL CONSTRAINT finding_resolutions_from_status_known CHECK (from_status IN
    ('OPEN', 'COMPENSATED', 'REDISPATCHED', 'ACCEPTED_AS_IS', 'ESCALATED_HUMAN', 'CLOSED')),
  to_status text NOT NULL CONSTRAINT finding_resolutions_to_status_known CHECK (to_status IN
    ('OPEN', 'COMPENSATED', 'REDISPATCHED', 'ACCEPTED_AS_IS', 'ESCALATED_HUMAN', 'CLOSED')),
  evidence jsonb NOT NULL CONSTRAINT finding_resolutions_evidence_object CHECK (jsonb_typeof(evidence) = 'object'),
  actor text NOT NULL CONSTRAINT finding_resolutions_actor_known CHECK (actor IN ('human', 'policy_auto', 'recovery', 'system')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT finding_resolutions_one_successor UNIQUE (finding_id, from_status)
);
