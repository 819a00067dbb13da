/**
 * Roles, the scopes they hold, and who holds them (users in `user_roles`, M2M applications in
 * `application_roles`). Adding scopes and assigning roles are one statement each (a JSON array of ids
 * bound to one parameter), so they are atomic without a transaction.
 *
 * @module
 */
import { newRoleColumns } from '../columns.js';
import type { Executor } from '../executor.js';
import { json, type Row, toRole, toScope } from '../rows.js';
import type { RoleHolder, RoleScope } from '../store.js';
import type { RoleStore } from '../tables/entities.js';
import { entity, table } from './table.js';

/**
 * The table, holder column and id of a role holder.
 *
 * @example
 * ```ts
 * holderTable({ userId: 'usr_1' }); // ['user_roles', 'user_id', 'usr_1']
 * ```
 */
export function holderTable(holder: RoleHolder): [table: string, column: string, id: string] {
  return 'userId' in holder
    ? ['user_roles', 'user_id', holder.userId]
    : ['application_roles', 'application_id', holder.applicationId];
}

/**
 * The join of a holder table with the scopes its roles grant (aliases `h` and `s`), for a `FROM` or
 * `JOIN` clause.
 *
 * @example
 * ```ts
 * const sql = `SELECT s.name FROM ${grantsOf('user_roles')} WHERE h.user_id = ?`;
 * ```
 */
export function grantsOf(holders: string): string {
  return `(${holders} h JOIN role_scopes rs ON rs.role_id = h.role_id JOIN scopes s ON s.id = rs.scope_id)`;
}

const toRoleScope = (row: Row): RoleScope => ({ ...toScope(row), indicator: String(row.indicator) });

/**
 * The {@link RoleStore} on `db`.
 *
 * @example
 * ```ts
 * const roles = roleStore(db);
 * await roles.assign({ userId: 'usr_1' }, ['rol_reader']);
 * await roles.grantedScopes({ userId: 'usr_1' }, 'https://orders.example.com'); // ['read:orders']
 * ```
 */
export function roleStore(db: Executor): RoleStore {
  const roles = table(db, 'roles', toRole, { updatedAt: true });
  const { binary, jsonTexts } = db.dialect;
  return {
    ...entity(roles, newRoleColumns, (patch) => ({ name: patch.name, description: patch.description })),
    findByName: (name) => roles.find('name = ?', [name]),
    addScopes: async (roleId, scopeIds) => {
      await db.run(
        `INSERT INTO role_scopes (role_id, scope_id)
         SELECT CAST(? AS TEXT), id FROM scopes WHERE id IN ${jsonTexts} ON CONFLICT DO NOTHING`,
        [roleId, json(scopeIds)],
      );
    },
    removeScope: async (roleId, scopeId) =>
      (await db.run('DELETE FROM role_scopes WHERE role_id = ? AND scope_id = ?', [roleId, scopeId])) > 0,
    listScopes: async (roleId) =>
      (
        await db.many(
          `SELECT s.*, r.indicator FROM role_scopes rs JOIN scopes s ON s.id = rs.scope_id
             JOIN resources r ON r.id = s.resource_id
           WHERE rs.role_id = ? ORDER BY r.indicator ${binary}, s.name ${binary}`,
          [roleId],
        )
      ).map(toRoleScope),
    assign: async (holder, roleIds) => {
      const [holders, column, id] = holderTable(holder);
      await db.run(
        `INSERT INTO ${holders} (${column}, role_id)
         SELECT CAST(? AS TEXT), ids.value FROM ${jsonTexts} AS ids WHERE true ON CONFLICT DO NOTHING`,
        [id, json(roleIds)],
      );
    },
    unassign: async (holder, roleId) => {
      const [holders, column, id] = holderTable(holder);
      return (await db.run(`DELETE FROM ${holders} WHERE ${column} = ? AND role_id = ?`, [id, roleId])) > 0;
    },
    listFor: async (holder) => {
      const [holders, column, id] = holderTable(holder);
      return (
        await db.many(
          `SELECT r.* FROM ${holders} h JOIN roles r ON r.id = h.role_id WHERE h.${column} = ? ORDER BY r.name ${binary}`,
          [id],
        )
      ).map(toRole);
    },
    grantedScopes: async (holder, indicator) => {
      const [holders, column, id] = holderTable(holder);
      return (
        await db.many(
          `SELECT DISTINCT s.name ${binary} AS name FROM ${grantsOf(holders)}
             JOIN resources r ON r.id = s.resource_id
           WHERE h.${column} = ? AND r.indicator = ? ORDER BY 1`,
          [id, indicator],
        )
      ).map((row) => String(row.name));
    },
    scopesHeld: async (holder) => {
      const [holders, column, id] = holderTable(holder);
      return (
        await db.many(
          `SELECT * FROM scopes WHERE id IN (
             SELECT rs.scope_id FROM ${holders} h JOIN role_scopes rs ON rs.role_id = h.role_id WHERE h.${column} = ?
           ) ORDER BY resource_id ${binary}, name ${binary}`,
          [id],
        )
      ).map(toScope);
    },
    rolesFor: async (holder, indicator) => {
      const [holders, column, id] = holderTable(holder);
      return (
        await db.many(
          `SELECT DISTINCT ro.name ${binary} AS name FROM ${grantsOf(holders)}
             JOIN roles ro ON ro.id = h.role_id JOIN resources r ON r.id = s.resource_id
           WHERE h.${column} = ? AND r.indicator = ? ORDER BY 1`,
          [id, indicator],
        )
      ).map((row) => String(row.name));
    },
  };
}
