-- 0061_open_findings: what the worker asks of findings on every cycle reads the findings still
-- open, not every finding ever recorded (issue 11; docs/decisions/0013-open-work-indexes.md,
-- third index).
--
-- A finding's status is its newest resolution's to_status (OPEN without one); it is open until
-- one says CLOSED. The worker's gauges counted open findings, and its resolution steps looked for
-- COMPENSATED and REDISPATCHED findings (and a committed compensating effect for its
-- COMPENSATED ones), by computing the status of every finding in the ledger, several times a
-- cycle. Findings accumulate with every adjudication (a CONFIRMED_UNIQUE per present answer,
-- closed at once), so the cost grew with history.
--
--   open_findings                   a derived index, not a fact: one row per finding whose
--                                   status is not CLOSED, with that status. Written only by the
--                                   two triggers below (as irrevon_owner); the roles only read
--                                   it; the auditor checks it against the findings' statuses
--                                   (rule derived_index).
--   irrevon_open_finding_add()      AFTER INSERT ON findings: the new finding is OPEN
--   irrevon_open_finding_track()    AFTER INSERT ON finding_resolutions: CLOSED ⇒ no row;
--                                   any other status ⇒ the row at that status
-- A finding's resolutions are written one at a time (ledger_resolve, under the finding's row
-- lock, and the one-successor constraint), so the row follows the newest one. Findings open when
-- this migration runs are copied from their statuses.

CREATE TABLE open_findings (
  finding_id bigint NOT NULL PRIMARY KEY,
  status     text   NOT NULL
);
CREATE INDEX open_findings_status_idx ON open_findings (status, finding_id);

CREATE FUNCTION irrevon_open_finding_add() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  INSERT INTO open_findings (finding_id, status) VALUES (NEW.finding_id, 'OPEN');
  RETURN NULL;
END
$$;

CREATE FUNCTION irrevon_open_finding_track() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
  IF NEW.to_status = 'CLOSED' THEN
    DELETE FROM open_findings o WHERE o.finding_id = NEW.finding_id;
  ELSE
    INSERT INTO open_findings (finding_id, status) VALUES (NEW.finding_id, NEW.to_status)
    ON CONFLICT (finding_id) DO UPDATE SET status = EXCLUDED.status;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER findings_open_finding AFTER INSERT ON findings
  FOR EACH ROW EXECUTE FUNCTION irrevon_open_finding_add();
CREATE TRIGGER finding_resolutions_open_finding AFTER INSERT ON finding_resolutions
  FOR EACH ROW EXECUTE FUNCTION irrevon_open_finding_track();
ALTER TABLE findings ENABLE ALWAYS TRIGGER findings_open_finding;
ALTER TABLE finding_resolutions ENABLE ALWAYS TRIGGER finding_resolutions_open_finding;

INSERT INTO open_findings (finding_id, status)
SELECT s.finding_id, s.status FROM (
  SELECT f.finding_id, COALESCE((SELECT r.to_status FROM finding_resolutions r
                                  WHERE r.finding_id = f.finding_id
                                  ORDER BY r.resolution_seq DESC LIMIT 1), 'OPEN') AS status
    FROM findings f) s
 WHERE s.status <> 'CLOSED';

REVOKE ALL ON open_findings FROM PUBLIC;
GRANT SELECT ON open_findings TO irrevon_app, irrevon_read;
REVOKE ALL ON FUNCTION irrevon_open_finding_add(), irrevon_open_finding_track() FROM PUBLIC;
