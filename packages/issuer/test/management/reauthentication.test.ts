/**
 * The Management API's side of console re-authentication (catalogue F20): the dangerous changes — key
 * rotation, granting a role (or adding a scope) that carries Management API scopes, registering a
 * webhook, deleting a user or an application — are accepted from a console user only within
 * `console.reauthenticateAfter` seconds of their sign-in; past it they are 401
 * `insufficient_user_authentication` with `max_age` in the challenge (RFC 9470), nothing changed,
 * and a new sign-in lets them through. Other changes, and machine-to-machine callers, are not
 * affected. The issuer's clock is moved (`vi.setSystemTime`: Date only) instead of waiting.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONSOLE_ROLES } from '../../src/console/bootstrap.js';
import { consoleToken } from '../helpers/console-token.js';
import { DRIVERS } from '../helpers/drivers.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

const AGE = 120;

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let viewerRole: string;
  let plainRole: string;

  beforeAll(async () => {
    t = await startIssuer(driver, { console: { reauthenticateAfter: AGE } });
    admin = await adminToken(t);
    const roles = (await api(t, admin, 'GET', '/roles?pageSize=100')).body.items;
    const named = (name: string) => roles.find((role: { name: string }) => role.name === name).id;
    viewerRole = named(CONSOLE_ROLES.viewer.name);
    plainRole = (await api(t, admin, 'POST', '/roles', { name: 'plain', type: 'User' })).body.id;
    const root = await api(t, admin, 'POST', '/users', { username: 'f20-root', password: PASSWORD });
    await api(t, admin, 'POST', `/users/${root.body.id}/roles`, {
      roleIds: [named(CONSOLE_ROLES.administrator.name)],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Each dangerous change, on fresh targets, as [method, path, body]. */
  async function dangerous(): Promise<[string, string, unknown?][]> {
    const suffix = Math.random().toString(36).slice(2, 8);
    const user = await api(t, admin, 'POST', '/users', { username: `f20-${suffix}` });
    const app = await api(t, admin, 'POST', '/applications', {
      name: `f20 ${suffix}`,
      type: 'SPA',
      redirectUris: ['https://a.example/cb'],
    });
    const role = await api(t, admin, 'POST', '/roles', { name: `f20-${suffix}`, type: 'User' });
    const scopes = (await api(t, admin, 'GET', `/roles/${viewerRole}/scopes`)).body.items;
    return [
      ['POST', '/signing-keys/rotate'],
      ['POST', `/users/${user.body.id}/roles`, { roleIds: [viewerRole] }],
      ['POST', `/roles/${role.body.id}/scopes`, { scopeIds: [scopes[0].id] }],
      ['POST', '/webhooks', { url: `http://127.0.0.1:9/${suffix}` }],
      ['DELETE', `/users/${user.body.id}`],
      ['DELETE', `/applications/${app.body.id}`],
    ];
  }

  it('F20: within the age a console administrator makes every dangerous change', async () => {
    const token = await consoleToken(t, 'f20-root');
    for (const [method, path, body] of await dangerous()) {
      const res = await api(t, token, method, path, body);
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
    }
  });

  it('F20: past it each is 401 insufficient_user_authentication with max_age, and changes nothing', async () => {
    const token = await consoleToken(t, 'f20-root');
    const calls = await dangerous();
    const keys = (await api(t, admin, 'GET', '/signing-keys')).body.items.length;
    const events = (await api(t, admin, 'GET', '/audit-events?pageSize=1')).body.total;
    vi.setSystemTime(Date.now() + (AGE + 60) * 1000);
    for (const [method, path, body] of calls) {
      const res = await api(t, token, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.code).toBe('insufficient_user_authentication');
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="insufficient_user_authentication"');
      expect(challenge).toContain(`max_age="${AGE}"`);
    }
    expect((await api(t, admin, 'GET', '/signing-keys')).body.items).toHaveLength(keys);
    expect((await api(t, admin, 'GET', '/audit-events?pageSize=1')).body.total).toBe(events);

    // The same old sign-in still makes the other changes, and a role without Management API scopes is
    // no dangerous grant.
    const user = await api(t, token, 'POST', '/users', { username: `f20-later-${Date.now()}` });
    expect(user.status).toBe(201);
    expect(
      (await api(t, token, 'POST', `/users/${user.body.id}/roles`, { roleIds: [plainRole] })).status,
    ).toBe(204);
    // A machine-to-machine caller has no sign-in to age.
    expect((await api(t, admin, ...calls[4]!)).status).toBe(204);

    // A new sign-in (at the moved clock) lets the console user through again.
    const fresh = await consoleToken(t, 'f20-root');
    expect((await api(t, fresh, ...calls[5]!)).status).toBe(204);
  });
});
