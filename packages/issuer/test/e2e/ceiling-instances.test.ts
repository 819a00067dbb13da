/**
 * Two issuer processes (`gatehouse-issuer start`) on one PostgreSQL database apply the scope ceiling
 * identically (catalogue F24): the refusals of F1–F6 come out the same from either instance, and a role
 * change made through one instance is enforced by the other at once — in both directions (a scope
 * added to a role makes a grant refused; a scope given to the caller makes it allowed; a scope taken
 * from the caller stops its token at the next request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_NAMES } from '../../src/bootstrap.js';
import { CONSOLE_ROLES } from '../../src/console/bootstrap.js';
import { freshPostgresUrl } from '../helpers/drivers.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { ensureBuilt, type Instance, startInstance, stopInstance } from '../helpers/instances.js';
import { api, clientCredentials, freePort } from '../helpers/issuer.js';

const ADMIN = { clientId: 'f24-admin', clientSecret: 'f'.repeat(40) };
let a: Instance;
let b: Instance;
let baseUrl: string;
let admin: string;
const roles = new Map<string, string>();
const scopes = new Map<string, string>();

/** A Management API token for `clientId`, from instance `at` (audience: the shared base URL). */
async function tokenFor(at: Instance, clientId: string, clientSecret: string): Promise<string> {
  const res = await clientCredentials(at.url, clientId, clientSecret, { resource: `${baseUrl}/api` });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return String(res.body.access_token);
}

/** A new M2M application holding a new role with `names`; its token and role id. */
async function caller(names: string[]) {
  const suffix = Math.random().toString(36).slice(2, 10);
  const role = await call(a, admin, 'POST', '/roles', { name: `f24-${suffix}`, type: 'MachineToMachine' });
  await call(a, admin, 'POST', `/roles/${role.body.id}/scopes`, {
    scopeIds: names.map((n) => scopes.get(n)),
  });
  const app = await call(a, admin, 'POST', '/applications', {
    name: `f24 ${suffix}`,
    type: 'MachineToMachine',
  });
  await call(a, admin, 'POST', `/applications/${app.body.id}/roles`, { roleIds: [role.body.id] });
  return {
    id: app.body.id as string,
    secret: app.body.clientSecret as string,
    roleId: role.body.id as string,
    token: await tokenFor(b, app.body.id, app.body.clientSecret),
  };
}

/** The Management API of one instance. */
const call = (at: Instance, token: string, method: string, path: string, body?: unknown) =>
  api({ baseUrl: at.url }, token, method, path, body);

const reasonOf = (res: { status: number; body: { reason?: string } }) => `${res.status} ${res.body?.reason}`;

beforeAll(async () => {
  ensureBuilt();
  const database = await freshPostgresUrl();
  baseUrl = `http://127.0.0.1:${await freePort()}`;
  const env = {
    DATABASE_URL: database,
    GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.clientId,
    GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.clientSecret,
    GATEHOUSE_PASSWORD_SCRYPT_COST: '1024',
    GATEHOUSE_RATE_LIMITS_MANAGEMENT_PER_CLIENT: '100000',
    GATEHOUSE_RATE_LIMITS_TOKEN_PER_CLIENT: '100000',
  };
  a = await startInstance('a', baseUrl, env);
  b = await startInstance('b', baseUrl, env);
  admin = await tokenFor(a, ADMIN.clientId, ADMIN.clientSecret);
  const resources = await call(a, admin, 'GET', '/resources?pageSize=100');
  const management = resources.body.items.find((r: { system: boolean }) => r.system);
  for (const scope of (await call(a, admin, 'GET', `/resources/${management.id}/scopes`)).body.items)
    scopes.set(scope.name, scope.id);
  for (const role of (await call(a, admin, 'GET', '/roles?pageSize=100')).body.items)
    roles.set(role.name, role.id);
}, 120_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map(stopInstance));
});

