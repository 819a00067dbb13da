/**
 * The other way round: access tokens from a CLI-started issuer verified by resource-server libraries
 * that are not Gatehouse's — `jose` (createRemoteJWKSet + jwtVerify), `express-oauth2-jwt-bearer`
 * (Auth0's Express middleware) and `@fastify/jwt` with `get-jwks` — each with the settings it needs,
 * and each shown refusing what it must refuse (an ID token, a token for another API, another issuer
 * string). The tokens: a user's (authorization code + PKCE through the sign-in page in Chromium), a
 * machine's (client credentials), an ID token, the Management API's own token, and a DPoP-bound one.
 */
import fastifyJwt from '@fastify/jwt';
import express from 'express';
import { auth, requiredScopes } from 'express-oauth2-jwt-bearer';
import Fastify, { type FastifyInstance } from 'fastify';
import buildGetJwks from 'get-jwks';
import * as jose from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/browser.js';
import { type Issuer, startIssuer } from './helpers/issuer.js';
import { discover, signInWithCode } from './helpers/openid-client.js';
import { type Listening, listen, listenCallback, Teardown } from './helpers/servers.js';
import { BILLING, ORDERS, secretFor, seedDocument, webAndWorker } from './helpers/world.js';

const teardown = new Teardown();
let issuer: Issuer;
let callback: Listening;
/** The tokens under test. */
const tokens = {} as {
  user: string;
  idToken: string;
  machine: string;
  billing: string;
  management: string;
  dpop: string;
  dpopHandle: oauth.DPoPHandle;
};
let alice: string;
let auth0Api: Listening;
let auth0SlashApi: Listening;
let fastify: FastifyInstance;
let fastifyUrl: string;

/** Tokens of the seeded worker (client credentials) for `resource`, optionally DPoP-bound. */
async function machineToken(resource: string, dpop?: oauth.DPoPHandle): Promise<string> {
  const as = { issuer: issuer.issuer, token_endpoint: `${issuer.issuer}/token` };
  const worker = { client_id: 'rs-worker' };
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    worker,
    oauth.ClientSecretBasic(secretFor('rs-worker')),
    { resource },
    { [oauth.allowInsecureRequests]: true, ...(dpop === undefined ? {} : { DPoP: dpop }) },
  );
  return (await oauth.processClientCredentialsResponse(as, worker, response)).access_token;
}

/** Auth0's middleware with the settings it needs for this issuer. */
function auth0App(issuerBaseURL: string): express.Express {
  const app = express();
  app.get(
    '/orders',
    auth({
      issuerBaseURL, // discovery: {issuerBaseURL}/.well-known/openid-configuration
      audience: ORDERS,
      strict: true, // RFC 9068: typ must be at+jwt (otherwise an ID token's typ is not checked)
      tokenSigningAlg: 'RS256',
    }),
    requiredScopes('read:orders'),
    (req, res) => {
      // express-oauth2-jwt-bearer's req.auth (its own declaration merge, unlike @gatehouse/express's).
      const { payload } = (req as unknown as { auth: { payload: jose.JWTPayload } }).auth;
      res.json({ sub: payload.sub, dpop: payload.cnf !== undefined });
    },
  );
  return app;
}

async function call(
  url: string,
  token: string,
  dpop?: oauth.DPoPHandle,
): Promise<{ status: number; body: unknown; challenge: string | null }> {
  const res =
    dpop === undefined
      ? await fetch(`${url}/orders`, { headers: { authorization: `Bearer ${token}` } })
      : await oauth.protectedResourceRequest(token, 'GET', new URL(`${url}/orders`), undefined, undefined, {
          [oauth.allowInsecureRequests]: true,
          DPoP: dpop,
        });
  const text = await res.text();
  return {
    status: res.status,
    body: text.startsWith('{') ? JSON.parse(text) : text,
    challenge: res.headers.get('www-authenticate'),
  };
}

