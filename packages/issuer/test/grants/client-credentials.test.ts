/**
 * Client credentials for machine-to-machine applications: resource + scope, scopes limited to the
 * application's roles, RFC 9068 JWTs that @gatehouse/core validates. Catalogue B9, B11–B13, B37, B45.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { BILLING, loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  const worker = { clientId: 'worker', clientSecret: SECRETS.worker };

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
  });
  afterAll(() => t.close());

  describe('client credentials', () => {
    it('issues an at+jwt for the resource with the requested granted scopes, valid for @gatehouse/core', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders' },
        worker,
      );
      expect(status).toBe(200);
      expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read:orders', expires_in: 3600 });
      expect(JSON.parse(Buffer.from(body.access_token.split('.')[0], 'base64url').toString())).toMatchObject({
        typ: 'at+jwt',
        alg: 'RS256',
      });
      const verifier = createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS, strict: true });
      const auth = await verifier.verify(body.access_token, { scopes: 'read:orders' });
      expect(auth.claims).toMatchObject({
        iss: `${t.baseUrl}/oidc`,
        aud: ORDERS,
        sub: 'worker',
        client_id: 'worker',
        scope: 'read:orders',
      });
      expect(typeof auth.claims.jti).toBe('string');
      expect(auth.claims.exp! - auth.claims.iat!).toBe(3600);
    });

    it('grants every role scope when no scope is requested', async () => {
      const { body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        worker,
      );
      expect(body.scope.split(' ').sort()).toEqual(['read:orders', 'write:orders']);
    });

    it('B13: issues only the intersection with the roles, and says so in scope', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders admin:orders' },
        worker,
      );
      expect(status).toBe(200);
      expect(body.scope).toBe('read:orders');
    });

    it('B13: an empty intersection is invalid_scope', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS, scope: 'admin:orders' },
        worker,
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_scope');
    });

    it("uses the resource's own access-token TTL", async () => {
      const { body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: BILLING },
        worker,
      );
      expect(body.expires_in).toBe(600);
      expect(body.scope).toBeUndefined();
    });

    it('requires a resource', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', scope: 'read:orders' },
        worker,
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_target');
    });

    it.each([
      ['an unregistered resource', 'https://unknown.example.com'],
      ['a resource with a fragment', `${ORDERS}#x`],
      ['a relative resource', '/orders'],
      ['a prefix-confusable resource', `${ORDERS}.evil`],
    ])('B11/B12: %s is invalid_target', async (_, resource) => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource },
        worker,
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_target');
    });

    it('refuses two resources for one token', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: [ORDERS, BILLING] },
        worker,
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_target');
    });

    it('B37: a wrong secret and an unknown client get the same invalid_client', async () => {
      const wrong = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'worker', clientSecret: 'x'.repeat(43) },
      );
      const unknown = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'nobody', clientSecret: 'x'.repeat(43) },
      );
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.body.error).toBe('invalid_client');
    });

    it('B49: the stored digest is not a usable secret', async () => {
      const app = await t.issuer.store.applications.get('worker');
      expect(app?.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(app?.secretHash).not.toContain(SECRETS.worker);
      const { status } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'worker', clientSecret: app!.secretHash! },
      );
      expect(status).toBe(401);
    });

    it('B9: a confidential client without credentials gets 401 invalid_client; Basic attempts get WWW-Authenticate', async () => {
      const none = await tokenRequest(t.baseUrl, {
        grant_type: 'client_credentials',
        client_id: 'worker',
        resource: ORDERS,
      });
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('invalid_client');
      const basic = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'worker', clientSecret: 'wrong' },
      );
      expect(basic.headers.get('www-authenticate')).toMatch(/^Basic /);
    });

    it('B37: a public client cannot use client credentials', async () => {
      const { status, body } = await tokenRequest(t.baseUrl, {
        grant_type: 'client_credentials',
        client_id: 'spa-app',
        resource: ORDERS,
      });
      expect(status).toBe(400);
      expect(body.error).toBe('unauthorized_client');
    });

    it('B37: an interactive confidential client is not allowed the grant', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'web-app', clientSecret: SECRETS.web },
      );
      expect(status).toBe(400);
      expect(body.error).toBe('unauthorized_client');
    });

    it('B37: client assertions (private_key_jwt) are not accepted', async () => {
      const { status, body } = await tokenRequest(t.baseUrl, {
        grant_type: 'client_credentials',
        resource: ORDERS,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ3b3JrZXIifQ.',
      });
      expect([400, 401]).toContain(status);
      expect(['invalid_client', 'invalid_request']).toContain(body.error);
    });

    it('client_secret_post works where configured', async () => {
      await t.issuer.seed({
        applications: [
          {
            name: 'Post worker',
            type: 'MachineToMachine',
            clientId: 'post-worker',
            clientSecret: SECRETS.post,
            tokenEndpointAuthMethod: 'client_secret_post',
            roles: ['orders-service'],
          },
        ],
      });
      const post = await tokenRequest(t.baseUrl, {
        grant_type: 'client_credentials',
        resource: ORDERS,
        client_id: 'post-worker',
        client_secret: SECRETS.post,
      });
      expect(post.status).toBe(200);
      const wrong = await tokenRequest(t.baseUrl, {
        grant_type: 'client_credentials',
        resource: ORDERS,
        client_id: 'post-worker',
        client_secret: SECRETS.worker,
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
    });

    it('B10: an M2M application not enabled for token exchange gets unauthorized_client', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: 'x',
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        },
        worker,
      );
      expect(status).toBe(400);
      expect(body.error).toBe('unauthorized_client');
    });

    it('B45: a token request over 56 KiB is invalid_request', async () => {
      const { status, body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS, scope: 'x'.repeat(60 * 1024) },
        worker,
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_request');
    });
  });
});
