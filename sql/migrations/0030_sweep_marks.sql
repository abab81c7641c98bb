-- 0030_sweep_marks: what a sweep run learned about time, so the orphan grace period can be
-- measured in destination time (docs/engine.md "Orphan sweep").
--   sweep_runs.destination_now       the destination-time high-water mark after this run: the
--                                    latest created_at any listing of this adapter has shown
--                                    (NULL while nothing was ever listed). A destination's own
--                                    clock is only ever seen through the effects it lists.
--   sweep_runs.engine_now            the engine clock when the run was recorded (injectable in
--                                    tests), so a quiet destination whose listed time stands
--                                    still still lets the grace period pass.
--   sweep_sightings.listed_created_at  the listed effect's created_at (destination time), so a
--                                    later run can widen its window to re-sight it.
-- New nullable columns only: rows are still append-only facts and the app role's table-level
-- INSERT grant covers them.

ALTER TABLE sweep_runs
  ADD COLUMN destination_now timestamptz NULL,
  ADD COLUMN engine_now timestamptz NULL;

ALTER TABLE sweep_sightings
  ADD COLUMN listed_created_at timestamptz NULL;
