/**
 * The scope ceiling (catalogue F1–F6), where the attacks arrive: the Management API over HTTP against
 * an issuer started by its CLI. Narrow administrators — M2M applications holding one or two Management
 * API scopes, and console users — try to grant more than they hold, to act on principals that hold
 * more, and to change the built-in entities; each attempt is a 403 with its reason and leaves nothing
 * changed (no assignment, no new password, no audit event), while the same call on what they may touch
 * succeeds. The console application's configured settings are put back at the next start when a
 * database holds others.
 */
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_NAMES } from '../../src/bootstrap.js';
import { CONSOLE_ROLES } from '../../src/console/bootstrap.js';
import { Agent, authorizeUrl, pkce } from '../helpers/agent.js';
import { type CliIssuer, startCliIssuer } from '../helpers/cli-issuer.js';
import { consoleToken } from '../helpers/console-token.js';
import { ORDERS, PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, clientCredentials, managementClient } from '../helpers/issuer.js';

let t: CliIssuer;
let admin: string;
/** Management API scope name → id. */
const management = new Map<string, string>();
/** Role name → id. */
const roles = new Map<string, string>();
let readOrders: string;
let managementResourceId: string;
const ATTACKER = 'https://attacker.example/callback';

async function createRole(name: string, type: 'User' | 'MachineToMachine', scopeIds: string[]) {
  const role = await api(t, admin, 'POST', '/roles', { name, type });
  expect(role.status).toBe(201);
  if (scopeIds.length > 0)
    expect((await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds })).status).toBe(204);
  roles.set(name, role.body.id);
  return role.body.id as string;
}

async function createUser(username: string, roleIds: string[] = []): Promise<string> {
  const user = await api(t, admin, 'POST', '/users', { username, password: PASSWORD });
  expect(user.status).toBe(201);
  if (roleIds.length > 0)
    expect((await api(t, admin, 'POST', `/users/${user.body.id}/roles`, { roleIds })).status).toBe(204);
  return user.body.id;
}

const ids = (...names: string[]) => names.map((name) => management.get(name)!);

function refused(res: { status: number; body: { message?: unknown } }, reason: string) {
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ code: 'access_denied', reason });
  expect(typeof res.body.message).toBe('string');
}

const roleNames = async (path: string) =>
  (await api(t, admin, 'GET', path)).body.items.map((role: { name: string }) => role.name).sort();

/** How many audit events of `type` there are. */
const events = async (type: string) =>
  (await api(t, admin, 'GET', `/audit-events?type=${type}&pageSize=1`)).body.total as number;

