-- 0046_sweep_match_indexes: indexes for what the orphan sweep and the audit match a listed
-- destination effect on (docs/engine.md "What explains a destination effect"). Without them
-- every sweep run scans all receipts, late responses and status probes of the ledger:
--   dispatch_receipts.destination_ref   a receipt's destination ref (match path 2)
--   late_responses.destination_ref      a late response's destination ref (match path 2)
--   status_probes.destination_refs      the refs a probe found (match path 2), a JSON array
--                                       searched with `?|`, which a GIN index serves
--   dispatch_attempts (execution_id, adapter_id)  "is this execution claimed by this adapter"
-- Indexes only: no fact changes, nothing to grant.

CREATE INDEX dispatch_receipts_destination_ref_idx ON dispatch_receipts (destination_ref)
  WHERE destination_ref IS NOT NULL;
CREATE INDEX late_responses_destination_ref_idx ON late_responses (destination_ref)
  WHERE destination_ref IS NOT NULL;
CREATE INDEX status_probes_destination_refs_idx ON status_probes USING gin (destination_refs);
CREATE INDEX dispatch_attempts_execution_adapter_idx ON dispatch_attempts (execution_id, adapter_id);
