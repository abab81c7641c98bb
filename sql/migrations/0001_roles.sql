-- irrevon:run-as-login
-- 0001_roles: the three roles of docs/decisions/0003-roles.md and the schema privileges the
-- owner needs. This file runs as the migrating login (superuser or CREATEROLE database owner);
-- every later file runs under SET LOCAL ROLE irrevon_owner so the owner owns every object.
--
-- Roles are cluster-global: several databases on one server (tests, staging) share them, and
-- two migrators on two databases may create them at the same moment. Creation is therefore
-- guarded by IF NOT EXISTS and by catching the losing side's duplicate error.
DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['irrevon_owner', 'irrevon_app', 'irrevon_read'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = r) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN', r);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL; -- another migrator created it first
      END;
    END IF;
  END LOOP;
END
$$;

-- A login that is not a superuser must be a member of irrevon_owner to SET ROLE to it.
DO $$
BEGIN
  IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user)
     AND NOT pg_catalog.pg_has_role(current_user, 'irrevon_owner', 'MEMBER') THEN
    EXECUTE format('GRANT irrevon_owner TO %I', current_user);
  END IF;
END
$$;

-- Login-time default for deployments that give irrevon_read LOGIN (docs/decisions/0003-roles.md);
-- the drivers also set it per connection. Guarded: concurrent ALTER ROLE on one role can fail.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_db_role_setting s
    JOIN pg_catalog.pg_roles r ON r.oid = s.setrole
    WHERE r.rolname = 'irrevon_read' AND s.setdatabase = 0
      AND 'default_transaction_read_only=on' = ANY (s.setconfig)
  ) THEN
    BEGIN
      ALTER ROLE irrevon_read SET default_transaction_read_only = on;
    EXCEPTION WHEN OTHERS THEN
      NULL; -- a concurrent migrator set it; the drivers set it per connection anyway
    END;
  END IF;
END
$$;

-- The owner creates the ledger's objects in the public schema; nobody else may create there
-- (an object planted in the search path is how SECURITY DEFINER functions get subverted).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO irrevon_owner;
GRANT USAGE ON SCHEMA public TO irrevon_app, irrevon_read;