beforeAll(async () => {
  try {
    callback = teardown.add(await listenCallback(), (s) => s.close());
    issuer = teardown.add(
      await startIssuer({
        seed: () => seedDocument(webAndWorker('rs', 'resource-server', `${callback.url}/callback`)),
      }),
      (i) => i.close(),
    );
    alice = await issuer.userId('alice');

    // A user's token and ID token: authorization code + PKCE through the sign-in page (openid-client).
    const browser = await launchChromium();
    try {
      const config = await discover(issuer.issuer, 'rs-web');
      const signedIn = await signInWithCode(browser, config, {
        issuerBase: issuer.baseUrl,
        redirectUri: `${callback.url}/callback`,
        username: 'alice',
        parameters: { scope: 'openid read:orders', resource: ORDERS },
      });
      tokens.user = signedIn.access_token;
      tokens.idToken = signedIn.id_token!;
    } finally {
      await browser.close();
    }
    tokens.machine = await machineToken(ORDERS);
    tokens.billing = await machineToken(BILLING);
    tokens.management = await issuer.adminToken();
    tokens.dpopHandle = oauth.DPoP({}, await oauth.generateKeyPair('ES256'));
    tokens.dpop = await machineToken(ORDERS, tokens.dpopHandle);

    auth0Api = teardown.add(await listen(auth0App(issuer.issuer)), (s) => s.close());
    auth0SlashApi = teardown.add(await listen(auth0App(`${issuer.issuer}/`)), (s) => s.close());

    // @fastify/jwt + get-jwks: the key is looked up by the token's own `iss`, allowed only when listed.
    const getJwks = buildGetJwks({ issuersWhitelist: [issuer.issuer], providerDiscovery: true });
    fastify = teardown.add(Fastify(), (app) => app.close());
    await fastify.register(fastifyJwt, {
      decode: { complete: true },
      secret: (_request: unknown, token: unknown) => {
        const { header, payload } = token as { header: jose.JWTHeaderParameters; payload: jose.JWTPayload };
        return getJwks.getPublicKey({ kid: header.kid, alg: header.alg, domain: String(payload.iss) });
      },
      verify: {
        allowedIss: issuer.issuer,
        allowedAud: ORDERS,
        algorithms: ['RS256'],
        checkTyp: 'at+jwt', // RFC 9068 access tokens only (an ID token has no typ)
      },
    });
    fastify.get('/orders', async (request, reply) => {
      try {
        const payload = await request.jwtVerify<jose.JWTPayload & { scope?: string }>();
        if (!payload.scope?.split(' ').includes('read:orders'))
          return reply.code(403).send({ error: 'scope' });
        return { sub: payload.sub };
      } catch (err) {
        return reply.code(401).send({ error: (err as { code?: string }).code ?? 'invalid_token' });
      }
    });
    fastifyUrl = await fastify.listen({ port: 0, host: '127.0.0.1' });
  } catch (err) {
    await teardown.run();
    throw err;
  }
});

afterAll(() => teardown.run());

