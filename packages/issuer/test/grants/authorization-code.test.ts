/**
 * Authorization code + PKCE + resource indicators, refresh, and their attacks. Catalogue B27–B36.
 * Sign-in runs through the real pages with a cookie-jar agent (the Chromium test covers the browser).
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, authorizeUrl, codeOf, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { BILLING, loadWorld, ORDERS, PASSWORD, REDIRECT, SECRETS } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  const web: { clientId: string; clientSecret: string } = { clientId: 'web-app', clientSecret: SECRETS.web };

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
  });
  afterAll(() => t.close());

  /** Sign alice in for web-app and return the code and its verifier. */
  async function authorize(
    options: {
      scope?: string;
      resource?: string | string[];
      clientId?: string;
      extra?: Record<string, string>;
    } = {},
  ) {
    const { verifier, challenge } = pkce();
    const res = await signIn(new Agent(), {
      baseUrl: t.baseUrl,
      clientId: options.clientId ?? 'web-app',
      redirectUri: REDIRECT,
      scope: options.scope ?? 'openid read:orders',
      resource: options.resource ?? ORDERS,
      identifier: 'alice',
      password: PASSWORD,
      codeChallenge: challenge,
      extra: options.extra,
    });
    expect(res.location, res.text).toMatch(/^http:\/\/127\.0\.0\.1:8976\/callback\?code=/);
    return { code: codeOf(res), verifier };
  }

  function redeem(
    code: string,
    verifier: string,
    extra: Record<string, string> = {},
    credentials: typeof web | null = web,
  ) {
    return tokenRequest(
      t.baseUrl,
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, ...extra },
      credentials ?? undefined,
    );
  }

  const ordersVerifier = () =>
    createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS, strict: true });

  describe('authorization code with PKCE and resource indicators', () => {
    it('issues an at+jwt for the resource with the scopes the roles allow, plus an ID token', async () => {
      const { code, verifier } = await authorize({
        scope: 'openid read:orders write:orders',
        resource: ORDERS,
      });
      const { status, body } = await redeem(code, verifier, { resource: ORDERS });
      expect(status).toBe(200);
      expect(body.scope).toBe('read:orders');
      expect(typeof body.id_token).toBe('string');
      const auth = await ordersVerifier().verify(body.access_token);
      expect(auth.claims).toMatchObject({ aud: ORDERS, client_id: 'web-app', scope: 'read:orders' });
      expect(auth.subject).toMatch(/^usr_/);
    });

    it('without resource at the token endpoint, OpenID scopes give a userinfo token', async () => {
      const { code, verifier } = await authorize({ scope: 'openid profile email read:orders' });
      const { status, body } = await redeem(code, verifier);
      expect(status).toBe(200);
      expect(body.access_token.split('.')).toHaveLength(1);
      const userinfo = await fetch(`${t.baseUrl}/oidc/me`, {
        headers: { authorization: `Bearer ${body.access_token}` },
      });
      expect(userinfo.status).toBe(200);
      expect(await userinfo.json()).toMatchObject({
        preferred_username: 'alice',
        email: 'alice@example.com',
      });
    });

    it('takes several resources at /auth and picks the audience at /token', async () => {
      const { code, verifier } = await authorize({
        scope: 'read:orders read:billing offline_access',
        resource: [ORDERS, BILLING],
        extra: { prompt: 'consent' },
      });
      const first = await redeem(code, verifier, { resource: ORDERS });
      expect(first.status).toBe(200);
      expect((await ordersVerifier().verify(first.body.access_token)).audience).toEqual([ORDERS]);
      const billing = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, resource: BILLING },
        web,
      );
      expect(billing.status).toBe(200);
      const claims = JSON.parse(Buffer.from(billing.body.access_token.split('.')[1], 'base64url').toString());
      expect(claims.aud).toBe(BILLING);
      expect(claims.scope).toBeUndefined();
    });

    it('B11: an unregistered resource at /auth is invalid_target, sent back to the client', async () => {
      const { challenge } = pkce();
      const res = await new Agent().get(
        authorizeUrl({
          baseUrl: t.baseUrl,
          clientId: 'web-app',
          redirectUri: REDIRECT,
          scope: 'openid',
          resource: 'https://nope.example.com',
          codeChallenge: challenge,
        }),
      );
      expect(res.location).toMatch(/^http:\/\/127\.0\.0\.1:8976\/callback\?error=invalid_target/);
    });

    it('offline_access gives a refresh token; a refresh re-evaluates scopes against current roles', async () => {
      const { code, verifier } = await authorize({
        scope: 'openid offline_access read:orders write:orders',
        extra: { prompt: 'consent' },
      });
      const first = await redeem(code, verifier, { resource: ORDERS });
      expect(first.body.scope).toBe('read:orders');
      expect(typeof first.body.refresh_token).toBe('string');

      const alice = (await t.issuer.store.users.findByLogin('alice'))!;
      const reader = (await t.issuer.store.roles.findByName('reader'))!;
      await t.issuer.store.roles.unassign({ userId: alice.id }, reader.id);
      try {
        const refreshed = await tokenRequest(
          t.baseUrl,
          { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, resource: ORDERS },
          web,
        );
        expect(refreshed.status).toBe(200);
        const claims = (await ordersVerifier().verify(refreshed.body.access_token)).claims;
        expect(claims.scope).toBeUndefined();
        expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
      } finally {
        await t.issuer.store.roles.assign({ userId: alice.id }, [reader.id]);
      }
    });

    it('a suspended user cannot refresh', async () => {
      const { code, verifier } = await authorize({
        scope: 'openid offline_access read:orders',
        extra: { prompt: 'consent' },
      });
      const first = await redeem(code, verifier, { resource: ORDERS });
      const alice = (await t.issuer.store.users.findByLogin('alice'))!;
      await t.issuer.store.users.update(alice.id, { suspended: true }, 0);
      try {
        const refreshed = await tokenRequest(
          t.baseUrl,
          { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
          web,
        );
        expect(refreshed.status).toBe(400);
        expect(refreshed.body.error).toBe('invalid_grant');
      } finally {
        await t.issuer.store.users.update(alice.id, { suspended: false }, 0);
      }
    });

    it('a public SPA client redeems with PKCE and no secret', async () => {
      const { code, verifier } = await authorize({ clientId: 'spa-app' });
      const { status, body } = await redeem(code, verifier, { client_id: 'spa-app', resource: ORDERS }, null);
      expect(status).toBe(200);
      await ordersVerifier().verify(body.access_token);
    });

    it('B9: a confidential client redeeming without credentials gets 401 invalid_client', async () => {
      const { code, verifier } = await authorize();
      const { status, body } = await redeem(code, verifier, { client_id: 'web-app' }, null);
      expect(status).toBe(401);
      expect(body.error).toBe('invalid_client');
    });

    it('B27: a replayed code is invalid_grant and revokes the grant (the first refresh token dies)', async () => {
      const { code, verifier } = await authorize({
        scope: 'openid offline_access read:orders',
        extra: { prompt: 'consent' },
      });
      const first = await redeem(code, verifier, { resource: ORDERS });
      expect(first.status).toBe(200);
      const replay = await redeem(code, verifier, { resource: ORDERS });
      expect(replay.status).toBe(400);
      expect(replay.body.error).toBe('invalid_grant');
      const refresh = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
        web,
      );
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
    });

    it('B28: concurrent redemptions of one code: exactly one succeeds', async () => {
      const { code, verifier } = await authorize();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => redeem(code, verifier, { resource: ORDERS })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(9);
    });

    it('B29: a code issued to client A cannot be redeemed by client B', async () => {
      const { code, verifier } = await authorize();
      const { status, body } = await redeem(
        code,
        verifier,
        {},
        { clientId: 'other-app', clientSecret: SECRETS.other },
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_grant');
    });

    it.each([
      ['a trailing slash', `${REDIRECT}/`],
      ['an added query', `${REDIRECT}?x=1`],
      ['different case', REDIRECT.replace('callback', 'Callback')],
      ['another host', 'http://localhost:8976/callback'],
      ['https instead of http', REDIRECT.replace('http:', 'https:')],
    ])('B30: a redirect_uri with %s gets an error page and no redirect', async (_, redirectUri) => {
      const { challenge } = pkce();
      const res = await new Agent().get(
        authorizeUrl({
          baseUrl: t.baseUrl,
          clientId: 'web-app',
          redirectUri,
          scope: 'openid',
          codeChallenge: challenge,
        }),
      );
      expect(res.status).toBe(400);
      expect(res.location).toBeUndefined();
      expect(res.text).toContain('redirect_uri');
    });

    it('B31: a different redirect_uri at /token is invalid_grant', async () => {
      const { code, verifier } = await authorize();
      const { status, body } = await redeem(code, verifier, { redirect_uri: 'http://127.0.0.1:8976/other' });
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_grant');
    });

    it('B32: PKCE is required for confidential clients too; plain is refused', async () => {
      const missing = await new Agent().get(
        authorizeUrl({ baseUrl: t.baseUrl, clientId: 'web-app', redirectUri: REDIRECT, scope: 'openid' }),
      );
      expect(new URL(missing.location!).searchParams.get('error')).toBe('invalid_request');
      const plain = await new Agent().get(
        authorizeUrl({
          baseUrl: t.baseUrl,
          clientId: 'web-app',
          redirectUri: REDIRECT,
          scope: 'openid',
          extra: { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
        }),
      );
      expect(new URL(plain.location!).searchParams.get('error')).toBe('invalid_request');
    });

    it('B33: a wrong verifier is invalid_grant; a malformed one is invalid_request', async () => {
      const { code } = await authorize();
      const wrong = await redeem(code, pkce().verifier);
      expect(wrong.body.error).toBe('invalid_grant');
      for (const bad of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}!`]) {
        const { code: fresh } = await authorize();
        const res = await redeem(fresh, bad);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_request');
      }
    });

    it('B34: a resource at /token that was not authorized is invalid_target', async () => {
      const { code, verifier } = await authorize({ resource: ORDERS });
      const { status, body } = await redeem(code, verifier, { resource: BILLING });
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_target');
    });

    it('B35: an expired code is invalid_grant', async () => {
      const { code, verifier } = await authorize();
      const stored = await t.issuer.store.payloads.find('AuthorizationCode', code, 0);
      const past = Math.floor(Date.now() / 1000) - 10;
      await t.issuer.store.payloads.upsert(
        'AuthorizationCode',
        code,
        { ...stored!.payload, exp: past },
        past,
        {
          grantId: stored!.grantId ?? undefined,
        },
      );
      const { status, body } = await redeem(code, verifier);
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_grant');
    });

    it('B36: a refresh token reused after rotation is invalid_grant and revokes the grant', async () => {
      const { code, verifier } = await authorize({
        scope: 'openid offline_access read:orders',
        extra: { prompt: 'consent' },
      });
      const first = await redeem(code, verifier, { resource: ORDERS });
      const second = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
        web,
      );
      expect(second.status).toBe(200);
      const reuse = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
        web,
      );
      expect(reuse.status).toBe(400);
      expect(reuse.body.error).toBe('invalid_grant');
      const afterRevoke = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: second.body.refresh_token },
        web,
      );
      expect(afterRevoke.body.error).toBe('invalid_grant');
    });

    it('B36: concurrent use of one refresh token: exactly one succeeds', async () => {
      const { code, verifier } = await authorize({
        scope: 'openid offline_access read:orders',
        extra: { prompt: 'consent' },
      });
      const first = await redeem(code, verifier, { resource: ORDERS });
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          tokenRequest(
            t.baseUrl,
            { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
            web,
          ),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    });
  });
});
