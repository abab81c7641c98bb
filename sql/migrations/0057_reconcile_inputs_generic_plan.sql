-- 0057_reconcile_inputs_generic_plan: irrevon_reconcile_inputs keeps one plan per session
-- (issue 11, recovery). Recovery calls it once per page and once per effect after every ABSENT
-- answer (the absence rule's facts at that time). Its statement takes an array, and under the
-- default plan_cache_mode the server kept planning it afresh on every call: ~1.1 ms per call
-- for one effect, of which ~0.55 ms planning, against ~0.5 ms with the generic plan (measured
-- on Postgres 15 with 200 effects, fresh sessions, 100 calls each; a page of 100 costs the same
-- either way, ~8 ms). The generic plan is the same index-lookup plan per effect (EXPLAIN).
-- Nothing else changes: same statement, same answer.
ALTER FUNCTION irrevon_reconcile_inputs(text[]) SET plan_cache_mode = force_generic_plan;
