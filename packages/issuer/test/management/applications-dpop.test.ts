/**
 * The per-application DPoP requirement (`dpopBoundAccessTokens`, RFC 9449 §5.2 `dpop_bound_access_tokens`):
 * set through the Management API (and seeding), shown in its OpenAPI document, and enforced at the
 * token endpoint for every grant (catalogue D24), on both drivers.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../helpers/agent.js';
import { dpopClient, dpopKey, dpopSignIn } from '../helpers/dpop.js';
import { DRIVERS } from '../helpers/drivers.js';
import { ACCESS_TOKEN_TYPE, mintSubjectToken, TOKEN_EXCHANGE, userId } from '../helpers/exchange.js';
import { loadWorld, ORDERS, REDIRECT } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';

const PROOF_MISSING = { error: 'invalid_request', error_description: 'DPoP proof JWT not provided' };

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    admin = await adminToken(t);
  });
  afterAll(() => t.close());

  describe('Management API', () => {
    it('creates, shows and changes dpopBoundAccessTokens (default false); a non-boolean is a 400', async () => {
      const plain = await api(t, admin, 'POST', '/applications', {
        name: 'Plain SPA',
        type: 'SPA',
        redirectUris: [REDIRECT],
      });
      expect(plain.status).toBe(201);
      expect(plain.body.dpopBoundAccessTokens).toBe(false);

      const bound = await api(t, admin, 'POST', '/applications', {
        name: 'Bound SPA',
        type: 'SPA',
        redirectUris: [REDIRECT],
        dpopBoundAccessTokens: true,
      });
      expect(bound.status).toBe(201);
      expect(bound.body.dpopBoundAccessTokens).toBe(true);
      expect((await api(t, admin, 'GET', `/applications/${bound.body.id}`)).body.dpopBoundAccessTokens).toBe(
        true,
      );

      const patched = await api(t, admin, 'PATCH', `/applications/${plain.body.id}`, {
        dpopBoundAccessTokens: true,
      });
      expect(patched.status).toBe(200);
      expect(patched.body.dpopBoundAccessTokens).toBe(true);
      expect((await t.issuer.store.applications.get(plain.body.id))!.dpopBoundAccessTokens).toBe(true);
      const off = await api(t, admin, 'PATCH', `/applications/${plain.body.id}`, {
        dpopBoundAccessTokens: false,
      });
      expect(off.body.dpopBoundAccessTokens).toBe(false);

      const bad = await api(t, admin, 'POST', '/applications', {
        name: 'Bad',
        type: 'SPA',
        redirectUris: [REDIRECT],
        dpopBoundAccessTokens: 'yes',
      });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('dpopBoundAccessTokens');
    });

    it('is described in the OpenAPI document', async () => {
      const doc = (await api(t, admin, 'GET', '/openapi.json')).body;
      const schemas = doc.components.schemas;
      for (const name of ['Application', 'CreateApplication', 'UpdateApplication'])
        expect(schemas[name].properties.dpopBoundAccessTokens.type, name).toBe('boolean');
      expect(schemas.CreateApplication.properties.dpopBoundAccessTokens.description).toContain(
        'invalid_request',
      );
    });
  });

  describe('enforcement at the token endpoint (D24)', () => {
    beforeAll(async () => {
      await t.issuer.seed({
        applications: [
          {
            name: 'DPoP SPA',
            type: 'SPA',
            clientId: 'dpop-spa',
            redirectUris: [REDIRECT],
            dpopBoundAccessTokens: true,
          },
          {
            name: 'DPoP worker',
            type: 'MachineToMachine',
            clientId: 'dpop-worker',
            clientSecret: 'dpop-worker-secret-0123456789abcdefghij',
            roles: ['orders-service'],
            dpopBoundAccessTokens: true,
          },
          {
            name: 'DPoP console',
            type: 'Traditional',
            clientId: 'dpop-console',
            clientSecret: 'dpop-console-secret-0123456789abcdefghi',
            redirectUris: [REDIRECT],
            tokenExchangeEnabled: true,
            dpopBoundAccessTokens: true,
          },
        ],
      });
    });

    it('D24: an application requiring DPoP that redeems a code without a proof gets invalid_request', async () => {
      const spa = await dpopClient(t.baseUrl, 'dpop-spa');
      const refused = await dpopSignIn(spa, {
        baseUrl: t.baseUrl,
        username: 'alice',
        scope: 'openid read:orders',
        resource: ORDERS,
      }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(oidc.ResponseBodyError);
      expect(refused).toMatchObject({
        error: PROOF_MISSING.error,
        error_description: PROOF_MISSING.error_description,
      });

      // With a proof: a bound token, and a bound refresh token that needs a proof too.
      const key = await dpopKey(spa);
      const tokens = await dpopSignIn(spa, {
        baseUrl: t.baseUrl,
        username: 'alice',
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
        handle: key.handle,
      });
      expect(payloadOf(tokens.access_token).cnf).toEqual({ jkt: key.jkt });
      const refresh = await tokenRequest(t.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: 'dpop-spa',
      });
      expect(refresh.status).toBe(400);
      expect(refresh.body).toEqual(PROOF_MISSING);
      const refreshed = await oidc.refreshTokenGrant(spa.config, tokens.refresh_token!, undefined, {
        DPoP: key.handle,
      });
      expect(refreshed.token_type).toBe('dpop');
    });

    it('D24: client credentials without a proof → invalid_request; with one → a bound token', async () => {
      const credentials = {
        clientId: 'dpop-worker',
        clientSecret: 'dpop-worker-secret-0123456789abcdefghij',
      };
      const refused = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        credentials,
      );
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(PROOF_MISSING);
      const worker = await dpopClient(t.baseUrl, credentials.clientId, credentials.clientSecret);
      const key = await dpopKey(worker);
      const tokens = await oidc.clientCredentialsGrant(
        worker.config,
        { resource: ORDERS },
        { DPoP: key.handle },
      );
      expect(payloadOf(tokens.access_token).cnf).toEqual({ jkt: key.jkt });
    });

    it('D24/D25: token exchange by an application requiring DPoP: without a proof invalid_request (subject token kept)', async () => {
      const secret = 'dpop-console-secret-0123456789abcdefghi';
      const subjectToken = await mintSubjectToken(t, admin, { userId: await userId(t, 'alice') });
      const params = { subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, resource: ORDERS };
      const refused = await tokenRequest(
        t.baseUrl,
        { grant_type: TOKEN_EXCHANGE, ...params },
        { clientId: 'dpop-console', clientSecret: secret },
      );
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(PROOF_MISSING);
      const console_ = await dpopClient(t.baseUrl, 'dpop-console', secret);
      const key = await dpopKey(console_);
      const result = await oidc.genericGrantRequest(console_.config, TOKEN_EXCHANGE, params, {
        DPoP: key.handle,
      });
      expect(result.token_type).toBe('dpop');
      expect(payloadOf(result.access_token).cnf).toEqual({ jkt: key.jkt });
      const audit = await api(t, admin, 'GET', '/audit-events?type=token_exchange.failed');
      expect(JSON.stringify(audit.body)).toContain('dpop_required');
    });
  });
});
