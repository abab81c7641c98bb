-- 0051_hot_path_costs: what a guarded effect paid for besides its round trips and commits
-- (issue 11; measured with EXPLAIN ANALYZE and pg_stat_user_functions, docs/architecture.md
-- "Hot path"). Nothing here changes a fact, a check or a lock; the same rows are written and
-- the same answers returned.
--
-- 1. Indexes for lookups every effect makes. Without them each scanned a table that grows with
--    the ledger, so one effect cost more the more effects came before it (on a ledger of 1 030
--    effects, irrevon_claim_inputs read every gate decision, and scanned transitions and
--    authority links backwards from the newest one):
--      gate_decisions (execution_id)       the last decision per variant of the latest
--                                          execution (irrevon_claim_inputs, twice per dispatch)
--      effect_transitions (execution_id, transition_seq)
--                                          the frontier of an execution (execution_frontiers,
--                                          ledger_transition)
--      effect_authorities (effect_id, link_id)
--                                          the current authority of an effect (its newest
--                                          link); replaces the (effect_id) index it extends
--      effect_records (scope, effect_type) the open attempts of a (scope, effect_type) slot
--                                          (open_attempts: ledger_claim's slot-busy check)
-- 2. Three small helpers become PL/pgSQL with the same body. As SQL functions with a pinned
--    search_path they cannot be inlined, so every call site parsed and planned their body
--    again in each transaction (irrevon_lease_live: three calls per effect — both fencing
--    triggers and the receipt's fence check; irrevon_iso: eight per irrevon_claim_inputs;
--    irrevon_claim_version: two). PL/pgSQL keeps the plan for the session. Signatures,
--    volatility, owner, search_path and grants are unchanged (CREATE OR REPLACE keeps them).

CREATE INDEX gate_decisions_execution_id_idx ON gate_decisions (execution_id);
CREATE INDEX effect_transitions_execution_seq_idx ON effect_transitions (execution_id, transition_seq);
CREATE INDEX effect_authorities_effect_link_idx ON effect_authorities (effect_id, link_id);
DROP INDEX effect_authorities_effect_id_idx;
CREATE INDEX effect_records_scope_type_idx ON effect_records (scope, effect_type);

CREATE OR REPLACE FUNCTION irrevon_lease_live(p_worker_id text, p_token bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN COALESCE((
    SELECT l.fencing_token = p_token AND l.event <> 'release' AND l.expires_at > clock_timestamp()
    FROM worker_leases l
    WHERE l.worker_id = p_worker_id
    ORDER BY l.lease_seq DESC
    LIMIT 1
  ), false);
END
$$;

CREATE OR REPLACE FUNCTION irrevon_iso(p_ts timestamptz) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN to_char(p_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
END
$$;

CREATE OR REPLACE FUNCTION irrevon_claim_version(p_inputs jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = public, pg_temp
AS $$
BEGIN
  RETURN md5((p_inputs - 'gate_time')::text);
END
$$;
