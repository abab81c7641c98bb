-- 0020_worker_leases: many writers (D2). Every engine process registers a worker lease and
-- gets a fencing token from a sequence; the token is stamped on every attempt and receipt it
-- writes, and a trigger refuses such a write unless that token's lease is live right now.
-- An open attempt counts as abandoned only when the lease it was claimed under is no longer
-- live (expired, released, or superseded by a newer registration of the same worker id).
-- Lease rows are append-only facts: register / renew / release; the latest row of a worker
-- is its current lease. See docs/decisions/0004-concurrency-model.md.

CREATE SEQUENCE worker_fencing_tokens AS bigint;

CREATE TABLE worker_leases (
  lease_seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  worker_id text NOT NULL
    CONSTRAINT worker_leases_worker_id_length CHECK (length(worker_id) BETWEEN 1 AND 256),
  fencing_token bigint NOT NULL,
  event text NOT NULL CONSTRAINT worker_leases_event_known CHECK (event IN ('register', 'renew', 'release')),
  expires_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX worker_leases_worker_idx ON worker_leases (worker_id, lease_seq DESC);
CREATE INDEX worker_leases_token_idx ON worker_leases (fencing_token);

-- Ownership stamps. Both or neither: rows written outside the engine (fixtures, the auditor's
-- planted violations) carry none and are treated as unowned.
ALTER TABLE dispatch_attempts
  ADD COLUMN owner_worker_id text,
  ADD COLUMN fencing_token bigint,
  ADD CONSTRAINT dispatch_attempts_owner_stamped_whole CHECK ((owner_worker_id IS NULL) = (fencing_token IS NULL));
CREATE INDEX dispatch_attempts_fencing_token_idx ON dispatch_attempts (fencing_token);

ALTER TABLE dispatch_receipts
  ADD COLUMN recorded_by_worker text,
  ADD COLUMN fencing_token bigint,
  ADD CONSTRAINT dispatch_receipts_worker_stamped_whole CHECK ((recorded_by_worker IS NULL) = (fencing_token IS NULL));

-- A probe's own evidence: the reconciler's schedule (reread_not_before, next_due_at, the
-- consecutive INDETERMINATE count) rides with the probe, so no cycle keeps state in memory (D3).
ALTER TABLE status_probes
  ADD COLUMN evidence jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD CONSTRAINT status_probes_evidence_object CHECK (jsonb_typeof(evidence) = 'object');

-- Derives an advisory-lock key from SHA-256 (D5: stable across Postgres versions, unlike hashtext).
CREATE FUNCTION irrevon_lock_key(p_name text) RETURNS bigint
LANGUAGE sql IMMUTABLE
SET search_path = public, pg_temp
AS $$
  SELECT ('x' || substr(encode(sha256(convert_to(p_name, 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint
$$;

-- True iff `p_token` is the worker's current lease and it has not run out (database clock).
CREATE FUNCTION irrevon_lease_live(p_worker_id text, p_token bigint) RETURNS boolean
LANGUAGE sql VOLATILE
SET search_path = public, pg_temp
AS $$
  SELECT COALESCE((
    SELECT l.fencing_token = p_token AND l.event <> 'release' AND l.expires_at > clock_timestamp()
    FROM worker_leases l
    WHERE l.worker_id = p_worker_id
    ORDER BY l.lease_seq DESC
    LIMIT 1
  ), false)
$$;

-- A new lease with a fresh token. Supersedes (fences) any earlier lease of the same worker id.
CREATE FUNCTION ledger_lease_register(p_worker_id text, p_ttl_ms bigint)
RETURNS TABLE (fencing_token bigint, expires_at timestamptz)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  v_token bigint;
  v_expires timestamptz;
BEGIN
  IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 THEN
    RAISE EXCEPTION 'lease ttl must be positive' USING ERRCODE = 'DT005';
  END IF;
  PERFORM pg_advisory_xact_lock(irrevon_lock_key('irrevon:lease:' || p_worker_id));
  v_token := nextval('worker_fencing_tokens');
  v_expires := clock_timestamp() + p_ttl_ms * interval '1 millisecond';
  INSERT INTO worker_leases (worker_id, fencing_token, event, expires_at)
  VALUES (p_worker_id, v_token, 'register', v_expires);
  RETURN QUERY SELECT v_token, v_expires;
END
$$;

-- Extends a live lease. A lease that ran out is never revived: the worker must register again
-- (new token), because someone may already have treated its attempts as abandoned.
CREATE FUNCTION ledger_lease_renew(p_worker_id text, p_token bigint, p_ttl_ms bigint)
RETURNS timestamptz
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  v_expires timestamptz;
BEGIN
  IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 THEN
    RAISE EXCEPTION 'lease ttl must be positive' USING ERRCODE = 'DT005';
  END IF;
  PERFORM pg_advisory_xact_lock(irrevon_lock_key('irrevon:lease:' || p_worker_id));
  IF NOT irrevon_lease_live(p_worker_id, p_token) THEN
    RAISE EXCEPTION 'worker % holds no live lease with token %', p_worker_id, p_token USING ERRCODE = 'DT006';
  END IF;
  v_expires := clock_timestamp() + p_ttl_ms * interval '1 millisecond';
  INSERT INTO worker_leases (worker_id, fencing_token, event, expires_at)
  VALUES (p_worker_id, p_token, 'renew', v_expires);
  RETURN v_expires;
END
$$;

-- Ends a lease now (clean shutdown), so its attempts need not wait for expiry to be recovered.
CREATE FUNCTION ledger_lease_release(p_worker_id text, p_token bigint)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(irrevon_lock_key('irrevon:lease:' || p_worker_id));
  IF irrevon_lease_live(p_worker_id, p_token) THEN
    INSERT INTO worker_leases (worker_id, fencing_token, event, expires_at)
    VALUES (p_worker_id, p_token, 'release', clock_timestamp());
  END IF;
END
$$;

-- The fence: an owned attempt or receipt is written only under a live lease.
CREATE FUNCTION tg_dispatch_attempts__fencing() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
  IF NEW.owner_worker_id IS NOT NULL AND NOT irrevon_lease_live(NEW.owner_worker_id, NEW.fencing_token) THEN
    RAISE EXCEPTION 'fenced: worker % token % holds no live lease', NEW.owner_worker_id, NEW.fencing_token
      USING ERRCODE = 'DT006';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER dispatch_attempts_fencing BEFORE INSERT ON dispatch_attempts
  FOR EACH ROW EXECUTE FUNCTION tg_dispatch_attempts__fencing();
ALTER TABLE dispatch_attempts ENABLE ALWAYS TRIGGER dispatch_attempts_fencing;

CREATE FUNCTION tg_dispatch_receipts__fencing() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
  IF NEW.recorded_by_worker IS NOT NULL AND NOT irrevon_lease_live(NEW.recorded_by_worker, NEW.fencing_token) THEN
    RAISE EXCEPTION 'fenced: worker % token % holds no live lease', NEW.recorded_by_worker, NEW.fencing_token
      USING ERRCODE = 'DT006';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER dispatch_receipts_fencing BEFORE INSERT ON dispatch_receipts
  FOR EACH ROW EXECUTE FUNCTION tg_dispatch_receipts__fencing();
ALTER TABLE dispatch_receipts ENABLE ALWAYS TRIGGER dispatch_receipts_fencing;

-- Executions the reconciler handed to a human: no covering key, an opaque (C3) destination,
-- the INDETERMINATE budget spent, or absence without a declared lag. Parked-AMBIGUOUS is not
-- a finding (§2.2), so the escalation is its own fact; once per execution and reason.
CREATE TABLE execution_escalations (
  escalation_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  execution_id bigint NOT NULL REFERENCES effect_executions (execution_id),
  reason text NOT NULL CONSTRAINT execution_escalations_reason_known CHECK (reason IN
    ('no_covering_key', 'opaque_destination', 'indeterminate_budget', 'attempt_cap')),
  evidence jsonb NOT NULL CONSTRAINT execution_escalations_evidence_object CHECK (jsonb_typeof(evidence) = 'object'),
  recorded_by text NOT NULL CONSTRAINT execution_escalations_recorded_by_known CHECK (recorded_by IN ('reconciler', 'recovery')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT execution_escalations_once UNIQUE (execution_id, reason)
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['worker_leases', 'execution_escalations'] LOOP
    EXECUTE format(
      'CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I FOR EACH STATEMENT EXECUTE FUNCTION irrevon_no_rewrite()',
      t || '_append_only', t);
    EXECUTE format(
      'CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION irrevon_no_rewrite()',
      t || '_no_truncate', t);
    EXECUTE format('ALTER TABLE %I ENABLE ALWAYS TRIGGER %I', t, t || '_append_only');
    EXECUTE format('ALTER TABLE %I ENABLE ALWAYS TRIGGER %I', t, t || '_no_truncate');
  END LOOP;
END
$$;

-- Lease rows only through the functions above; escalations are evidence the app inserts.
REVOKE ALL ON worker_leases, execution_escalations FROM PUBLIC;
REVOKE ALL ON SEQUENCE worker_fencing_tokens FROM PUBLIC;
GRANT SELECT ON worker_leases, execution_escalations TO irrevon_app, irrevon_read;
GRANT INSERT ON execution_escalations TO irrevon_app;
GRANT USAGE ON SEQUENCE execution_escalations_escalation_id_seq TO irrevon_app;
GRANT EXECUTE ON FUNCTION
  irrevon_lock_key(text),
  irrevon_lease_live(text, bigint),
  ledger_lease_register(text, bigint),
  ledger_lease_renew(text, bigint, bigint),
  ledger_lease_release(text, bigint)
TO irrevon_app;
