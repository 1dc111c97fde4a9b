-- Processes cache sessions (with their wallet's flags) and tariff rules for up to a second. Any
-- statement that changes those tables, from any process or an operator's psql, announces it on
-- `core_changes` with the table's name (delivered at commit), and every process drops its caches
-- of that table (src/services/ChangeNotices.ts). New sessions need no notice: a miss is never cached.
CREATE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('core_changes', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
CREATE TRIGGER wallets_changed AFTER UPDATE OR DELETE OR TRUNCATE ON wallets FOR EACH STATEMENT EXECUTE FUNCTION notify_change();
CREATE TRIGGER sessions_changed AFTER UPDATE OR DELETE OR TRUNCATE ON sessions FOR EACH STATEMENT EXECUTE FUNCTION notify_change();
CREATE TRIGGER tariffs_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tariffs FOR EACH STATEMENT EXECUTE FUNCTION notify_change();