describe('F24: two instances on one PostgreSQL database', () => {
  it('F24: the refusals of F1–F6 come out the same from either instance, and nothing changes', async () => {
    const users = await caller(['users:write']);
    const apps = await caller(['applications:write']);
    const keyRole = await call(a, admin, 'POST', '/roles', { name: 'f24-keys', type: 'User' });
    await call(a, admin, 'POST', `/roles/${keyRole.body.id}/scopes`, {
      scopeIds: [scopes.get('keys:write')],
    });
    const carol = await call(a, admin, 'POST', '/users', { username: 'f24-carol', password: PASSWORD });
    const root = await call(a, admin, 'POST', '/users', { username: 'f24-root', password: PASSWORD });
    await call(a, admin, 'POST', `/users/${root.body.id}/roles`, {
      roleIds: [roles.get(CONSOLE_ROLES.administrator.name)],
    });
    const strong = await caller(['keys:write']);
    const attempts: [string, string, string, unknown, string][] = [
      [
        users.token,
        'POST',
        `/users/${carol.body.id}/roles`,
        { roleIds: [keyRole.body.id] },
        'role_exceeds_caller',
      ],
      [
        apps.token,
        'POST',
        `/applications/${apps.id}/roles`,
        { roleIds: [roles.get(BUILT_IN_NAMES.adminRole)] },
        'role_exceeds_caller',
      ],
      [
        users.token,
        'POST',
        `/users/${carol.body.id}/roles`,
        { roleIds: [roles.get(CONSOLE_ROLES.administrator.name)] },
        'role_exceeds_caller',
      ],
      [
        users.token,
        'PUT',
        `/users/${root.body.id}/password`,
        { password: 'taken over now' },
        'principal_exceeds_caller',
      ],
      [apps.token, 'POST', `/applications/${strong.id}/secret`, undefined, 'principal_exceeds_caller'],
      [
        apps.token,
        'PATCH',
        '/applications/gatehouse-console',
        { redirectUris: ['https://attacker.example/cb'] },
        'configuration_only',
      ],
      [apps.token, 'PATCH', `/applications/${ADMIN.clientId}`, { name: 'mine' }, 'built_in'],
    ];
    for (const [token, method, path, body, reason] of attempts) {
      for (const at of [a, b]) {
        const res = await call(at, token, method, path, body);
        expect(reasonOf(res), `${at.name}: ${method} ${path}`).toBe(`403 ${reason}`);
      }
    }
    expect((await call(b, admin, 'GET', `/users/${carol.body.id}/roles`)).body.items).toEqual([]);
    expect((await call(b, admin, 'GET', `/applications/${apps.id}/roles`)).body.items).toHaveLength(1);
  });

  it('F24: a role change made through one instance is enforced by the other at once', async () => {
    const helper = await caller(['users:write', 'users:read']);
    const role = await call(a, admin, 'POST', '/roles', { name: 'f24-support', type: 'User' });
    await call(a, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: [scopes.get('users:read')] });
    const dan = await call(a, admin, 'POST', '/users', { username: 'f24-dan' });
    const erin = await call(a, admin, 'POST', '/users', { username: 'f24-erin' });

    // Through A the role gains keys:write; through B, at once, it can no longer be granted.
    await call(a, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: [scopes.get('keys:write')] });
    expect(
      reasonOf(
        await call(b, helper.token, 'POST', `/users/${dan.body.id}/roles`, { roleIds: [role.body.id] }),
      ),
    ).toBe('403 role_exceeds_caller');

    // Through B the caller's own role gains keys:write. A Management API scope counts when the token
    // carries it too: with its next token, from A, the grant goes through at A.
    await call(b, admin, 'POST', `/roles/${helper.roleId}/scopes`, { scopeIds: [scopes.get('keys:write')] });
    const renewed = await tokenFor(a, helper.id, helper.secret);
    expect(
      (await call(a, renewed, 'POST', `/users/${dan.body.id}/roles`, { roleIds: [role.body.id] })).status,
    ).toBe(204);

    // Through A users:write is taken from the caller; through B its token stops working at once.
    await call(a, admin, 'DELETE', `/roles/${helper.roleId}/scopes/${scopes.get('users:write')}`);
    for (const token of [helper.token, renewed])
      expect(
        reasonOf(await call(b, token, 'PUT', `/users/${erin.body.id}/suspension`, { suspended: true })),
      ).toBe('403 scope_not_held');
    expect((await call(a, admin, 'GET', `/users/${erin.body.id}`)).body.suspended).toBe(false);
  });
});
