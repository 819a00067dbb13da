/**
 * The issuer's introspection (RFC 7662) and revocation (RFC 7009) as API teams use them, end to end
 * with @gatehouse/core: opaque resource tokens (`accessTokenFormat: 'opaque'`) introspected by an API,
 * a revoked token refused at once in `always` mode (E13), what a JWT-validating API does instead, and
 * who may introspect (E14).
 */
import { createHash } from 'node:crypto';
import { createVerifier, IntrospectionUnavailableError, InvalidTokenError } from '@gatehouse/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tokenRequest } from '../helpers/agent.js';
import { dpopClient, dpopSignIn, manualKey, manualProof, postWithProof } from '../helpers/dpop.js';
import { DRIVERS } from '../helpers/drivers.js';
import { signedInTokens, userId } from '../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

const API_SECRET = 'orders-api-secret-0123456789abcdefghijklmn';
const worker = { clientId: 'worker', clientSecret: SECRETS.worker };

const basic = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${clientId}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** POST a form to an endpoint of the issuer, with HTTP Basic when `auth` is given. */
async function post(
  t: TestIssuer,
  path: string,
  form: Record<string, string>,
  auth?: [clientId: string, secret: string],
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.baseUrl}/oidc/${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth === undefined ? {} : { authorization: basic(...auth) }),
    },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

