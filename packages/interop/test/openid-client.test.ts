/**
 * openid-client (panva), as a relying party of a CLI-started issuer: discovery, authorization code +
 * PKCE with a resource indicator through the real sign-in page in Chromium, refresh for the resource,
 * client credentials, token exchange (RFC 8693) with and without an actor token, DPoP-bound tokens,
 * introspection and revocation. Every access token it gets is used at a @gatehouse/express API.
 *
 * Settings openid-client needs: `allowInsecureRequests` (the suite's issuer is plain http on loopback;
 * never in production), the issuer identifier `{baseUrl}/oidc` for discovery, `resource` at both the
 * authorization and the token request, and `prompt=consent` with `offline_access` for a refresh token.
 */
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOrders, startOrdersApi } from './helpers/api.js';
import { launchChromium } from './helpers/browser.js';
import { type Issuer, startIssuer } from './helpers/issuer.js';
import { discover, signInWithCode } from './helpers/openid-client.js';
import { type Listening, listenCallback, Teardown } from './helpers/servers.js';
import { ORDERS, seedDocument, webAndWorker } from './helpers/world.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
let callback: Listening;
let browser: Browser;
/** The web application (confidential, token exchange enabled) and the worker (client credentials). */
let web: client.Configuration;
let worker: client.Configuration;

beforeAll(async () => {
  try {
    callback = teardown.add(await listenCallback(), (s) => s.close());
    issuer = teardown.add(
      await startIssuer({
        seed: () =>
          seedDocument(
            webAndWorker('oc', 'openid-client', `${callback.url}/callback`, { tokenExchangeEnabled: true }),
          ),
      }),
      (i) => i.close(),
    );
    api = teardown.add(await startOrdersApi(issuer.issuer, ORDERS), (s) => s.close());
    browser = teardown.add(await launchChromium(), (b) => b.close());
    web = await discover(issuer.issuer, 'oc-web');
    worker = await discover(issuer.issuer, 'oc-worker');
  } catch (err) {
    await teardown.run();
    throw err;
  }
});

afterAll(() => teardown.run());

/**
 * Authorization code + PKCE of the web application for `username` through the sign-in page, and the
 * code redeemed (for the `resource` asked for, if any).
 */
const signIn = (username: string, parameters: Record<string, string>, grant?: client.DPoPOptions) =>
  signInWithCode(
    browser,
    web,
    { issuerBase: issuer.baseUrl, redirectUri: `${callback.url}/callback`, username, parameters },
    grant,
  );

/** `GET {api}/orders` with a DPoP-bound token and a proof of `dpop`'s key. */
const callOrdersWithProof = (config: client.Configuration, token: string, dpop: client.DPoPHandle) =>
  client.fetchProtectedResource(config, token, new URL(`${api.url}/orders`), 'GET', undefined, undefined, {
    DPoP: dpop,
  });

