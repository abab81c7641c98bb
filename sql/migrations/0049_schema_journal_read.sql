-- irrevon:run-as-login
-- 0049_schema_journal_read: an engine checks at open that every migration it was built with is
-- applied, and refuses a ledger whose schema is behind (schema_behind: run `irrevon migrate`)
-- instead of failing later on a missing function or column (issue 14). It reads the journal
-- acting as irrevon_app, so the journal becomes readable — never writable — by the app and
-- read roles. Runs as the migrating login: the login, not irrevon_owner, owns the journal.
-- A ledger migrated before this file cannot be read this way, which itself means it is behind.
GRANT SELECT ON irrevon_schema_migrations TO irrevon_app, irrevon_read;
