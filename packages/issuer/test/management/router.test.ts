/**
 * Management API guard and request handling: @gatehouse/core verification, M2M-only, scopes, act,
 * strict schemas, size limits, injection-shaped ids. Catalogue B15 (act), B39–B45.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, codeOf, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, ORDERS, PASSWORD, REDIRECT, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, clientCredentials, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf, signRs256, strangerKey } from '../helpers/jwt.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let activeJwk: Record<string, unknown>;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    admin = await adminToken(t);
    activeJwk = (await t.issuer.store.keys.list()).find((key) => key.status === 'active')!.privateJwk;
  });
  afterAll(() => t.close());

  /** Claims of a valid admin token, to tamper with. */
  const claims = () => payloadOf(admin);

  describe('authentication (B39–B42)', () => {
    it('accepts the bootstrap administrator token', async () => {
      const res = await api(t, admin, 'GET', '/users');
      expect(res.status).toBe(200);
    });

    it('no token → 401 with a bare Bearer challenge', async () => {
      const res = await api(t, undefined, 'GET', '/users');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="gatehouse-management", DPoP realm="gatehouse-management", algs="ES256 EdDSA RS256 PS256"',
      );
      expect(res.body).toEqual({ code: 'unauthorized', message: expect.any(String) });
    });

    it.each([
      ['another audience', () => ({ ...claims(), aud: ORDERS })],
      ['another issuer', () => ({ ...claims(), iss: 'https://evil.example.com/oidc' })],
      ['an expired token', () => ({ ...claims(), iat: 1_000, exp: 2_000 })],
    ])('B39: %s → 401 invalid_token', async (_, make) => {
      const res = await api(t, signRs256(activeJwk, make()), 'GET', '/users');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(res.body.code).toBe('invalid_token');
    });

    it('B39: a forged signature and alg:none → 401', async () => {
      expect(
        (await api(t, signRs256(strangerKey(), claims(), { kid: activeJwk.kid }), 'GET', '/users')).status,
      ).toBe(401);
      const none = `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url')}.${admin.split('.')[1]}.`;
      expect((await api(t, none, 'GET', '/users')).status).toBe(401);
    });

    it('B39: a token for another API issued by this issuer → 401', async () => {
      const other = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'worker', clientSecret: SECRETS.worker },
      );
      expect((await api(t, other.body.access_token, 'GET', '/users')).status).toBe(401);
      // The issuer's log says why, once, naming the audiences (#29 item 9), never the token.
      const warnings = t.logs.lines.filter((line) => line.includes('"event":"management.token_warning"'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(ORDERS);
      expect(warnings[0]).toContain(`${t.baseUrl}/api`);
      expect(t.logs.text).not.toContain(String(other.body.access_token));
    });

    it('B42: an opaque (userinfo) token used as the bearer → 401', async () => {
      const { verifier, challenge } = pkce();
      const res = await signIn(new Agent(), {
        baseUrl: t.baseUrl,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'openid',
        identifier: 'alice',
        password: PASSWORD,
        codeChallenge: challenge,
      });
      const tokens = await tokenRequest(
        t.baseUrl,
        {
          grant_type: 'authorization_code',
          code: codeOf(res),
          code_verifier: verifier,
          redirect_uri: REDIRECT,
        },
        { clientId: 'web-app', clientSecret: SECRETS.web },
      );
      expect(tokens.body.access_token.split('.')).toHaveLength(1);
      const denied = await api(t, tokens.body.access_token, 'GET', '/users');
      expect(denied.status).toBe(401);
      expect(denied.body.code).toBe('invalid_token');
    });

    it('B41: a development bypass header is ignored', async () => {
      const res = await api(t, undefined, 'GET', '/users', undefined, {
        'development-user-id': 'admin',
        'x-user-id': 'admin',
      });
      expect(res.status).toBe(401);
    });

    it('B40: an M2M token without the route scope → 403 insufficient_scope', async () => {
      const resources = await api(t, admin, 'GET', '/resources');
      const management = resources.body.items.find((r: { system: boolean }) => r.system);
      const scopes = await api(t, admin, 'GET', `/resources/${management.id}/scopes`);
      const usersRead = scopes.body.items.find((s: { name: string }) => s.name === 'users:read');
      const role = await api(t, admin, 'POST', '/roles', {
        name: 'user-reader-m2m',
        type: 'MachineToMachine',
      });
      await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: [usersRead.id] });
      const app = await api(t, admin, 'POST', '/applications', { name: 'Reader', type: 'MachineToMachine' });
      await api(t, admin, 'POST', `/applications/${app.body.id}/roles`, { roleIds: [role.body.id] });
      const issued = await clientCredentials(t.baseUrl, app.body.clientId, app.body.clientSecret, {
        resource: `${t.baseUrl}/api`,
      });
      expect(issued.body.scope).toBe('users:read');
      const readOnly = String(issued.body.access_token);
      expect((await api(t, readOnly, 'GET', '/users')).status).toBe(200);
      const res = await api(t, readOnly, 'POST', '/users', { username: 'nobody' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.headers.get('www-authenticate')).toContain('scope="all users:write"');
      expect((await api(t, readOnly, 'GET', '/applications')).status).toBe(403);
    });

    it('B40: a user token for the Management API → 403 access_denied', async () => {
      // Give alice a user role holding a Management API scope, then sign in for the /api resource.
      const resources = await api(t, admin, 'GET', '/resources');
      const management = resources.body.items.find((r: { system: boolean }) => r.system);
      const scopes = await api(t, admin, 'GET', `/resources/${management.id}/scopes`);
      const all = scopes.body.items.find((s: { name: string }) => s.name === 'all');
      const role = await api(t, admin, 'POST', '/roles', { name: 'user-admin', type: 'User' });
      await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: [all.id] });
      const alice = (await t.issuer.store.users.findByLogin('alice'))!;
      await api(t, admin, 'POST', `/users/${alice.id}/roles`, { roleIds: [role.body.id] });

      const { verifier, challenge } = pkce();
      const res = await signIn(new Agent(), {
        baseUrl: t.baseUrl,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'all',
        resource: `${t.baseUrl}/api`,
        identifier: 'alice',
        password: PASSWORD,
        codeChallenge: challenge,
      });
      const tokens = await tokenRequest(
        t.baseUrl,
        {
          grant_type: 'authorization_code',
          code: codeOf(res),
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          resource: `${t.baseUrl}/api`,
        },
        { clientId: 'web-app', clientSecret: SECRETS.web },
      );
      expect(payloadOf(tokens.body.access_token)).toMatchObject({ aud: `${t.baseUrl}/api`, scope: 'all' });
      const denied = await api(t, tokens.body.access_token, 'GET', '/users');
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('access_denied');
    });

    it('B15: a token carrying act (impersonation) → 403', async () => {
      const delegated = signRs256(activeJwk, { ...claims(), act: { sub: 'usr_someone' } });
      const res = await api(t, delegated, 'GET', '/users');
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('access_denied');
    });

    it('a deleted M2M application loses access at once', async () => {
      const created = await api(t, admin, 'POST', '/applications', {
        name: 'Temp admin',
        type: 'MachineToMachine',
      });
      const roles = await api(t, admin, 'GET', '/roles?pageSize=100');
      const adminRole = roles.body.items.find(
        (r: { system: boolean; type: string }) => r.system && r.type === 'MachineToMachine',
      );
      await api(t, admin, 'POST', `/applications/${created.body.id}/roles`, { roleIds: [adminRole.id] });
      const token = await clientCredentials(t.baseUrl, created.body.clientId, created.body.clientSecret, {
        resource: `${t.baseUrl}/api`,
      });
      expect((await api(t, String(token.body.access_token), 'GET', '/users')).status).toBe(200);
      expect((await api(t, admin, 'DELETE', `/applications/${created.body.id}`)).status).toBe(204);
      expect((await api(t, String(token.body.access_token), 'GET', '/users')).status).toBe(403);
    });
  });

  describe('request validation (B43–B45)', () => {
    it.each([
      ['id', { username: 'mass1', id: 'usr_chosen' }],
      ['createdAt', { username: 'mass2', createdAt: '2020-01-01T00:00:00Z' }],
      ['isAdmin', { username: 'mass3', isAdmin: true }],
      ['passwordHash', { username: 'mass4', passwordHash: 'scrypt$1$x$y' }],
    ])('B43: a body carrying %s → 400 and nothing is created', async (field, body) => {
      const res = await api(t, admin, 'POST', '/users', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(JSON.stringify(res.body.issues)).toContain(field);
      expect(await t.issuer.store.users.findByLogin(body.username)).toBeUndefined();
    });

    it('B43: an application body cannot choose its client id or secret', async () => {
      const res = await api(t, admin, 'POST', '/applications', {
        name: 'x',
        type: 'MachineToMachine',
        clientId: 'chosen',
        clientSecret: 'y'.repeat(40),
      });
      expect(res.status).toBe(400);
    });

    it.each(["' OR 1=1--", '%00', 'a'.repeat(10_000), '..%2F..%2Fetc%2Fpasswd', '%E0%A4%A'])(
      'B44: id %s → 404/400 without a stack trace',
      async (id) => {
        const res = await api(
          t,
          admin,
          'GET',
          `/users/${id.length > 100 ? id : id.replace(/'/g, '%27').replace(/ /g, '%20')}`,
        );
        expect([400, 404]).toContain(res.status);
        expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts|sqlite|SELECT/i);
      },
    );

    it('B45: a body over the limit → 413', async () => {
      const res = await api(
        t,
        admin,
        'POST',
        '/users',
        JSON.stringify({ username: 'big', customData: { x: 'y'.repeat(1_048_576) } }),
      );
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('payload_too_large');
    });

    it('B45: JSON nested 10,000 deep → 400 before parsing', async () => {
      const res = await api(
        t,
        admin,
        'POST',
        '/users',
        `{"username":"deep","customData":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
      );
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('nesting');
    });

    it('B45: customData over 4 KB → 400', async () => {
      const res = await api(t, admin, 'POST', '/users', {
        username: 'fat',
        customData: { x: 'y'.repeat(5_000) },
      });
      expect(res.status).toBe(400);
    });

    it('malformed JSON, a wrong content type and unknown query parameters → 400/415', async () => {
      expect((await api(t, admin, 'POST', '/users', '{"username":')).status).toBe(400);
      expect(
        (
          await api(t, admin, 'POST', '/users', 'username=x', {
            'content-type': 'application/x-www-form-urlencoded',
          })
        ).status,
      ).toBe(415);
      expect((await api(t, admin, 'GET', '/users?page=1&sort=name')).status).toBe(400);
      expect((await api(t, admin, 'GET', '/users?page=0')).status).toBe(400);
      expect((await api(t, admin, 'GET', '/users?pageSize=1000')).status).toBe(400);
    });

    it('unknown routes → 404, wrong methods → 405 with Allow', async () => {
      expect((await api(t, admin, 'GET', '/nothing')).status).toBe(404);
      const res = await api(t, admin, 'PUT', '/users');
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST');
    });

    it('errors never echo submitted values', async () => {
      const res = await api(t, admin, 'POST', '/users', { username: '<script>secret-value</script>' });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).not.toContain('secret-value');
    });
  });

  describe('OpenAPI document', () => {
    it('is served without authentication and describes every route', async () => {
      const res = await fetch(`${t.baseUrl}/api/openapi.json`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as any;
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.servers[0].url).toBe(`${t.baseUrl}/api`);
      expect(doc.paths['/users'].post.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/CreateUser',
      });
      expect(doc.components.schemas.CreateUser.additionalProperties).toBe(false);
      expect(doc.paths['/users/{id}'].delete.responses['204']).toBeDefined();
      expect(doc.paths['/signing-keys/rotate'].post.security).toEqual([{ bearer: ['all', 'keys:write'] }]);
      expect(doc.components.securitySchemes.bearer.flows.clientCredentials.tokenUrl).toBe(
        `${t.baseUrl}/oidc/token`,
      );
      expect(Object.keys(doc.paths).length).toBeGreaterThanOrEqual(15);
    });
  });
});