describe('openid-client', () => {
  it('discovers the issuer: S256 only, DPoP, token exchange for applications enabled for it', () => {
    const metadata = web.serverMetadata();
    expect(metadata.issuer).toBe(issuer.issuer);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.dpop_signing_alg_values_supported).toContain('ES256');
    expect(metadata.introspection_endpoint).toBe(`${issuer.issuer}/token/introspection`);
    expect(metadata.revocation_endpoint).toBe(`${issuer.issuer}/token/revocation`);
  });

  it('authorization code + PKCE + resource, signed in on the page; the API accepts the token; refresh', async () => {
    const tokens = await signIn('alice', {
      scope: 'openid profile offline_access read:orders',
      prompt: 'consent',
      resource: ORDERS,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope?.split(' ')).toContain('read:orders');
    const claims = tokens.claims()!;
    expect(claims.iss).toBe(issuer.issuer);
    const alice = await issuer.userId('alice');
    expect(claims.sub).toBe(alice);
    const called = await callOrders(api.url, tokens.access_token);
    expect(called.status).toBe(200);
    expect(called.body).toMatchObject({ subject: alice, clientId: 'oc-web', actor: null, dpop: false });

    // Refresh for the resource: a new access token (and a rotated refresh token) that still works.
    const refreshed = await client.refreshTokenGrant(web, tokens.refresh_token!, { resource: ORDERS });
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await callOrders(api.url, refreshed.access_token)).status).toBe(200);
    // The rotated-out refresh token is refused (and revokes the grant: RFC 9700 §4.14.2).
    await expect(
      client.refreshTokenGrant(web, tokens.refresh_token!, { resource: ORDERS }),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('client credentials: the worker gets a token for the resource the API accepts', async () => {
    const tokens = await client.clientCredentialsGrant(worker, { resource: ORDERS, scope: 'read:orders' });
    const called = await callOrders(api.url, tokens.access_token);
    expect(called.status).toBe(200);
    expect(called.body).toMatchObject({
      subject: 'oc-worker',
      clientId: 'oc-worker',
      scopes: ['read:orders'],
    });
    // A scope the worker's roles do not grant is refused, not silently dropped when nothing else is left.
    await expect(
      client.clientCredentialsGrant(worker, { resource: ORDERS, scope: 'write:orders' }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  it('token exchange without an actor token: a token of the subject, no act', async () => {
    const alice = await issuer.userId('alice');
    const subjectToken = await issuer.subjectToken({ userId: alice, applicationId: 'oc-web' });
    const exchanged = await client.genericGrantRequest(web, TOKEN_EXCHANGE, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
    });
    expect(exchanged.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    expect(exchanged.refresh_token).toBeUndefined();
    const called = await callOrders(api.url, exchanged.access_token);
    expect(called.status).toBe(200);
    expect(called.body).toMatchObject({ subject: alice, actor: null });
    // The subject token is single-use.
    await expect(
      client.genericGrantRequest(web, TOKEN_EXCHANGE, {
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
      }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
  });

  it('token exchange with an actor token: the signed-in actor becomes act', async () => {
    // sam signs in with openid only: the access token is the opaque userinfo token, the actor token.
    const own = await signIn('sam', { scope: 'openid' });
    const [alice, sam] = [await issuer.userId('alice'), await issuer.userId('sam')];
    const subjectToken = await issuer.subjectToken({ userId: alice, actorId: sam });
    // Bound to sam: without his actor token the subject token is refused (and burnt).
    const exchanged = await client.genericGrantRequest(web, TOKEN_EXCHANGE, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: own.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
    });
    const called = await callOrders(api.url, exchanged.access_token);
    expect(called.status).toBe(200);
    expect(called.body).toMatchObject({ subject: alice, actor: sam });
  });

  it('DPoP: a bound token (authorization code and client credentials), refused as a Bearer token', async () => {
    const dpop = client.getDPoPHandle(web, await client.randomDPoPKeyPair('ES256'));
    const tokens = await signIn('alice', { scope: 'openid read:orders', resource: ORDERS }, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    const res = await callOrdersWithProof(web, tokens.access_token, dpop);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ dpop: true });
    expect((await callOrders(api.url, tokens.access_token)).status).toBe(401);

    const workerDpop = client.getDPoPHandle(worker, await client.randomDPoPKeyPair('ES256'));
    const m2m = await client.clientCredentialsGrant(worker, { resource: ORDERS }, { DPoP: workerDpop });
    expect(m2m.token_type).toBe('dpop');
    const called = await callOrdersWithProof(worker, m2m.access_token, workerDpop);
    expect(called.status).toBe(200);
  });

  it('introspection and revocation of the userinfo token; JWT resource tokens are not introspectable', async () => {
    const tokens = await signIn('alice', { scope: 'openid profile' });
    const alice = await issuer.userId('alice');
    const active = await client.tokenIntrospection(web, tokens.access_token);
    expect(active).toMatchObject({ active: true, sub: alice, client_id: 'oc-web' });
    expect((await client.fetchUserInfo(web, tokens.access_token, alice)).preferred_username).toBe('alice');

    await client.tokenRevocation(web, tokens.access_token, { token_type_hint: 'access_token' });
    expect(await client.tokenIntrospection(web, tokens.access_token)).toEqual({ active: false });
    await expect(client.fetchUserInfo(web, tokens.access_token, alice)).rejects.toMatchObject({
      status: 401,
    });

    // A JWT access token is validated by the API itself; the issuer keeps no record of it.
    const m2m = await client.clientCredentialsGrant(worker, { resource: ORDERS });
    expect(await client.tokenIntrospection(worker, m2m.access_token)).toEqual({ active: false });
  });
});
