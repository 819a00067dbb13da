/**
 * oauth4webapi (panva's low-level OAuth 2 / OIDC functions) against a CLI-started issuer that issues
 * **opaque** access tokens (`--access-token-format opaque`), so introspection and revocation apply to
 * resource tokens: the @gatehouse/express API introspects every token (`introspection.mode: 'always'`)
 * with its own Machine-to-Machine client. Flows: authorization code + PKCE + resource through the
 * sign-in page in Chromium, refresh, client credentials, token exchange with and without an actor
 * token, DPoP, introspection, revocation.
 *
 * Settings oauth4webapi needs: `[allowInsecureRequests]: true` on every request (plain http on
 * loopback only), `algorithm: 'oidc'` for discovery of `{baseUrl}/oidc`, `resource` as an additional
 * parameter of the token request.
 */
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOrders, startOrdersApi } from './helpers/api.js';
import { launchChromium, signInOnPage } from './helpers/browser.js';
import { type Issuer, startIssuer } from './helpers/issuer.js';
import { type Listening, listenCallback, Teardown } from './helpers/servers.js';
import { ORDERS, secretFor, seedDocument, webAndWorker } from './helpers/world.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
let callback: Listening;
let browser: Browser;
let as: oauth.AuthorizationServer;
const web: oauth.Client = { client_id: 'o4-web' };
const webAuth = oauth.ClientSecretBasic(secretFor('o4-web'));
const worker: oauth.Client = { client_id: 'o4-worker' };
const workerAuth = oauth.ClientSecretBasic(secretFor('o4-worker'));
/** The API's own client, which introspects. */
const apiClient: oauth.Client = { client_id: 'o4-api' };
const apiAuth = oauth.ClientSecretBasic(secretFor('o4-api'));

beforeAll(async () => {
  try {
    callback = teardown.add(await listenCallback(), (s) => s.close());
    issuer = teardown.add(
      await startIssuer({
        env: { GATEHOUSE_ACCESS_TOKEN_FORMAT: 'opaque' },
        seed: () =>
          seedDocument([
            ...webAndWorker('o4', 'oauth4webapi', `${callback.url}/callback`, { tokenExchangeEnabled: true }),
            {
              name: 'Orders API',
              type: 'MachineToMachine',
              clientId: 'o4-api',
              clientSecret: secretFor('o4-api'),
            },
          ]),
      }),
      (i) => i.close(),
    );
    api = teardown.add(
      await startOrdersApi(issuer.issuer, ORDERS, {
        introspection: { clientId: 'o4-api', clientSecret: secretFor('o4-api'), mode: 'always' },
      }),
      (s) => s.close(),
    );
    browser = teardown.add(await launchChromium(), (b) => b.close());
    const issuerUrl = new URL(issuer.issuer);
    as = await oauth.processDiscoveryResponse(
      issuerUrl,
      await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', ...insecure }),
    );
  } catch (err) {
    await teardown.run();
    throw err;
  }
});

afterAll(() => teardown.run());

/** Authorization code + PKCE for `username` on the sign-in page, then the token request. */
async function signedIn(
  username: string,
  scope: string,
  resource: string | undefined,
  options: { DPoP?: oauth.DPoPHandle } = {},
): Promise<oauth.TokenEndpointResponse> {
  const redirectUri = `${callback.url}/callback`;
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: web.client_id,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(resource === undefined ? {} : { resource, prompt: 'consent' }),
  }).toString();
  const context = await browser.newContext();
  let landed: URL;
  try {
    const page = await context.newPage();
    await page.goto(url.href);
    await signInOnPage(page, issuer.baseUrl, username, redirectUri);
    landed = new URL(page.url());
  } finally {
    await context.close();
  }
  const params = oauth.validateAuthResponse(as, web, landed, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    web,
    webAuth,
    params,
    redirectUri,
    verifier,
    {
      ...insecure,
      ...options,
      ...(resource === undefined ? {} : { additionalParameters: { resource } }),
    },
  );
  return oauth.processAuthorizationCodeResponse(as, web, response);
}

async function introspect(token: string): Promise<oauth.IntrospectionResponse> {
  return oauth.processIntrospectionResponse(
    as,
    apiClient,
    await oauth.introspectionRequest(as, apiClient, apiAuth, token, insecure),
  );
}