beforeAll(async () => {
  t = await startCliIssuer();
  admin = await adminToken(t);
  const resources = await api(t, admin, 'GET', '/resources?pageSize=100');
  managementResourceId = resources.body.items.find((r: { system: boolean }) => r.system).id;
  for (const scope of (await api(t, admin, 'GET', `/resources/${managementResourceId}/scopes`)).body.items)
    management.set(scope.name, scope.id);
  for (const role of (await api(t, admin, 'GET', '/roles?pageSize=100')).body.items)
    roles.set(role.name, role.id);
  const orders = await api(t, admin, 'POST', '/resources', { name: 'Orders', indicator: ORDERS });
  const scope = await api(t, admin, 'POST', `/resources/${orders.body.id}/scopes`, { name: 'read:orders' });
  readOrders = scope.body.id;
  await createRole('reader', 'User', ids('users:read'));
  await createRole('key-master', 'User', ids('users:read', 'keys:write'));
  await createRole('customer', 'User', [readOrders]);
  await createRole('key-machine', 'MachineToMachine', ids('keys:write'));
  await createRole('orders-machine', 'MachineToMachine', [readOrders]);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('F1: a role is granted only by a caller holding every scope it grants', () => {
  it('F1: users:write grants a role within its scopes (204) and not one beyond them (403, nothing assigned)', async () => {
    const caller = await managementClient(t, ['users:write']);
    const bob = await createUser('f1-bob');
    const before = await events('user.roles_assigned');
    const within = await api(t, caller.token, 'POST', `/users/${bob}/roles`, {
      roleIds: [roles.get('reader')],
    });
    expect(within.status).toBe(204);
    const beyond = await api(t, caller.token, 'POST', `/users/${bob}/roles`, {
      roleIds: [roles.get('key-master')],
    });
    refused(beyond, 'role_exceeds_caller');
    expect(beyond.body.message).toContain('keys:write');
    // One role of several beyond the caller refuses them all.
    refused(
      await api(t, caller.token, 'POST', `/users/${bob}/roles`, {
        roleIds: [roles.get('reader'), roles.get('customer')],
      }),
      'role_exceeds_caller',
    );
    expect(await roleNames(`/users/${bob}/roles`)).toEqual(['reader']);
    expect(await events('user.roles_assigned')).toBe(before + 1);
  });

  it('F1: a scope of another API is granted only by a caller whose roles grant it', async () => {
    const caller = await managementClient(t, ['users:write']);
    const carol = await createUser('f1-carol');
    refused(
      await api(t, caller.token, 'POST', `/users/${carol}/roles`, { roleIds: [roles.get('customer')] }),
      'role_exceeds_caller',
    );
    // Give the caller's own role read:orders: now it holds it, and may grant it.
    expect(
      (await api(t, admin, 'POST', `/roles/${caller.roleId}/scopes`, { scopeIds: [readOrders] })).status,
    ).toBe(204);
    expect(
      (await api(t, caller.token, 'POST', `/users/${carol}/roles`, { roleIds: [roles.get('customer')] }))
        .status,
    ).toBe(204);
    expect(await roleNames(`/users/${carol}/roles`)).toEqual(['customer']);
  });

  it('F1: a scope is added to a role (or a role created with scopes) only within what the caller holds', async () => {
    const caller = await managementClient(t, ['roles:write', 'keys:read']);
    const role = await api(t, caller.token, 'POST', '/roles', { name: 'f1-role', type: 'User' });
    expect(role.status).toBe(201);
    const add = (scopeIds: string[]) =>
      api(t, caller.token, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds });
    expect((await add(ids('keys:read'))).status).toBe(204);
    // roles:write holds roles:read too (a write scope holds its read scope).
    expect((await add(ids('roles:read'))).status).toBe(204);
    refused(await add(ids('keys:write')), 'scope_exceeds_caller');
    refused(await add(ids('all')), 'scope_exceeds_caller');
    refused(await add([readOrders]), 'scope_exceeds_caller');
    const held = await api(t, admin, 'GET', `/roles/${role.body.id}/scopes`);
    expect(held.body.items.map((scope: { name: string }) => scope.name).sort()).toEqual([
      'keys:read',
      'roles:read',
    ]);
  });

  it('F1: a caller holding all grants anything', async () => {
    const dave = await createUser('f1-dave');
    expect(
      (
        await api(t, admin, 'POST', `/users/${dave}/roles`, {
          roleIds: [roles.get('key-master'), roles.get(CONSOLE_ROLES.administrator.name)],
        })
      ).status,
    ).toBe(204);
  });
});

describe('F2, F3: the built-in roles that grant all', () => {
  it('F2: applications:write cannot give itself the administrator role, and its next token holds no all', async () => {
    const caller = await managementClient(t, ['applications:write']);
    const res = await api(t, caller.token, 'POST', `/applications/${caller.clientId}/roles`, {
      roleIds: [roles.get(BUILT_IN_NAMES.adminRole)],
    });
    refused(res, 'role_exceeds_caller');
    expect(await roleNames(`/applications/${caller.clientId}/roles`)).not.toContain(BUILT_IN_NAMES.adminRole);
    const asked = await clientCredentials(t.baseUrl, caller.clientId, caller.clientSecret, {
      resource: `${t.baseUrl}/api`,
      scope: 'all',
    });
    expect(asked.status).toBe(400);
    expect(asked.body.error).toBe('invalid_scope');
    const plain = await clientCredentials(t.baseUrl, caller.clientId, caller.clientSecret, {
      resource: `${t.baseUrl}/api`,
    });
    expect(plain.status).toBe(200);
    expect(String(plain.body.scope).split(' ')).not.toContain('all');
  });

  it('F2: nor give it to another application it created', async () => {
    const caller = await managementClient(t, ['applications:write']);
    const app = await api(t, caller.token, 'POST', '/applications', { name: 'f2', type: 'MachineToMachine' });
    expect(app.status).toBe(201);
    refused(
      await api(t, caller.token, 'POST', `/applications/${app.body.id}/roles`, {
        roleIds: [roles.get(BUILT_IN_NAMES.adminRole)],
      }),
      'role_exceeds_caller',
    );
    refused(
      await api(t, caller.token, 'POST', `/applications/${app.body.id}/roles`, {
        roleIds: [roles.get('key-machine')],
      }),
      'role_exceeds_caller',
    );
  });

  it('F3: users:write cannot give a user the console administrator role', async () => {
    const caller = await managementClient(t, ['users:write']);
    const erin = await createUser('f3-erin');
    refused(
      await api(t, caller.token, 'POST', `/users/${erin}/roles`, {
        roleIds: [roles.get(CONSOLE_ROLES.administrator.name)],
      }),
      'role_exceeds_caller',
    );
    expect(await roleNames(`/users/${erin}/roles`)).toEqual([]);
  });
});

describe('F4: a user is acted on only by a caller holding everything the user holds', () => {
  let root: string;
  let plain: string;
  let caller: Awaited<ReturnType<typeof managementClient>>;

  beforeAll(async () => {
    root = await createUser('f4-root', [roles.get(CONSOLE_ROLES.administrator.name)!]);
    plain = await createUser('f4-plain');
    caller = await managementClient(t, ['users:write']);
  });

  it('F4: users:write cannot reset, suspend, rename, strip, give tokens to or delete a console administrator', async () => {
    const before = await api(t, admin, 'GET', '/audit-events?pageSize=1');
    const attempts: [string, string, unknown?][] = [
      ['PUT', `/users/${root}/password`, { password: 'a new password of mine' }],
      ['PUT', `/users/${root}/suspension`, { suspended: true }],
      ['PATCH', `/users/${root}`, { email: 'attacker@example.com' }],
      ['DELETE', `/users/${root}/roles/${roles.get(CONSOLE_ROLES.administrator.name)}`],
      ['POST', `/users/${root}/personal-access-tokens`, { name: 'mine' }],
      ['DELETE', `/users/${root}`],
    ];
    for (const [method, path, body] of attempts)
      refused(await api(t, caller.token, method, path, body), 'principal_exceeds_caller');
    // Nothing changed: the old password still signs in, the user and its role are there, no event.
    expect(await consoleToken(t, 'f4-root')).toMatch(/^ey/);
    const user = await api(t, admin, 'GET', `/users/${root}`);
    expect(user.body).toMatchObject({ suspended: false, email: null });
    expect(await roleNames(`/users/${root}/roles`)).toEqual([CONSOLE_ROLES.administrator.name]);
    expect((await api(t, admin, 'GET', `/users/${root}/personal-access-tokens`)).body.items).toEqual([]);
    const after = await api(t, admin, 'GET', '/audit-events?pageSize=1');
    expect(after.body.total).toBe(before.body.total);
  });

  it('F4: the same calls on a user holding nothing beyond the caller succeed', async () => {
    expect(
      (await api(t, caller.token, 'PUT', `/users/${plain}/password`, { password: 'another password' }))
        .status,
    ).toBe(204);
    expect(
      (await api(t, caller.token, 'PUT', `/users/${plain}/suspension`, { suspended: true })).status,
    ).toBe(200);
    expect((await api(t, caller.token, 'PATCH', `/users/${plain}`, { email: 'p@example.com' })).status).toBe(
      200,
    );
    expect(
      (await api(t, caller.token, 'POST', `/users/${plain}/personal-access-tokens`, { name: 'ci' })).status,
    ).toBe(201);
    expect((await api(t, caller.token, 'DELETE', `/users/${plain}`)).status).toBe(204);
  });

  it('F4: a console administrator (a console user holding all) may act on another one', async () => {
    const other = await createUser('f4-other-root', [roles.get(CONSOLE_ROLES.administrator.name)!]);
    const token = await consoleToken(t, 'f4-root');
    expect(
      (await api(t, token, 'PUT', `/users/${other}/password`, { password: 'reset by a peer' })).status,
    ).toBe(204);
  });

  it('F4: a console user with users:write alone cannot act on a console administrator', async () => {
    const helpdesk = await createRole('helpdesk', 'User', ids('users:write'));
    await createUser('f4-helpdesk', [helpdesk]);
    const token = await consoleToken(t, 'f4-helpdesk');
    refused(
      await api(t, token, 'PUT', `/users/${root}/password`, { password: 'helpdesk takeover' }),
      'principal_exceeds_caller',
    );
  });
});

describe('F5: an application is acted on only by a caller holding everything it holds', () => {
  it('F5: applications:write cannot rotate the secret, change or strip the roles of an app holding keys:write', async () => {
    const caller = await managementClient(t, ['applications:write']);
    const strong = await api(t, admin, 'POST', '/applications', { name: 'strong', type: 'MachineToMachine' });
    await api(t, admin, 'POST', `/applications/${strong.body.id}/roles`, {
      roleIds: [roles.get('key-machine')],
    });
    const web = await api(t, admin, 'POST', '/applications', {
      name: 'web',
      type: 'MachineToMachine',
    });
    for (const [method, path, body] of [
      ['POST', `/applications/${strong.body.id}/secret`],
      ['PATCH', `/applications/${strong.body.id}`, { name: 'mine now' }],
      ['DELETE', `/applications/${strong.body.id}/roles/${roles.get('key-machine')}`],
      ['DELETE', `/applications/${strong.body.id}`],
    ] as [string, string, unknown?][])
      refused(await api(t, caller.token, method, path, body), 'principal_exceeds_caller');
    // The old secret still works.
    const token = await clientCredentials(t.baseUrl, strong.body.clientId, strong.body.clientSecret, {
      resource: `${t.baseUrl}/api`,
    });
    expect(token.status).toBe(200);
    expect((await api(t, admin, 'GET', `/applications/${strong.body.id}`)).body.name).toBe('strong');
    // On an application holding nothing beyond it, the same calls succeed.
    expect((await api(t, caller.token, 'POST', `/applications/${web.body.id}/secret`)).status).toBe(200);
    expect(
      (await api(t, caller.token, 'PATCH', `/applications/${web.body.id}`, { name: 'web 2' })).status,
    ).toBe(200);
  });

  it('F5: redirect URIs of a web application holding nothing are the caller’s to change', async () => {
    const caller = await managementClient(t, ['applications:write']);
    const spa = await api(t, caller.token, 'POST', '/applications', {
      name: 'spa',
      type: 'SPA',
      redirectUris: ['https://app.example.com/callback'],
    });
    expect(spa.status).toBe(201);
    const res = await api(t, caller.token, 'PATCH', `/applications/${spa.body.id}`, {
      redirectUris: ['https://app.example.com/callback', 'https://app.example.com/other'],
    });
    expect(res.status).toBe(200);
  });
});

describe('F6: built-in entities', () => {
  it('F6: applications:write cannot add a redirect URI to the console or turn on token exchange; a crafted sign-in link is refused', async () => {
    const caller = await managementClient(t, ['applications:write']);
    refused(
      await api(t, caller.token, 'PATCH', '/applications/gatehouse-console', {
        redirectUris: [`${t.baseUrl}/console/callback`, ATTACKER],
      }),
      'configuration_only',
    );
    refused(
      await api(t, caller.token, 'PATCH', '/applications/gatehouse-console', { tokenExchangeEnabled: true }),
      'configuration_only',
    );
    refused(
      await api(t, caller.token, 'PATCH', '/applications/gatehouse-console', { name: 'renamed' }),
      'built_in',
    );
    const app = await api(t, admin, 'GET', '/applications/gatehouse-console');
    expect(app.body).toMatchObject({
      name: 'Gatehouse console',
      redirectUris: [`${t.baseUrl}/console/callback`],
      tokenExchangeEnabled: false,
    });
    const agent = new Agent();
    const res = await agent.get(
      authorizeUrl({
        baseUrl: t.baseUrl,
        clientId: 'gatehouse-console',
        redirectUri: ATTACKER,
        scope: 'openid',
        codeChallenge: pkce().challenge,
      }),
    );
    expect(res.location ?? '').not.toContain('attacker.example');
    expect(res.status).toBe(400);
  });

  it('F6: not even all changes the console’s URIs, token exchange, authentication or secret; all may rename it', async () => {
    for (const body of [
      { redirectUris: [ATTACKER] },
      { postLogoutRedirectUris: [ATTACKER] },
      { tokenExchangeEnabled: true },
      { tokenEndpointAuthMethod: 'client_secret_post' },
    ])
      refused(await api(t, admin, 'PATCH', '/applications/gatehouse-console', body), 'configuration_only');
    refused(await api(t, admin, 'POST', '/applications/gatehouse-console/secret'), 'configuration_only');
    const renamed = await api(t, admin, 'PATCH', '/applications/gatehouse-console', { name: 'Console' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.redirectUris).toEqual([`${t.baseUrl}/console/callback`]);
  });

  it('F6: the administrator application, the Management API resource and its scopes, the built-in roles: only with all', async () => {
    // A caller holding every scope but all still may not touch them.
    const everything = [...management.keys()].filter((name) => name !== 'all');
    const caller = await managementClient(t, everything);
    const adminApp = t.admin.clientId;
    const allScope = management.get('all')!;
    for (const [method, path, body] of [
      ['POST', `/applications/${adminApp}/secret`],
      ['PATCH', `/applications/${adminApp}`, { name: 'taken' }],
      ['PATCH', `/resources/${managementResourceId}`, { accessTokenTtl: 86_400 }],
      ['POST', `/resources/${managementResourceId}/scopes`, { name: 'more' }],
      ['PATCH', `/resources/${managementResourceId}/scopes/${allScope}`, { description: 'x' }],
      ['DELETE', `/resources/${managementResourceId}/scopes/${allScope}`],
      ['DELETE', `/resources/${managementResourceId}`],
      ['PATCH', `/roles/${roles.get(CONSOLE_ROLES.viewer.name)}`, { name: 'viewer' }],
      ['POST', `/roles/${roles.get(CONSOLE_ROLES.viewer.name)}/scopes`, { scopeIds: ids('users:write') }],
      ['DELETE', `/roles/${roles.get(CONSOLE_ROLES.viewer.name)}/scopes/${management.get('users:read')}`],
      ['DELETE', `/roles/${roles.get(BUILT_IN_NAMES.adminRole)}`],
    ] as [string, string, unknown?][])
      refused(await api(t, caller.token, method, path, body), 'built_in');
    // all may change what is not pinned: the resource's token lifetime, a built-in role's description.
    expect(
      (await api(t, admin, 'PATCH', `/resources/${managementResourceId}`, { accessTokenTtl: 900 })).status,
    ).toBe(200);
    expect(
      (
        await api(t, admin, 'PATCH', `/roles/${roles.get(CONSOLE_ROLES.viewer.name)}`, {
          description: 'Reads everything in the console',
        })
      ).status,
    ).toBe(200);
    // Built-in roles and the resource's scopes stay out of reach of deletion even then.
    expect((await api(t, admin, 'DELETE', `/roles/${roles.get(BUILT_IN_NAMES.adminRole)}`)).status).toBe(409);
    expect(
      (await api(t, admin, 'DELETE', `/resources/${managementResourceId}/scopes/${allScope}`)).status,
    ).toBe(409);
  });

  it('F6: a console application changed in the database is put back by the next start', async () => {
    const db = new DatabaseSync(t.database);
    try {
      db.prepare(
        "UPDATE applications SET redirect_uris = ?, token_exchange_enabled = 1 WHERE id = 'gatehouse-console'",
      ).run(JSON.stringify([`${t.baseUrl}/console/callback`, ATTACKER]));
    } finally {
      db.close();
    }
    await t.restart();
    admin = await adminToken(t);
    const app = await api(t, admin, 'GET', '/applications/gatehouse-console');
    expect(app.body).toMatchObject({
      redirectUris: [`${t.baseUrl}/console/callback`],
      postLogoutRedirectUris: [`${t.baseUrl}/console/`],
      tokenExchangeEnabled: false,
    });
  }, 60_000);
});
