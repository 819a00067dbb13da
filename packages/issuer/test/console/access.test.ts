/**
 * The Management API and the admin console's signed-in users: a user signs in through the console's
 * public application (authorization code + PKCE, no secret) for the Management API resource, and the
 * API accepts the token with the scopes the user's roles grant. Console administrators may change
 * things; console viewers may only read (B82); a user with no console role gets nothing; a suspended
 * user's token stops working at once (B81); the same user's token through any other application is
 * refused (B80); and with `console.enabled: false` no console application exists and no user token is
 * accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ROLES } from '../../src/console/bootstrap.js';
import { consoleToken } from '../helpers/console-token.js';
import { DRIVERS } from '../helpers/drivers.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  const newUser = (suffix: string) => ({ username: `new-${suffix}`, password: PASSWORD });

  beforeAll(async () => {
    t = await startIssuer(driver);
    await t.issuer.seed({
      users: [
        { username: 'root', password: PASSWORD, roles: [CONSOLE_ROLES.administrator.name] },
        { username: 'auditor', password: PASSWORD, roles: [CONSOLE_ROLES.viewer.name] },
        { username: 'carol', password: PASSWORD },
        { username: 'gone', password: PASSWORD, roles: [CONSOLE_ROLES.administrator.name] },
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the bootstrap registers the console as a public first-party SPA with its redirect URI', async () => {
    const app = await t.issuer.store.applications.get('gatehouse-console');
    expect(app).toMatchObject({
      type: 'SPA',
      tokenEndpointAuthMethod: 'none',
      secretHash: null,
      firstParty: true,
      redirectUris: [`${t.baseUrl}/console/callback`],
      postLogoutRedirectUris: [`${t.baseUrl}/console/`],
    });
    const roles = await api(t, await adminToken(t), 'GET', '/roles?pageSize=100');
    const names = roles.body.items.map((role: { name: string; type: string }) => `${role.name}/${role.type}`);
    expect(names).toEqual(
      expect.arrayContaining([
        `${CONSOLE_ROLES.administrator.name}/User`,
        `${CONSOLE_ROLES.viewer.name}/User`,
      ]),
    );
  });

  it('a console administrator reads and changes through the Management API with their own token', async () => {
    const token = await consoleToken(t, 'root');
    expect((await api(t, token, 'GET', '/users')).status).toBe(200);
    expect((await api(t, token, 'POST', '/users', newUser('by-root'))).status).toBe(201);
    expect((await api(t, token, 'GET', '/signing-keys')).status).toBe(200);
  });

  it('B82: a console viewer reads, and every change is refused with insufficient_scope', async () => {
    const token = await consoleToken(t, 'auditor');
    expect((await api(t, token, 'GET', '/users')).status).toBe(200);
    expect((await api(t, token, 'GET', '/audit-events')).status).toBe(200);
    const created = await api(t, token, 'POST', '/users', newUser('by-auditor'));
    expect(created.status).toBe(403);
    expect(created.body.code).toBe('insufficient_scope');
    expect((await api(t, token, 'POST', '/signing-keys/rotate')).status).toBe(403);
  });

  it('a user without a console role gets no Management API scope and is refused', async () => {
    const token = await consoleToken(t, 'carol');
    const res = await api(t, token, 'GET', '/users');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });

  it('B81: a console user suspended after sign-in is refused at once, with the token still unexpired', async () => {
    const token = await consoleToken(t, 'gone');
    expect((await api(t, token, 'GET', '/users')).status).toBe(200);
    const id = (await t.issuer.store.users.findByLogin('gone'))!.id;
    await api(t, await adminToken(t), 'PUT', `/users/${id}/suspension`, { suspended: true });
    const res = await api(t, token, 'GET', '/users');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('access_denied');
  });

  it('B80: an administrator signed in through any other application is refused by the Management API', async () => {
    const admin = await adminToken(t);
    const other = await api(t, admin, 'POST', '/applications', {
      name: 'Look-alike console',
      type: 'SPA',
      redirectUris: [`${t.baseUrl}/console/callback`],
    });
    expect(other.status).toBe(201);
    const token = await consoleToken(t, 'root', { clientId: other.body.clientId });
    const res = await api(t, token, 'GET', '/users');
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/machine-to-machine/);
  });
});

describe('console.enabled: false', () => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer('sqlite', { console: { enabled: false } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves nothing at /console and registers no console application; its roles still exist', async () => {
    expect((await fetch(`${t.baseUrl}/console/`)).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/console/config.json`)).status).toBe(404);
    expect(await t.issuer.store.applications.get('gatehouse-console')).toBeUndefined();
    expect(await t.issuer.store.roles.findByName(CONSOLE_ROLES.administrator.name)).toBeDefined();
  });
});