describe('oauth4webapi, opaque access tokens', () => {
  it('authorization code + PKCE + resource; the API introspects the opaque token; refresh', async () => {
    const tokens = await signedIn('alice', 'openid offline_access read:orders', ORDERS);
    expect(tokens.access_token.split('.')).toHaveLength(1); // opaque, not a JWT
    const alice = await issuer.userId('alice');
    expect(oauth.getValidatedIdTokenClaims(tokens)?.sub).toBe(alice);
    const called = await callOrders(api.url, tokens.access_token);
    expect(called.status).toBe(200);
    expect(called.body).toMatchObject({ subject: alice, clientId: 'o4-web', scopes: ['read:orders'] });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      web,
      await oauth.refreshTokenGrantRequest(as, web, webAuth, tokens.refresh_token!, {
        ...insecure,
        additionalParameters: { resource: ORDERS },
      }),
    );
    expect((await callOrders(api.url, refreshed.access_token)).status).toBe(200);
  });

  it('client credentials, introspected by the API client, revoked by the worker: refused at once', async () => {
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      worker,
      await oauth.clientCredentialsGrantRequest(as, worker, workerAuth, { resource: ORDERS }, insecure),
    );
    expect(await introspect(tokens.access_token)).toMatchObject({
      active: true,
      client_id: 'o4-worker',
      aud: ORDERS,
      scope: 'read:orders',
    });
    expect((await callOrders(api.url, tokens.access_token)).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, worker, workerAuth, tokens.access_token, insecure),
    );
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    const refused = await callOrders(api.url, tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_token');
  });

  it('a revoked refresh token ends the grant: no more tokens from it', async () => {
    const tokens = await signedIn('alice', 'openid offline_access read:orders', ORDERS);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, web, webAuth, tokens.refresh_token!, {
        ...insecure,
        additionalParameters: { token_type_hint: 'refresh_token' },
      }),
    );
    const response = await oauth.refreshTokenGrantRequest(as, web, webAuth, tokens.refresh_token!, {
      ...insecure,
      additionalParameters: { resource: ORDERS },
    });
    await expect(oauth.processRefreshTokenResponse(as, web, response)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Revoking the grant revoked its access tokens too.
    expect((await callOrders(api.url, tokens.access_token)).status).toBe(401);
  });

  it('token exchange without and with an actor token (the exchanged token is introspected too)', async () => {
    const [alice, sam] = [await issuer.userId('alice'), await issuer.userId('sam')];
    const exchange = async (params: Record<string, string>) =>
      oauth.processGenericTokenEndpointResponse(
        as,
        web,
        await oauth.genericTokenEndpointRequest(
          as,
          web,
          webAuth,
          TOKEN_EXCHANGE,
          { subject_token_type: ACCESS_TOKEN_TYPE, resource: ORDERS, scope: 'read:orders', ...params },
          insecure,
        ),
      );
    const plain = await exchange({ subject_token: await issuer.subjectToken({ userId: alice }) });
    expect(plain.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    expect((await callOrders(api.url, plain.access_token)).body).toMatchObject({
      subject: alice,
      actor: null,
    });

    const own = await signedIn('sam', 'openid', undefined);
    const acted = await exchange({
      subject_token: await issuer.subjectToken({ userId: alice, actorId: sam }),
      actor_token: own.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
    });
    expect((await callOrders(api.url, acted.access_token)).body).toMatchObject({
      subject: alice,
      actor: sam,
    });
    expect(await introspect(acted.access_token)).toMatchObject({
      active: true,
      sub: alice,
      act: { sub: sam },
    });
  });

  it('DPoP: client credentials and authorization code bind the token; the API checks the proof', async () => {
    const dpop = oauth.DPoP(worker, await oauth.generateKeyPair('ES256'));
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      worker,
      await oauth.clientCredentialsGrantRequest(
        as,
        worker,
        workerAuth,
        { resource: ORDERS },
        {
          ...insecure,
          DPoP: dpop,
        },
      ),
    );
    expect(tokens.token_type).toBe('dpop');
    expect((await introspect(tokens.access_token)).cnf).toHaveProperty('jkt');
    const res = await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL(`${api.url}/orders`),
      undefined,
      undefined,
      { ...insecure, DPoP: dpop },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ dpop: true });
    expect((await callOrders(api.url, tokens.access_token)).status).toBe(401);

    const webDpop = oauth.DPoP(web, await oauth.generateKeyPair('ES256'));
    const signed = await signedIn('alice', 'openid read:orders', ORDERS, { DPoP: webDpop });
    expect(signed.token_type).toBe('dpop');
    const called = await oauth.protectedResourceRequest(
      signed.access_token,
      'GET',
      new URL(`${api.url}/orders`),
      undefined,
      undefined,
      { ...insecure, DPoP: webDpop },
    );
    expect(called.status).toBe(200);
  });
});