async function workerToken(t: TestIssuer): Promise<string> {
  const { status, body } = await tokenRequest(
    t.baseUrl,
    { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders' },
    worker,
  );
  expect(status).toBe(200);
  return body.access_token as string;
}

/** An API of ORDERS that introspects with its own confidential client. */
const introspectingApi = (t: TestIssuer, mode: 'always' | 'opaque', cacheMaxAge?: number) =>
  createVerifier({
    issuer: `${t.baseUrl}/oidc`,
    audience: ORDERS,
    onWarning: false,
    introspection: {
      clientId: 'orders-api',
      clientSecret: API_SECRET,
      mode,
      ...(cacheMaxAge === undefined ? {} : { cacheMaxAge }),
    },
  });

async function startWorld(driver: (typeof DRIVERS)[number], format?: 'opaque'): Promise<TestIssuer> {
  const t = await startIssuer(driver, format === undefined ? {} : { accessTokenFormat: format });
  await loadWorld(t);
  await t.issuer.seed({
    applications: [
      { name: 'Orders API', type: 'MachineToMachine', clientId: 'orders-api', clientSecret: API_SECRET },
    ],
  });
  return t;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(DRIVERS)('%s', (driver) => {
  describe("accessTokenFormat: 'opaque'", () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startWorld(driver, 'opaque');
    });
    afterAll(() => t.close());

    it('E5: an opaque resource token of a signed-in user, introspected by the API, gives its AuthInfo', async () => {
      const token = (await signedInTokens(t, 'alice', 'read:orders', ORDERS)).access_token as string;
      expect(token.split('.')).toHaveLength(1);
      const info = await introspectingApi(t, 'opaque').verify(token, { scopes: 'read:orders' });
      expect(info).toMatchObject({
        subject: await userId(t, 'alice'),
        clientId: 'web-app',
        issuer: `${t.baseUrl}/oidc`,
        audience: [ORDERS],
        scopes: ['read:orders'],
        delegated: false,
        confirmation: undefined,
      });
      expect(info.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
      // A client-credentials token is introspected without `sub` (oidc-provider names no account).
      const m2m = await introspectingApi(t, 'opaque').verify(await workerToken(t));
      expect(m2m).toMatchObject({ subject: undefined, clientId: 'worker', scopes: ['read:orders'] });
      // An API of another resource refuses it: the same aud check as for a JWT.
      const billing = createVerifier({
        issuer: `${t.baseUrl}/oidc`,
        audience: 'https://billing.example.com/api',
        onWarning: false,
        introspection: { clientId: 'orders-api', clientSecret: API_SECRET },
      });
      await expect(billing.verify(token)).rejects.toMatchObject({ reason: 'audience' });
    });

    it("E13: a token revoked at the issuer is refused at once in 'always' mode; a caching API within cacheMaxAge", async () => {
      const token = await workerToken(t);
      const always = introspectingApi(t, 'always');
      const cached = introspectingApi(t, 'opaque', 60_000);
      await expect(always.verify(token)).resolves.toMatchObject({ clientId: 'worker' });
      await expect(cached.verify(token)).resolves.toMatchObject({ clientId: 'worker' });

      // Another client cannot revoke it.
      const stranger = await post(t, 'token/revocation', { token }, ['other-app', SECRETS.other]);
      expect(stranger.status).toBeLessThan(500);
      await expect(always.verify(token)).resolves.toMatchObject({ clientId: 'worker' });

      const revoked = await post(t, 'token/revocation', { token, token_type_hint: 'access_token' }, [
        worker.clientId,
        worker.clientSecret,
      ]);
      expect(revoked.status).toBe(200);

      const refused = await always.verify(token).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InvalidTokenError);
      expect(refused).toMatchObject({ status: 401, code: 'invalid_token', reason: 'inactive' });
      // The caching API answers from its cache until cacheMaxAge has passed, then refuses too.
      await expect(cached.verify(token)).resolves.toMatchObject({ clientId: 'worker' });
      const start = Date.now();
      vi.spyOn(Date, 'now').mockImplementation(() => start + 61_000);
      await expect(cached.verify(token)).rejects.toMatchObject({ reason: 'inactive' });
    });

    it('E14: a wrong or unknown secret → 401 invalid_client, with none of the token claims', async () => {
      const token = await workerToken(t);
      for (const auth of [
        ['orders-api', 'wrong-secret-0123456789abcdefghijklmnopq'],
        ['nobody', API_SECRET],
      ] as Array<[string, string]>) {
        const { status, body } = await post(t, 'token/introspection', { token }, auth);
        expect(status).toBe(401);
        expect(body.error).toBe('invalid_client');
        expect(body).not.toHaveProperty('sub');
        expect(body).not.toHaveProperty('active');
      }
      const anonymous = await post(t, 'token/introspection', { token });
      expect(anonymous.status).toBeGreaterThanOrEqual(400);
      expect(anonymous.status).toBeLessThan(500);
      expect(anonymous.body).not.toHaveProperty('sub');
      // The API with a wrong secret fails closed with a 503, never a 401 blaming its caller.
      const misconfigured = createVerifier({
        issuer: `${t.baseUrl}/oidc`,
        audience: ORDERS,
        onWarning: false,
        introspection: { clientId: 'orders-api', clientSecret: 'wrong-secret-0123456789abcdefghijklmnopq' },
      });
      const error = await misconfigured.verify(token).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IntrospectionUnavailableError);
      expect(String((error as { cause?: unknown }).cause)).not.toContain('wrong-secret');
    });

    it('E14: a public client or a web application gets active: false for a token it does not own', async () => {
      const token = await workerToken(t);
      const spa = await post(t, 'token/introspection', { token, client_id: 'spa-app' });
      expect(spa).toEqual({ status: 200, body: { active: false } });
      const web = await post(t, 'token/introspection', { token }, ['web-app', SECRETS.web]);
      expect(web).toEqual({ status: 200, body: { active: false } });
      // Only a confidential Machine-to-Machine application (what an API introspects with) gets the
      // claims of another client's token; every client gets those of its own.
      const api = await post(t, 'token/introspection', { token }, ['orders-api', API_SECRET]);
      expect(api.status).toBe(200);
      expect(api.body).toMatchObject({ active: true, client_id: 'worker', aud: ORDERS });
      const own = await post(t, 'token/introspection', { token }, [worker.clientId, worker.clientSecret]);
      expect(own.body).toMatchObject({ active: true, client_id: 'worker' });
      const userToken = (await signedInTokens(t, 'alice', 'read:orders', ORDERS)).access_token as string;
      const ownWeb = await post(t, 'token/introspection', { token: userToken }, ['web-app', SECRETS.web]);
      expect(ownWeb.body).toMatchObject({ active: true, client_id: 'web-app' });
    });

    it('E5: a DPoP-bound opaque token keeps its binding: the API needs a proof by the same key', async () => {
      const key = manualKey();
      const tokenEndpoint = `${t.baseUrl}/oidc/token`;
      const issued = await postWithProof(
        tokenEndpoint,
        { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders' },
        manualProof(key, { htm: 'POST', htu: tokenEndpoint }),
        worker,
      );
      expect(issued.status).toBe(200);
      expect(issued.body.token_type).toBe('DPoP');
      const token = issued.body.access_token as string;
      expect(token.split('.')).toHaveLength(1);

      const api = introspectingApi(t, 'opaque');
      const url = 'https://orders.example.com/orders';
      const ath = createHash('sha256').update(token).digest('base64url');
      const request = (scheme: string, proofKey?: ReturnType<typeof manualKey>) => ({
        headers: {
          authorization: `${scheme} ${token}`,
          ...(proofKey === undefined ? {} : { dpop: manualProof(proofKey, { htm: 'GET', htu: url, ath }) }),
        },
        method: 'GET',
        url,
      });
      const info = await api.authenticate(request('DPoP', key));
      expect(info.confirmation).toEqual({ jkt: key.jkt });
      await expect(api.authenticate(request('Bearer'))).rejects.toMatchObject({ reason: 'bound_token' });
      await expect(api.authenticate(request('DPoP', manualKey()))).rejects.toMatchObject({
        reason: 'dpop_binding',
      });
    });

    it('E20: a refresh token presented to an introspecting API is refused, never taken for an access token', async () => {
      const web = await dpopClient(t.baseUrl, 'web-app', SECRETS.web);
      const tokens = await dpopSignIn(web, {
        baseUrl: t.baseUrl,
        username: 'alice',
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
      });
      expect(tokens.refresh_token).toEqual(expect.any(String));
      const api = introspectingApi(t, 'always');
      await expect(api.verify(tokens.access_token)).resolves.toMatchObject({ clientId: 'web-app' });
      const error = await api.verify(tokens.refresh_token!).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidTokenError);
      // oidc-provider answers for a refresh token with no token_type and no aud: the aud check refuses it
      // (core also refuses any token_type other than Bearer, DPoP or N_A: see core's E20 test).
      expect(error).toMatchObject({ reason: 'audience' });
    });

    it('the Management API keeps JWT access tokens whatever the format of resource tokens', async () => {
      const { body } = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: `${t.baseUrl}/api` },
        t.admin,
      );
      expect(String(body.access_token).split('.')).toHaveLength(3);
    });
  });

  describe("accessTokenFormat: 'jwt' (default)", () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startWorld(driver);
    });
    afterAll(() => t.close());

    it('E13: a JWT cannot be revoked at the issuer and introspects as inactive; a JWT-validating API accepts it until exp', async () => {
      const token = await workerToken(t);
      expect(token.split('.')).toHaveLength(3);
      const revoked = await post(t, 'token/revocation', { token }, [worker.clientId, worker.clientSecret]);
      // RFC 7009 §2.2: a token the server cannot revoke is answered 200 all the same — it stays valid.
      expect(revoked).toMatchObject({ status: 200 });

      const local = createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS, onWarning: false });
      const info = await local.verify(token);
      const exp = info.expiresAt.getTime();
      // The issuer keeps no record of plain JWTs (only of impersonation tokens): RFC 7662 §2.2 has it
      // answer `active: false`, so an 'always' API refuses them.
      const always = introspectingApi(t, 'always');
      await expect(always.verify(token)).rejects.toMatchObject({ reason: 'inactive' });

      vi.spyOn(Date, 'now').mockImplementation(() => exp - 1_000);
      local.clearCache();
      await expect(local.verify(token)).resolves.toMatchObject({ clientId: 'worker' });
      vi.spyOn(Date, 'now').mockImplementation(() => exp + 6_000); // past exp and the 5 s tolerance
      await expect(local.verify(token)).rejects.toMatchObject({ reason: 'expired' });
    });
  });
});
