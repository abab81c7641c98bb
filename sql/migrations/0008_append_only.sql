-- 0008_append_only: facts are never updated, deleted or truncated (I7); corrections are new
-- rows. Statement-level BEFORE triggers fire even when no row matches and for every role,
-- the owner and superusers included. ENABLE ALWAYS keeps them firing under
-- session_replication_role = replica, so only an explicit, visible ALTER TABLE … DISABLE
-- TRIGGER by the owner can switch them off (and the auditor reports that).

CREATE FUNCTION irrevon_no_rewrite() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
  RAISE EXCEPTION 'ledger is append-only: % on % is forbidden', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'DT010';
END
$$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    -- fact tables
    'effect_records', 'parameter_variants', 'effect_executions', 'effect_transitions',
    'scope_slots', 'gate_decisions', 'dispatch_attempts', 'dispatch_receipts', 'late_responses',
    'status_probes', 'findings', 'finding_resolutions', 'authorities', 'effect_authorities',
    'authority_policies', 'branch_cancellations', 'deny_entries', 'deny_lifts', 'sweep_runs',
    'sweep_sightings', 'recovery_runs',
    -- seed tables
    'lifecycle_edges', 'classification_attachments', 'resolution_actions', 'resolution_status_edges'
  ] LOOP
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
