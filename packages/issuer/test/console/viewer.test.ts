/**
 * A console viewer reads nothing secret (catalogue F22): signed in to the console with the built-in
 * viewer role (every `:read` scope), a user reads every read route of the Management API, and no
 * answer holds an application secret, a personal access token, a subject token, a webhook signing
 * secret, the query string of a webhook URL (where receivers keep their tokens), or a password someone
 * typed into the sign-in page's identifier field. A caller that may change webhooks still sees their
 * URLs whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ROLES } from '../../src/console/bootstrap.js';
import { Agent, signIn } from '../helpers/agent.js';
import { consoleToken } from '../helpers/console-token.js';
import { DRIVERS } from '../helpers/drivers.js';
import { ORDERS, PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

const TYPED_PASSWORD = 'my-Pa55word!-typed-as-a-username';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  const secrets: string[] = [];
  /** Read paths with the ids of what was made, by route template. */
  const reads = new Map<string, string>();

  beforeAll(async () => {
    t = await startIssuer(driver);
    admin = await adminToken(t);
    const roles = (await api(t, admin, 'GET', '/roles?pageSize=100')).body.items;
    const viewerRole = roles.find((role: { name: string }) => role.name === CONSOLE_ROLES.viewer.name);
    const viewer = await api(t, admin, 'POST', '/users', { username: 'f22-viewer', password: PASSWORD });
    await api(t, admin, 'POST', `/users/${viewer.body.id}/roles`, { roleIds: [viewerRole.id] });

    const app = await api(t, admin, 'POST', '/applications', {
      name: 'f22 worker',
      type: 'MachineToMachine',
    });
    const rotated = await api(t, admin, 'POST', `/applications/${app.body.id}/secret`);
    const user = await api(t, admin, 'POST', '/users', { username: 'f22-alice', password: PASSWORD });
    const pat = await api(t, admin, 'POST', `/users/${user.body.id}/personal-access-tokens`, { name: 'ci' });
    const subject = await api(t, admin, 'POST', '/subject-tokens', { userId: user.body.id });
    // A loopback receiver (nothing listens on port 9) subscribed to events this test never makes.
    const hook = await api(t, admin, 'POST', '/webhooks', {
      url: 'http://127.0.0.1:9/gatehouse?token=f22-receiver-token',
      events: ['impersonation.ended'],
    });
    const resource = await api(t, admin, 'POST', '/resources', { name: 'Orders', indicator: ORDERS });
    secrets.push(
      app.body.clientSecret,
      rotated.body.clientSecret,
      pat.body.value,
      subject.body.subjectToken,
      hook.body.secret,
      'f22-receiver-token',
      TYPED_PASSWORD,
      PASSWORD,
    );
    expect(secrets.every((value) => typeof value === 'string' && value.length > 8)).toBe(true);
    // Someone types their password into the identifier field.
    const mistyped = await signIn(new Agent(), {
      baseUrl: t.baseUrl,
      clientId: 'gatehouse-console',
      redirectUri: `${t.baseUrl}/console/callback`,
      scope: 'openid',
      identifier: TYPED_PASSWORD,
      password: 'whatever it was',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    });
    expect(mistyped.status).toBe(401);

    const ids: Record<string, string> = {
      users: user.body.id,
      applications: app.body.id,
      resources: resource.body.id,
      roles: viewerRole.id,
      webhooks: hook.body.id,
    };
    const openapi = (await (await fetch(`${t.baseUrl}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const [template, item] of Object.entries(openapi.paths))
      if ('get' in item) reads.set(template, template.replace('{id}', ids[template.split('/')[1]!]!));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('F22: a console viewer reads every read route, and no answer holds a secret, a token value, a webhook URL query or a typed password', async () => {
    const token = await consoleToken(t, 'f22-viewer', {
      scope: `openid ${CONSOLE_ROLES.viewer.scopes.join(' ')}`,
    });
    expect(reads.size).toBeGreaterThanOrEqual(15);
    for (const [template, path] of reads) {
      const res = await api(t, token, 'GET', path);
      expect(res.status, `${template} → ${path}`).toBe(200);
      const text = JSON.stringify(res.body);
      for (const secret of secrets) expect(text, `${template} holds a secret`).not.toContain(secret);
    }
    const hooks = await api(t, token, 'GET', '/webhooks');
    expect(hooks.body.items[0].url).toBe('http://127.0.0.1:9/gatehouse?…');
    const failed = await api(t, token, 'GET', '/audit-events?type=sign_in.failed');
    expect(failed.body.items[0].details.identifier).toBeNull();
  });

  it('F22: a caller that may change webhooks sees their URLs whole', async () => {
    const hooks = await api(t, admin, 'GET', '/webhooks');
    expect(hooks.body.items[0].url).toBe('http://127.0.0.1:9/gatehouse?token=f22-receiver-token');
  });
});
