/**
 * PostgreSQL: every statement that changes an application, resource, scope, role or their links
 * announces it (`NOTIFY gatehouse_config`, payload: the schema), whoever runs it — another instance, the
 * `copy` command, an operator's SQL — so each instance drops its kept token-request reads
 * (`storage/sql/token-request-cache.ts`). Statement-level triggers: one notification per statement,
 * delivered on commit, none on rollback. SQLite needs nothing (`PRAGMA data_version`). The tables are
 * those of `CONFIG_TABLES` (`storage/config-changes.ts`) when this was written; a test holds them equal.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration('0009_config_notify', (d) =>
  d.pg(`
CREATE FUNCTION gatehouse_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gatehouse_config', coalesce(current_schema(), ''));
  RETURN NULL;
END
$$;
${['applications', 'resources', 'scopes', 'roles', 'role_scopes', 'application_roles', 'user_roles']
  .map(
    (table) => `CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
  FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_config_changed();`,
  )
  .join('\n')}
`),
);
