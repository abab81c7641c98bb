-- 0011_grants: docs/decisions/0003-roles.md. Nothing is granted to PUBLIC. irrevon_app inserts
-- evidence and calls the locked functions; it cannot write lifecycle, finding or resolution
-- rows directly, and its UPDATE grant on two tables exists only so SELECT … FOR UPDATE works
-- (the append-only trigger still refuses an UPDATE). irrevon_read only selects.

-- Explicit lists, not ALL … IN SCHEMA: the schema may hold objects irrevon_owner does not own
-- (the migration journal, other applications' objects), and revoking on those would fail.
REVOKE ALL ON
  lifecycle_edges, classification_attachments, resolution_actions, resolution_status_edges,
  effect_records, parameter_variants, effect_executions, effect_transitions, scope_slots,
  gate_decisions, dispatch_attempts, dispatch_receipts, late_responses, status_probes,
  findings, finding_resolutions, authorities, effect_authorities, authority_policies,
  branch_cancellations, deny_entries, deny_lifts, sweep_runs, sweep_sightings, recovery_runs,
  execution_frontiers, effect_frontiers, open_attempts
FROM PUBLIC;

REVOKE ALL ON FUNCTION
  irrevon_no_rewrite(),
  ledger_open_execution(text, text),
  ledger_transition(bigint, text, text, text, text, jsonb),
  ledger_attach_finding(text, text, text, text, integer, jsonb, text, text),
  ledger_resolve(bigint, text, text, text, jsonb)
FROM PUBLIC;

GRANT SELECT ON
  lifecycle_edges, classification_attachments, resolution_actions, resolution_status_edges,
  effect_records, parameter_variants, effect_executions, effect_transitions, scope_slots,
  gate_decisions, dispatch_attempts, dispatch_receipts, late_responses, status_probes,
  findings, finding_resolutions, authorities, effect_authorities, authority_policies,
  branch_cancellations, deny_entries, deny_lifts, sweep_runs, sweep_sightings, recovery_runs,
  execution_frontiers, effect_frontiers, open_attempts
TO irrevon_app, irrevon_read;

GRANT INSERT ON
  effect_records, parameter_variants, scope_slots, gate_decisions, dispatch_attempts,
  dispatch_receipts, late_responses, status_probes, authorities, effect_authorities,
  branch_cancellations, deny_entries, deny_lifts, sweep_runs, sweep_sightings, recovery_runs
TO irrevon_app;

GRANT UPDATE ON scope_slots, effect_records TO irrevon_app;

GRANT USAGE ON SEQUENCE
  parameter_variants_variant_id_seq, gate_decisions_decision_id_seq, dispatch_attempts_attempt_id_seq,
  dispatch_receipts_receipt_id_seq, late_responses_late_id_seq, status_probes_probe_id_seq,
  authorities_authority_id_seq, effect_authorities_link_id_seq, deny_entries_deny_id_seq,
  deny_lifts_lift_id_seq, sweep_runs_run_id_seq, sweep_sightings_sighting_id_seq,
  recovery_runs_run_id_seq
TO irrevon_app;

GRANT EXECUTE ON FUNCTION
  ledger_open_execution(text, text),
  ledger_transition(bigint, text, text, text, text, jsonb),
  ledger_attach_finding(text, text, text, text, integer, jsonb, text, text),
  ledger_resolve(bigint, text, text, text, jsonb)
TO irrevon_app;

-- Objects later migrations create as irrevon_owner: readable by both roles, functions closed
-- to PUBLIC until a migration grants EXECUTE explicitly.
ALTER DEFAULT PRIVILEGES FOR ROLE irrevon_owner IN SCHEMA public GRANT SELECT ON TABLES TO irrevon_app, irrevon_read;
ALTER DEFAULT PRIVILEGES FOR ROLE irrevon_owner REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