describe('the tokens under test', () => {
  it('are RS256 JWTs of typ at+jwt for an API; the ID token has no typ and is for the client', () => {
    expect(jose.decodeProtectedHeader(tokens.user)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(jose.decodeJwt(tokens.user)).toMatchObject({ iss: issuer.issuer, aud: ORDERS, sub: alice });
    expect(jose.decodeProtectedHeader(tokens.idToken).typ).toBeUndefined();
    expect(jose.decodeJwt(tokens.idToken).aud).toBe('rs-web');
    expect(jose.decodeJwt(tokens.machine)).toMatchObject({ sub: 'rs-worker', aud: ORDERS });
    // The worker's roles grant nothing on the billing API: a token for it, with no scope.
    expect(jose.decodeJwt(tokens.billing).aud).toBe(BILLING);
    expect(jose.decodeJwt(tokens.billing).scope).toBeUndefined();
    expect(jose.decodeJwt(tokens.management).aud).toBe(issuer.managementApi);
    expect(jose.decodeJwt(tokens.dpop).cnf).toHaveProperty('jkt');
  });
});

describe('jose: createRemoteJWKSet + jwtVerify', () => {
  const options = () => ({
    issuer: issuer.issuer, // exactly {baseUrl}/oidc: no trailing slash
    audience: ORDERS,
    typ: 'at+jwt', // RFC 9068: refuses ID tokens
    algorithms: ['RS256'], // the issuer's keys.algorithm
  });
  const jwks = () => jose.createRemoteJWKSet(new URL(`${issuer.issuer}/jwks`));

  it('accepts the user and machine tokens', async () => {
    const keys = jwks();
    expect((await jose.jwtVerify(tokens.user, keys, options())).payload).toMatchObject({
      sub: alice,
      scope: 'read:orders',
    });
    expect((await jose.jwtVerify(tokens.machine, keys, options())).payload.client_id).toBe('rs-worker');
  });

  it('refuses an ID token (typ), tokens for other APIs (aud) and a trailing-slash issuer', async () => {
    const keys = jwks();
    await expect(jose.jwtVerify(tokens.idToken, keys, options())).rejects.toMatchObject({
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'typ',
    });
    await expect(jose.jwtVerify(tokens.management, keys, options())).rejects.toMatchObject({ claim: 'aud' });
    await expect(jose.jwtVerify(tokens.billing, keys, options())).rejects.toMatchObject({ claim: 'aud' });
    await expect(
      jose.jwtVerify(tokens.user, keys, { ...options(), issuer: `${issuer.issuer}/` }),
    ).rejects.toMatchObject({ claim: 'iss' });
  });

  it('does not check DPoP binding: a bound token verifies as a plain JWT (check cnf yourself)', async () => {
    const { payload } = await jose.jwtVerify(tokens.dpop, jwks(), options());
    expect(payload.cnf).toHaveProperty('jkt');
  });
});

describe('express-oauth2-jwt-bearer', () => {
  it('accepts the user and machine tokens, with or without a trailing slash on issuerBaseURL', async () => {
    for (const api of [auth0Api, auth0SlashApi]) {
      expect(await call(api.url, tokens.user)).toMatchObject({ status: 200, body: { sub: alice } });
      expect(await call(api.url, tokens.machine)).toMatchObject({ status: 200, body: { sub: 'rs-worker' } });
    }
  });

  it('refuses an ID token and tokens for other APIs with 401 invalid_token', async () => {
    for (const token of [tokens.idToken, tokens.management, tokens.billing]) {
      const res = await call(auth0Api.url, token);
      expect(res.status).toBe(401);
      expect(res.challenge).toContain('invalid_token');
    }
  });

  it('verifies a DPoP-bound token with its proof, and refuses it as Bearer', async () => {
    expect(await call(auth0Api.url, tokens.dpop, tokens.dpopHandle)).toMatchObject({
      status: 200,
      body: { dpop: true },
    });
    expect((await call(auth0Api.url, tokens.dpop)).status).toBe(401);
  });
});

describe('@fastify/jwt + get-jwks', () => {
  it('accepts the user and machine tokens', async () => {
    expect(await call(fastifyUrl, tokens.user)).toMatchObject({ status: 200, body: { sub: alice } });
    expect(await call(fastifyUrl, tokens.machine)).toMatchObject({ status: 200, body: { sub: 'rs-worker' } });
  });

  it('refuses an ID token (checkTyp) and tokens for other APIs (allowedAud)', async () => {
    for (const token of [tokens.idToken, tokens.management, tokens.billing])
      expect((await call(fastifyUrl, token)).status).toBe(401);
  });

  it('does not check DPoP binding: a bound token passes as Bearer (check cnf yourself)', async () => {
    expect((await call(fastifyUrl, tokens.dpop)).status).toBe(200);
  });
});
