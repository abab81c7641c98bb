-- 0007_sweep_and_recovery: list sweeps (orphan detection) and recovery runs.

CREATE TABLE sweep_runs (
  run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  adapter_id text NOT NULL,
  window_from timestamptz NOT NULL,
  window_to timestamptz NOT NULL,
  listed integer NOT NULL CONSTRAINT sweep_runs_listed_nonnegative CHECK (listed >= 0),
  matched integer NOT NULL CONSTRAINT sweep_runs_matched_nonnegative CHECK (matched >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sweep_runs_window_ordered CHECK (window_from <= window_to)
);

CREATE TABLE sweep_sightings (
  sighting_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id bigint NOT NULL REFERENCES sweep_runs (run_id),
  adapter_id text NOT NULL,
  destination_ref text NOT NULL,
  payload_digest text NOT NULL,
  matched_effect text NULL REFERENCES effect_records (effect_id),
  match_path text NULL, -- which key matched: client_ref, destination_ref, or a declared queryable key
  recorded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sweep_sightings_match_path_iff_matched CHECK ((matched_effect IS NULL) = (match_path IS NULL)),
  CONSTRAINT sweep_sightings_once_per_run UNIQUE (run_id, adapter_id, destination_ref)
);
CREATE INDEX sweep_sightings_ref_idx ON sweep_sightings (adapter_id, destination_ref);

CREATE TABLE recovery_runs (
  run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scanned integer NOT NULL,
  adjudicated integer NOT NULL,
  parked integer NOT NULL,
  queued_redispatches integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
