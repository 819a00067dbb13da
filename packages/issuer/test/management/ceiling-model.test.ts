/**
 * The scope ceiling as a property (catalogue F8): for any sequence of Management API calls made by a
 * caller holding a random set S of Management API scopes — creating roles and giving them scopes,
 * assigning roles to applications and users, creating applications and users, rotating secrets,
 * setting passwords, creating personal access tokens, taking scopes away, editing applications — no
 * principal the caller can obtain a token for ends up holding a Management API scope outside S (with
 * the read scopes its write scopes imply). Principals it can obtain a token for: itself, every
 * application whose secret it was shown (created or rotated), every user whose password it set or for
 * whom it made a personal access token. Applications are checked by asking the token endpoint for a
 * Management API token with their secret; users by the scopes their roles grant on the Management API.
 * The calls run for real against one live issuer whose world grows from run to run.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_NAMES } from '../../src/bootstrap.js';
import { CONSOLE_ROLES } from '../../src/console/bootstrap.js';
import { impliedScopes, MANAGEMENT_SCOPES } from '../../src/management/scopes.js';
import { ORDERS, PASSWORD } from '../helpers/fixtures.js';
import {
  adminToken,
  api,
  clientCredentials,
  managementClient,
  startIssuer,
  type TestIssuer,
} from '../helpers/issuer.js';

type Command =
  | { kind: 'createRole'; type: 'User' | 'MachineToMachine'; scopes: number[] }
  | { kind: 'addScopes'; role: number; scopes: number[] }
  | { kind: 'removeScope'; role: number; scope: number }
  | { kind: 'assignApp'; app: number; role: number }
  | { kind: 'assignUser'; user: number; role: number }
  | { kind: 'createApp' }
  | { kind: 'rotate'; app: number }
  | { kind: 'patchApp'; app: number }
  | { kind: 'createUser' }
  | { kind: 'setPassword'; user: number }
  | { kind: 'createPat'; user: number };

const index = fc.nat({ max: 1_000 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant('createRole' as const),
    type: fc.constantFrom('User' as const, 'MachineToMachine' as const),
    scopes: fc.array(index, { maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('addScopes' as const),
    role: index,
    scopes: fc.array(index, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('removeScope' as const), role: index, scope: index }),
  fc.record({ kind: fc.constant('assignApp' as const), app: index, role: index }),
  fc.record({ kind: fc.constant('assignUser' as const), user: index, role: index }),
  fc.record({ kind: fc.constant('createApp' as const) }),
  fc.record({ kind: fc.constant('rotate' as const), app: index }),
  fc.record({ kind: fc.constant('patchApp' as const), app: index }),
  fc.record({ kind: fc.constant('createUser' as const) }),
  fc.record({ kind: fc.constant('setPassword' as const), user: index }),
  fc.record({ kind: fc.constant('createPat' as const), user: index }),
);

const GRANTABLE = MANAGEMENT_SCOPES.map((scope) => scope.name).filter((name) => name !== 'all');

describe('F8: no sequence of calls yields a principal holding a Management API scope outside the caller’s', () => {
  let t: TestIssuer;
  let admin: string;
  /** Every scope a command may name: the Management API's and one of another API. */
  const scopeIds: string[] = [];
  const roleIds: string[] = [];
  const appIds: string[] = [];
  const userIds: string[] = [];
  let created = 0;

  beforeAll(async () => {
    t = await startIssuer('sqlite', {
      rateLimits: { managementPerClient: 100_000, tokenPerClient: 100_000, tokenPerAddress: 100_000 },
    });
    admin = await adminToken(t);
    const resources = await api(t, admin, 'GET', '/resources?pageSize=100');
    const management = resources.body.items.find((r: { system: boolean }) => r.system);
    const scopes = (await api(t, admin, 'GET', `/resources/${management.id}/scopes`)).body.items;
    const byName = new Map<string, string>(scopes.map((s: { name: string; id: string }) => [s.name, s.id]));
    scopeIds.push(...byName.values());
    const orders = await api(t, admin, 'POST', '/resources', { name: 'Orders', indicator: ORDERS });
    const readOrders = await api(t, admin, 'POST', `/resources/${orders.body.id}/scopes`, {
      name: 'read:orders',
    });
    scopeIds.push(readOrders.body.id);
    for (const role of (await api(t, admin, 'GET', '/roles?pageSize=100')).body.items) roleIds.push(role.id);
    // Seeded roles, users and applications holding various scopes (all included).
    const seeded: [string, 'User' | 'MachineToMachine', string[]][] = [
      ['keys', 'MachineToMachine', [byName.get('keys:write')!]],
      ['users', 'User', [byName.get('users:write')!, byName.get('users:read')!]],
      ['powerful', 'User', [byName.get('all')!]],
      ['orders', 'MachineToMachine', [readOrders.body.id]],
    ];
    const seededRoles = new Map<string, string>();
    for (const [name, type, ids] of seeded) {
      const role = await api(t, admin, 'POST', '/roles', { name: `seed-${name}`, type });
      await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: ids });
      roleIds.push(role.body.id);
      seededRoles.set(name, role.body.id);
    }
    const roleNamed = async (name: string) =>
      (await api(t, admin, 'GET', '/roles?pageSize=100')).body.items.find(
        (r: { name: string }) => r.name === name,
      ).id as string;
    for (const [username, roles] of [
      ['root', [await roleNamed(CONSOLE_ROLES.administrator.name)]],
      ['viewer', [await roleNamed(CONSOLE_ROLES.viewer.name)]],
      ['usermgr', [seededRoles.get('users')!]],
      ['plain', []],
    ] as [string, string[]][]) {
      const user = await api(t, admin, 'POST', '/users', { username, password: PASSWORD });
      if (roles.length > 0) await api(t, admin, 'POST', `/users/${user.body.id}/roles`, { roleIds: roles });
      userIds.push(user.body.id);
    }
    for (const [name, role] of [
      ['strong', seededRoles.get('keys')!],
      ['orders', seededRoles.get('orders')!],
      ['empty', undefined],
    ] as [string, string | undefined][]) {
      const app = await api(t, admin, 'POST', '/applications', { name, type: 'MachineToMachine' });
      if (role !== undefined)
        await api(t, admin, 'POST', `/applications/${app.body.id}/roles`, { roleIds: [role] });
      appIds.push(app.body.id);
    }
    appIds.push(t.admin.clientId, 'gatehouse-console');
    expect(await roleNamed(BUILT_IN_NAMES.adminRole)).toBeDefined();
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('F8: random callers and call sequences (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(GRANTABLE, { minLength: 1, maxLength: 5 }),
        fc.array(command, { minLength: 1, maxLength: 12 }),
        async (held, commands) => {
          const caller = await managementClient(t, held);
          const S = impliedScopes(held);
          const pick = <T>(pool: readonly T[], i: number) => pool[i % pool.length]!;
          const secrets = new Map<string, string>([[caller.clientId, caller.clientSecret]]);
          const users = new Set<string>();
          const roles = [...roleIds, caller.roleId];
          const apps = [...appIds, caller.clientId];
          const call = (method: string, path: string, body?: unknown) =>
            api(t, caller.token, method, path, body);
          for (const c of commands) {
            switch (c.kind) {
              case 'createRole': {
                const role = await call('POST', '/roles', { name: `model-${created++}`, type: c.type });
                if (role.status !== 201) break;
                roles.push(role.body.id);
                roleIds.push(role.body.id);
                if (c.scopes.length > 0)
                  await call('POST', `/roles/${role.body.id}/scopes`, {
                    scopeIds: c.scopes.map((i) => pick(scopeIds, i)),
                  });
                break;
              }
              case 'addScopes':
                await call('POST', `/roles/${pick(roles, c.role)}/scopes`, {
                  scopeIds: c.scopes.map((i) => pick(scopeIds, i)),
                });
                break;
              case 'removeScope':
                await call('DELETE', `/roles/${pick(roles, c.role)}/scopes/${pick(scopeIds, c.scope)}`);
                break;
              case 'assignApp':
                await call('POST', `/applications/${pick(apps, c.app)}/roles`, {
                  roleIds: [pick(roles, c.role)],
                });
                break;
              case 'assignUser':
                await call('POST', `/users/${pick(userIds, c.user)}/roles`, {
                  roleIds: [pick(roles, c.role)],
                });
                break;
              case 'createApp': {
                const app = await call('POST', '/applications', {
                  name: `model-${created++}`,
                  type: 'MachineToMachine',
                });
                if (app.status !== 201) break;
                secrets.set(app.body.id, app.body.clientSecret);
                apps.push(app.body.id);
                appIds.push(app.body.id);
                break;
              }
              case 'rotate': {
                const id = pick(apps, c.app);
                const res = await call('POST', `/applications/${id}/secret`);
                if (res.status === 200) secrets.set(id, res.body.clientSecret);
                break;
              }
              case 'patchApp':
                await call('PATCH', `/applications/${pick(apps, c.app)}`, { name: `patched-${created++}` });
                break;
              case 'createUser': {
                const user = await call('POST', '/users', {
                  username: `model-${created++}`,
                  password: PASSWORD,
                });
                if (user.status !== 201) break;
                users.add(user.body.id);
                userIds.push(user.body.id);
                break;
              }
              case 'setPassword': {
                const id = pick(userIds, c.user);
                if ((await call('PUT', `/users/${id}/password`, { password: PASSWORD })).status === 204)
                  users.add(id);
                break;
              }
              case 'createPat': {
                const id = pick(userIds, c.user);
                const pat = await call('POST', `/users/${id}/personal-access-tokens`, {
                  name: `pat-${created++}`,
                });
                if (pat.status === 201) users.add(id);
                break;
              }
            }
          }
          for (const [clientId, secret] of secrets) {
            const issued = await clientCredentials(t.baseUrl, clientId, secret, {
              resource: `${t.baseUrl}/api`,
            });
            if (issued.status !== 200) continue;
            const scopes = String(issued.body.scope ?? '')
              .split(' ')
              .filter(Boolean);
            expect(
              scopes.filter((scope) => !S.has(scope)),
              `application ${clientId}`,
            ).toEqual([]);
          }
          for (const userId of users) {
            const granted = await t.issuer.store.roles.grantedScopes({ userId }, `${t.baseUrl}/api`);
            expect(
              granted.filter((scope) => !S.has(scope)),
              `user ${userId}`,
            ).toEqual([]);
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 300_000);
});
