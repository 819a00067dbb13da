/**
 * getCustomJwtClaims end to end over HTTP: context contents, every JWT grant, reserved claims (B22,
 * B23), hangs and crashes with the default fail-closed policy and with issue-without-claims (B24, B25),
 * prototype pollution and environment isolation (B26), denyAccess, audit reasons.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createIssuer, DEFAULTS } from '../../src/index.js';
import { Agent, codeOf, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  signedInTokens,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, PASSWORD, REDIRECT, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';
import { writeClaimsModules } from './fixtures.js';

describe.each(DRIVERS)('%s', (driver) => {
  const paths = writeClaimsModules();
  // Long enough that the other requests of B24 finish well inside it on a loaded machine.
  const TIMEOUT = 1_500;
  const STANDARD = ['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub'];
  const FAILED_BODY = {
    error: 'server_error',
    error_description: 'the custom claims function failed; no token was issued',
  };

  let t: TestIssuer;
  let admin: string;
  let alice: string;
  let sam: string;

  async function world(issuer: TestIssuer) {
    await loadWorld(issuer);
    await loadExchangeWorld(issuer);
  }

  beforeAll(async () => {
    process.env.GATEHOUSE_TEST_SECRET = 'process-env-secret-value-42';
    t = await startIssuer(driver, {
      customJwtClaims: {
        module: paths.module,
        environmentVariables: { TENANT: 'acme' },
        timeout: TIMEOUT,
        memoryLimit: 32,
        workers: 2,
      },
    });
    await world(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
    sam = await userId(t, 'sam');
  });
  afterAll(async () => {
    delete process.env.GATEHOUSE_TEST_SECRET;
    await t.close();
  });

  /** Exchange a fresh subject token for alice whose context selects the function's behaviour. */
  async function exchangeWith(
    issuer: TestIssuer,
    token: string,
    mode: string,
    extra: Record<string, string> = {},
  ) {
    const subjectToken = await mintSubjectToken(issuer, token, {
      userId: await userId(issuer, 'alice'),
      context: { mode, ticketId: 'T-7' },
    });
    return exchange(issuer, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
      ...extra,
    });
  }

  describe('getCustomJwtClaims (fail closed)', () => {
    it('token exchange: the context holds the user with roles, the application and the grant with its context', async () => {
      const actorToken = (await signedInTokens(t, 'sam')).access_token;
      const res = await exchangeWith(t, admin, 'ok', {
        actor_token: actorToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
      });
      expect(res.status).toBe(200);
      const auth = await createVerifier({
        issuer: `${t.baseUrl}/oidc`,
        audience: ORDERS,
        strict: true,
      }).verify(res.body.access_token);
      expect(auth.claims).toMatchObject({
        sub: alice,
        act: { sub: sam },
        tenant: 'acme',
        grantType: 'urn:ietf:params:oauth:grant-type:token-exchange',
        ticket: 'T-7',
        user: {
          id: alice,
          roles: ['reader'],
          keys: ['createdAt', 'customData', 'email', 'id', 'roles', 'suspended', 'updatedAt', 'username'],
        },
        app: {
          id: 'te-web',
          keys: ['customData', 'firstParty', 'id', 'name', 'tokenExchangeEnabled', 'type'],
        },
        seen: { sub: alice, act: { sub: sam }, aud: ORDERS, scope: 'read:orders' },
      });
    });

    it('authorization code and refresh (JWT for a resource) get custom claims too', async () => {
      const { verifier, challenge } = pkce();
      const res = await signIn(new Agent(), {
        baseUrl: t.baseUrl,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
        identifier: 'alice',
        password: PASSWORD,
        codeChallenge: challenge,
        extra: { prompt: 'consent' },
      });
      const web = { clientId: 'web-app', clientSecret: SECRETS.web };
      const tokens = await tokenRequest(
        t.baseUrl,
        {
          grant_type: 'authorization_code',
          code: codeOf(res),
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          resource: ORDERS,
        },
        web,
      );
      expect(tokens.status).toBe(200);
      expect(payloadOf(tokens.body.access_token)).toMatchObject({
        tenant: 'acme',
        grantType: 'authorization_code',
        user: { id: alice },
      });
      const refreshed = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, resource: ORDERS },
        web,
      );
      expect(payloadOf(refreshed.body.access_token)).toMatchObject({
        tenant: 'acme',
        grantType: 'refresh_token',
      });
      // The ID token is not an access token: untouched.
      expect(payloadOf(tokens.body.id_token).tenant).toBeUndefined();
    });

    it('client credentials: user is null', async () => {
      const res = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'worker', clientSecret: SECRETS.worker },
      );
      expect(payloadOf(res.body.access_token)).toMatchObject({
        tenant: 'acme',
        grantType: 'client_credentials',
        user: null,
        app: { id: 'worker' },
      });
    });

    it('{} adds nothing', async () => {
      const res = await exchangeWith(t, admin, 'empty');
      expect(Object.keys(payloadOf(res.body.access_token)).sort()).toEqual(STANDARD);
    });

    it('B22/B23: reserved claims are never overridden or added', async () => {
      const res = await exchangeWith(t, admin, 'reserved');
      const claims = payloadOf(res.body.access_token);
      expect(Object.keys(claims).sort()).toEqual([...STANDARD, 'kept'].sort());
      expect(claims).toMatchObject({
        sub: alice,
        aud: ORDERS,
        client_id: 'te-web',
        scope: 'read:orders',
        kept: true,
      });
      expect(claims.iss).toBe(`${t.baseUrl}/oidc`);
      // The issuer's lifetime for impersonation tokens, whatever the module returned for exp/iat.
      expect(claims.exp - claims.iat).toBe(DEFAULTS.impersonation.tokenTtl);
      const actorToken = (await signedInTokens(t, 'sam')).access_token;
      const acted = await exchangeWith(t, admin, 'reserved', {
        actor_token: actorToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
      });
      expect(payloadOf(acted.body.access_token).act).toEqual({ sub: sam });
    });

    it('B26: {"__proto__":…} pollutes nothing; constructor/prototype keys are dropped', async () => {
      const res = await exchangeWith(t, admin, 'proto');
      expect(res.status).toBe(200);
      const raw = Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString();
      expect(raw).not.toContain('__proto__');
      expect(raw).not.toContain('admin');
      const claims = payloadOf(res.body.access_token);
      expect(claims.ok).toBe(1);
      expect(claims.nested).toEqual({ y: 2 });
      expect(Object.hasOwn(claims, 'constructor')).toBe(false);
      expect(Object.hasOwn(claims, 'prototype')).toBe(false);
      expect(({} as { admin?: unknown }).admin).toBeUndefined();
      const literal = await exchangeWith(t, admin, 'proto-literal');
      expect(payloadOf(literal.body.access_token).ok).toBe(2);
      expect(({} as { admin?: unknown }).admin).toBeUndefined();
    });

    it('B26: process.env is unreachable; environmentVariables are given', async () => {
      const res = await exchangeWith(t, admin, 'env');
      expect(payloadOf(res.body.access_token)).toMatchObject({ envKeys: [], secret: null, tenant: 'acme' });
    });

    it('api.denyAccess → 400 access_denied with the (sanitized) message; audited', async () => {
      const res = await exchangeWith(t, admin, 'deny');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'access_denied', error_description: 'ticket T-1 is closed' });
      const events = await api(t, admin, 'GET', '/audit-events?type=token_exchange.failed');
      expect(events.body.items[0].reason).toBe('custom_claims_denied');
    });

    it('B24: a hang → 500 server_error by the deadline + 1 s, while other requests are served', async () => {
      const started = performance.now();
      const hung = exchangeWith(t, admin, 'hang');
      let settled = false;
      void hung.finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [health, discovery, m2m] = await Promise.all([
        fetch(`${t.baseUrl}/health`),
        fetch(`${t.baseUrl}/oidc/.well-known/openid-configuration`),
        tokenRequest(
          t.baseUrl,
          { grant_type: 'client_credentials', resource: ORDERS },
          { clientId: 'worker', clientSecret: SECRETS.worker },
        ),
      ]);
      expect([health.status, discovery.status, m2m.status]).toEqual([200, 200, 200]);
      expect(payloadOf(m2m.body.access_token).tenant).toBe('acme');
      // Served while the hung call still waits for its deadline, not after it.
      expect(settled).toBe(false);
      const res = await hung;
      const elapsed = performance.now() - started;
      expect(res.status).toBe(500);
      expect(res.body).toEqual(FAILED_BODY);
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT);
      expect(elapsed).toBeLessThan(TIMEOUT + 1_000);
      const events = await api(t, admin, 'GET', '/audit-events?type=token_exchange.failed');
      expect(events.body.items[0].reason).toBe('custom_claims_failed');
    });

    it.each(['throw', 'string', 'null', 'cycle', 'bigint', 'large', 'exit', 'async-crash', 'oom'])(
      'B25: %s → 500 with a fixed body; nothing of the function reaches the response or the logs',
      async (mode) => {
        const res = await exchangeWith(t, admin, mode);
        expect(res.status).toBe(500);
        expect(res.body).toEqual(FAILED_BODY);
        expect(t.logs.text).not.toContain('secret-stack');
        expect(t.logs.text).not.toContain('boom-acme');
        expect(t.logs.text).not.toContain('process-env-secret-value-42');
        expect(t.logs.text).toContain('"event":"custom_claims.failed"');
      },
    );

    it('a failure after consumption burns the subject token', async () => {
      const subjectToken = await mintSubjectToken(t, admin, { userId: alice, context: { mode: 'throw' } });
      const params = { subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, resource: ORDERS };
      expect((await exchange(t, params)).status).toBe(500);
      expect((await exchange(t, params)).body.error_description).toBe(
        'the subject token has already been used',
      );
    });

    it('a module without getCustomJwtClaims stops createIssuer with a ConfigError', async () => {
      await expect(
        createIssuer({
          baseUrl: 'http://127.0.0.1:1',
          database: await freshDatabase(driver),
          log: { level: 'silent' },
          customJwtClaims: { module: paths.noExport },
        }),
      ).rejects.toThrow(ConfigError);
    });
  });

  describe('getCustomJwtClaims (issue-without-claims)', () => {
    let lenient: TestIssuer;
    let lenientAdmin: string;
    beforeAll(async () => {
      lenient = await startIssuer(driver, {
        customJwtClaims: {
          module: paths.module,
          environmentVariables: { TENANT: 'acme' },
          timeout: 300,
          onError: 'issue-without-claims',
          workers: 1,
        },
      });
      await world(lenient);
      lenientAdmin = await adminToken(lenient);
    });
    afterAll(() => lenient.close());

    it.each(['throw', 'hang', 'cycle'])('%s → the token is issued without custom claims', async (mode) => {
      const res = await exchangeWith(lenient, lenientAdmin, mode);
      expect(res.status).toBe(200);
      expect(Object.keys(payloadOf(res.body.access_token)).sort()).toEqual(STANDARD);
    });

    it('denyAccess still refuses the token', async () => {
      const res = await exchangeWith(lenient, lenientAdmin, 'deny');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('access_denied');
    });
  });
});
