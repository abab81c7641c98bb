-- 0048_worker_id_in_use: one live engine per worker id (issue 14). Until now a registration
-- superseded any earlier lease of the same worker id at once, so a second process started
-- with a live process's id fenced the first one out and its recovery closed the first one's
-- running attempt as LOST. A registration is now refused (DT020 => worker_id_in_use,
-- retryable: the id is free once that lease is released or runs out) while the worker's latest
-- lease is live — unless the caller names that very lease in p_supersedes: a process replacing
-- its own lease (one it forfeited because a receipt could not be written under it).
-- See docs/decisions/0004-concurrency-model.md (amendment of issue 14).

CREATE FUNCTION ledger_lease_register(p_worker_id text, p_ttl_ms bigint, p_supersedes bigint)
RETURNS TABLE (fencing_token bigint, expires_at timestamptz)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  v_live worker_leases%ROWTYPE;
  v_token bigint;
  v_expires timestamptz;
BEGIN
  IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 THEN
    RAISE EXCEPTION 'lease ttl must be positive' USING ERRCODE = 'DT005';
  END IF;
  PERFORM pg_advisory_xact_lock(irrevon_lock_key('irrevon:lease:' || p_worker_id));
  SELECT l.* INTO v_live
    FROM worker_leases l
   WHERE l.worker_id = p_worker_id
   ORDER BY l.lease_seq DESC
   LIMIT 1;
  IF FOUND AND v_live.event <> 'release' AND v_live.expires_at > clock_timestamp()
     AND v_live.fencing_token IS DISTINCT FROM p_supersedes THEN
    RAISE EXCEPTION 'worker id % is in use: its lease (token %) is live until %',
      p_worker_id, v_live.fencing_token, v_live.expires_at
      USING ERRCODE = 'DT020';
  END IF;
  v_token := nextval('worker_fencing_tokens');
  v_expires := clock_timestamp() + p_ttl_ms * interval '1 millisecond';
  INSERT INTO worker_leases (worker_id, fencing_token, event, expires_at)
  VALUES (p_worker_id, v_token, 'register', v_expires);
  RETURN QUERY SELECT v_token, v_expires;
END
$$;

-- The two-argument form registers a fresh process: it supersedes nothing.
CREATE OR REPLACE FUNCTION ledger_lease_register(p_worker_id text, p_ttl_ms bigint)
RETURNS TABLE (fencing_token bigint, expires_at timestamptz)
LANGUAGE sql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
  SELECT r.fencing_token, r.expires_at FROM ledger_lease_register(p_worker_id, p_ttl_ms, NULL::bigint) r
$$;

REVOKE ALL ON FUNCTION ledger_lease_register(text, bigint, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger_lease_register(text, bigint, bigint) TO irrevon_app;
