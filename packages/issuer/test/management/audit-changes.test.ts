/**
 * Every change made through the Management API is an audit event (catalogue F21): one per change, of
 * the type its route declares, naming who (the client; the console user who acted) and what (the
 * route, the target ids, the names of the fields sent) — never a password, secret, token or PAT value —
 * recorded in the same transaction as the change: when the event cannot be written, the change is
 * not made either. Every route that declares a change is walked here, on every driver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executorOf } from '../../src/storage/sql/index.js';
import { consoleToken } from '../helpers/console-token.js';
import { DRIVERS } from '../helpers/drivers.js';
import { ORDERS, PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

interface AuditEvent {
  type: string;
  applicationId: string | null;
  userId: string | null;
  actorId: string | null;
  details: { route: string; targets: Record<string, unknown>; fields: string[] } & Record<string, unknown>;
}

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  /** Values that must never appear in an event or a log line. */
  const secrets: string[] = [];
  /** `METHOD /api/path` of every route walked. */
  const walked = new Set<string>();

  beforeAll(async () => {
    t = await startIssuer(driver);
    admin = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const newest = async (): Promise<{ total: number; event: AuditEvent }> => {
    const page = await api(t, admin, 'GET', '/audit-events?pageSize=1');
    return { total: page.body.total, event: page.body.items[0] };
  };

  /** Make the change; expect `status` and exactly one new event of `type`; resolves to the response and event. */
  async function change(
    type: string,
    [method, template, path]: [string, string, string],
    body: unknown,
    status: number,
    token = admin,
  ) {
    const before = await newest();
    const res = await api(t, token, method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    const after = await newest();
    expect(after.total, `${method} ${template} records one event`).toBe(before.total + 1);
    expect(after.event.type).toBe(type);
    expect(after.event.details.route).toBe(`${method} /api${template}`);
    expect(after.event.details.fields).toEqual(Object.keys(body ?? {}).sort());
    walked.add(`${method} /api${template}`);
    return { res, event: after.event };
  }

  it('F21: each change is one event naming the client, the route, the targets and the fields', async () => {
    const created = await change(
      'user.created',
      ['POST', '/users', '/users'],
      { username: 'f21-user', password: PASSWORD },
      201,
    );
    secrets.push(PASSWORD);
    const userId = created.res.body.id;
    expect(created.event).toMatchObject({ applicationId: t.admin.clientId, userId, actorId: null });
    const u = (suffix = '') => ['/users/{id}' + suffix, `/users/${userId}${suffix}`] as const;
    await change('user.updated', ['PATCH', ...u()], { email: 'f21@example.com' }, 200);
    const password = 'a brand new password';
    secrets.push(password);
    const set = await change('user.password_set', ['PUT', ...u('/password')], { password }, 204);
    expect(set.event.userId).toBe(userId);
    expect(set.event.details.targets).toEqual({ id: userId });
    await change('user.suspension_set', ['PUT', ...u('/suspension')], { suspended: false }, 200);

    const resource = await change(
      'resource.created',
      ['POST', '/resources', '/resources'],
      { name: 'Orders', indicator: ORDERS },
      201,
    );
    const resourceId = resource.res.body.id;
    expect(resource.event.details.targets).toEqual({ id: resourceId });
    const r = (suffix = '') => [`/resources/{id}${suffix}`, `/resources/${resourceId}${suffix}`] as const;
    await change('resource.updated', ['PATCH', ...r()], { name: 'Orders API' }, 200);
    const scope = await change('scope.created', ['POST', ...r('/scopes')], { name: 'read:orders' }, 201);
    const scopeId = scope.res.body.id;
    await change(
      'scope.updated',
      ['PATCH', `/resources/{id}/scopes/{scopeId}`, `/resources/${resourceId}/scopes/${scopeId}`],
      { description: 'Read orders' },
      200,
    );

    const role = await change(
      'role.created',
      ['POST', '/roles', '/roles'],
      { name: 'f21', type: 'User' },
      201,
    );
    const roleId = role.res.body.id;
    const ro = (suffix = '') => [`/roles/{id}${suffix}`, `/roles/${roleId}${suffix}`] as const;
    await change('role.updated', ['PATCH', ...ro()], { description: 'Reads orders' }, 200);
    const added = await change('role.scopes_added', ['POST', ...ro('/scopes')], { scopeIds: [scopeId] }, 204);
    expect(added.event.details.targets).toEqual({ id: roleId, scopeIds: [scopeId] });
    const assigned = await change(
      'user.roles_assigned',
      ['POST', ...u('/roles')],
      { roleIds: [roleId, roleId] },
      204,
    );
    expect(assigned.event.details.targets).toEqual({ id: userId, roleIds: [roleId] });
    await change(
      'user.role_removed',
      ['DELETE', '/users/{id}/roles/{roleId}', `/users/${userId}/roles/${roleId}`],
      undefined,
      204,
    );
    await change(
      'role.scope_removed',
      ['DELETE', '/roles/{id}/scopes/{scopeId}', `/roles/${roleId}/scopes/${scopeId}`],
      undefined,
      204,
    );

    const pat = await change(
      'personal_access_token.created',
      ['POST', ...u('/personal-access-tokens')],
      { name: 'ci' },
      201,
    );
    secrets.push(pat.res.body.value);
    expect(pat.event.details).toMatchObject({ personalAccessTokenId: pat.res.body.id, name: 'ci' });
    await change(
      'personal_access_token.revoked',
      [
        'DELETE',
        '/users/{id}/personal-access-tokens/{tokenId}',
        `/users/${userId}/personal-access-tokens/${pat.res.body.id}`,
      ],
      undefined,
      204,
    );

    const app = await change(
      'application.created',
      ['POST', '/applications', '/applications'],
      { name: 'f21 worker', type: 'MachineToMachine' },
      201,
    );
    secrets.push(app.res.body.clientSecret);
    const appId = app.res.body.id;
    const a = (suffix = '') => [`/applications/{id}${suffix}`, `/applications/${appId}${suffix}`] as const;
    await change('application.updated', ['PATCH', ...a()], { name: 'f21 worker 2' }, 200);
    const rotated = await change('application.secret_rotated', ['POST', ...a('/secret')], undefined, 200);
    secrets.push(rotated.res.body.clientSecret);
    const m2m = await api(t, admin, 'POST', '/roles', { name: 'f21-m2m', type: 'MachineToMachine' });
    await change('application.roles_assigned', ['POST', ...a('/roles')], { roleIds: [m2m.body.id] }, 204);
    await change(
      'application.role_removed',
      ['DELETE', '/applications/{id}/roles/{roleId}', `/applications/${appId}/roles/${m2m.body.id}`],
      undefined,
      204,
    );

    const subject = await change(
      'subject_token.created',
      ['POST', '/subject-tokens', '/subject-tokens'],
      { userId },
      201,
    );
    secrets.push(subject.res.body.subjectToken);
    expect(subject.event).toMatchObject({ userId, applicationId: t.admin.clientId });
    const ended = await change(
      'impersonation.ended',
      ['POST', '/impersonations/end', '/impersonations/end'],
      { subjectToken: subject.res.body.subjectToken },
      200,
    );
    expect(ended.event.details).toMatchObject({ cancelledSubjectTokens: [expect.any(String)] });

    const hook = await change(
      'webhook.created',
      ['POST', '/webhooks', '/webhooks'],
      { url: 'http://127.0.0.1:9/f21', events: ['user.created'] },
      201,
    );
    secrets.push(hook.res.body.secret);
    const hookPath = (suffix: string) =>
      [`/webhooks/{id}${suffix}`, `/webhooks/${hook.res.body.id}${suffix}`] as const;
    const rotatedHook = await change(
      'webhook.secret_rotated',
      ['POST', ...hookPath('/secret')],
      { overlap: 60 },
      200,
    );
    secrets.push(rotatedHook.res.body.secret);
    await change('webhook.enabled', ['POST', ...hookPath('/enable')], undefined, 200);
    await change(
      'webhook.deleted',
      ['DELETE', '/webhooks/{id}', `/webhooks/${hook.res.body.id}`],
      undefined,
      204,
    );
    const key = await change(
      'signing_key.rotated',
      ['POST', '/signing-keys/rotate', '/signing-keys/rotate'],
      undefined,
      201,
    );
    expect(key.event.details.targets).toEqual({ kid: key.res.body.kid });
    await t.converge();
    admin = await adminToken(t);

    await change(
      'scope.deleted',
      ['DELETE', '/resources/{id}/scopes/{scopeId}', `/resources/${resourceId}/scopes/${scopeId}`],
      undefined,
      204,
    );
    await change('resource.deleted', ['DELETE', ...r()], undefined, 204);
    await change('role.deleted', ['DELETE', ...ro()], undefined, 204);
    await change('application.deleted', ['DELETE', ...a()], undefined, 204);
    await change('user.deleted', ['DELETE', ...u()], undefined, 204);
  });

  it('F21: every route that declares a change was walked above', async () => {
    const openapi = (await (await fetch(`${t.baseUrl}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, object>>;
    };
    const declared: string[] = [];
    for (const [path, item] of Object.entries(openapi.paths))
      for (const [method, op] of Object.entries(item))
        if ('x-gatehouse-change' in op) declared.push(`${method.toUpperCase()} /api${path}`);
    expect([...walked].sort()).toEqual(declared.sort());
  });

  it('F21: no event and no log line holds a password, secret, token or PAT value', async () => {
    const all = await api(t, admin, 'GET', '/audit-events?pageSize=100');
    const text = JSON.stringify(all.body.items);
    expect(secrets.length).toBeGreaterThanOrEqual(7);
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(t.logs.text).not.toContain(secret);
    }
  });

  it('F21: a console user’s change names the console user as the one who acted', async () => {
    const root = await api(t, admin, 'POST', '/users', { username: 'f21-root', password: PASSWORD });
    const roles = await api(t, admin, 'GET', '/roles?pageSize=100');
    const administrator = roles.body.items.find(
      (role: { name: string }) => role.name === 'Gatehouse console administrator',
    );
    await api(t, admin, 'POST', `/users/${root.body.id}/roles`, { roleIds: [administrator.id] });
    const token = await consoleToken(t, 'f21-root');
    const { event } = await change(
      'user.created',
      ['POST', '/users', '/users'],
      { username: 'f21-by-console' },
      201,
      token,
    );
    expect(event).toMatchObject({ applicationId: 'gatehouse-console', actorId: root.body.id });
  });

  it('F21: when the event cannot be written the change is not made (one transaction)', async () => {
    const db = executorOf(t.issuer.store)!;
    if (db.dialect.name === 'sqlite') {
      await db.script(
        `CREATE TRIGGER f21_no_audit BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'audit unavailable'); END;`,
      );
    } else {
      await db.script(
        `CREATE FUNCTION f21_no_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit unavailable'; END $$ LANGUAGE plpgsql;
         CREATE TRIGGER f21_no_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION f21_no_audit();`,
      );
    }
    try {
      const res = await api(t, admin, 'POST', '/users', { username: 'f21-unaudited' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 'internal_error', message: 'Internal error' });
      const role = await api(t, admin, 'POST', '/roles', { name: 'f21-unaudited', type: 'User' });
      expect(role.status).toBe(500);
    } finally {
      await db.script(
        db.dialect.name === 'sqlite'
          ? 'DROP TRIGGER f21_no_audit;'
          : 'DROP TRIGGER f21_no_audit ON audit_events; DROP FUNCTION f21_no_audit();',
      );
    }
    expect((await api(t, admin, 'GET', '/users?search=f21-unaudited')).body.total).toBe(0);
    const roles = await api(t, admin, 'GET', '/roles?pageSize=100');
    expect(roles.body.items.map((role: { name: string }) => role.name)).not.toContain('f21-unaudited');
  });
});
