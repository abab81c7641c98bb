-- 0055_audit_candidates_window: the worker's audit candidates are found in the window they are
-- asked for, not by computing the frontier of every effect in the ledger (issue 11, "what grows
-- with the ledger"). The worker asks each cycle for effects whose latest execution settled
-- (COMMITTED or FAILED) between `lookback` and `min_age` ago; it read the effect_frontiers view
-- — every execution's frontier, then every effect's latest — and filtered afterwards: 45 ms a
-- cycle on a ledger of 12 000 effects, growing with the ledger. With this index the settle
-- transitions of the window are read directly (src/ledger/worker-gauges.ts checks that each is
-- still its execution's frontier and the effect's latest execution). One index entry per settle
-- transition; nothing else changes.
CREATE INDEX effect_transitions_settled_at_idx ON effect_transitions (created_at)
  WHERE to_state IN ('SETTLED_COMMITTED', 'SETTLED_FAILED');
