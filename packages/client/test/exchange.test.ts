/**
 * The RFC 8693 exchange: the request the client sends, checked on a loopback stub authorization
 * server (parameters, client authentication, response mapping, errors, nothing stored), then end to
 * end against the real issuer, with and without an actor token.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_TYPE,
  createClient,
  createMemoryStorage,
  OAuthResponseError,
  PERSONAL_ACCESS_TOKEN_TYPE,
  ServerResponseError,
  TOKEN_EXCHANGE_GRANT_TYPE,
  UnknownResourceError,
} from '../src/index.js';
import { consoleOptions, signedInClient } from './helpers/sign-in.js';
import { type StubIssuer, startStubIssuer } from './helpers/stub-issuer.js';
import {
  AGENT_PASSWORD,
  adminToken,
  BILLING,
  mintSubjectToken,
  ORDERS,
  REDIRECT,
  startWorld,
  type World,
} from './helpers/world.js';

let stub: StubIssuer;

beforeAll(async () => {
  stub = await startStubIssuer();
});
afterAll(async () => {
  await stub?.close();
});
beforeEach(() => {
  stub.requests.length = 0;
});

function client(extra: { clientSecret?: string; storage?: ReturnType<typeof createMemoryStorage> } = {}) {
  return createClient({
    issuer: stub.issuer,
    allowInsecureRequests: true,
    clientId: 'console',
    redirectUri: REDIRECT,
    resources: [ORDERS, BILLING],
    scopes: ['read:orders'],
    ...extra,
  });
}

const OK = {
  status: 200,
  body: {
    access_token: 'exchanged-token',
    token_type: 'Bearer',
    issued_token_type: ACCESS_TOKEN_TYPE,
    expires_in: 300,
    scope: 'read:orders write:orders',
  },
};

describe('exchangeSubjectToken', () => {
  it('sends the RFC 8693 parameters with the configured scopes, as a public client', async () => {
    stub.answerToken(OK);
    const before = Date.now();
    const result = await client().exchangeSubjectToken({ subjectToken: 'sub_abc', resource: ORDERS });
    expect(stub.requests).toHaveLength(1);
    const [request] = stub.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/oidc/token');
    expect(request!.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(request!.form)).toEqual({
      grant_type: TOKEN_EXCHANGE_GRANT_TYPE,
      client_id: 'console',
      subject_token: 'sub_abc',
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
    });
    expect(result.accessToken).toBe('exchanged-token');
    expect(result.tokenType).toBe('bearer');
    expect(result.issuedTokenType).toBe(ACCESS_TOKEN_TYPE);
    expect(result.expiresIn).toBe(300);
    expect(result.expiresAt).toBeGreaterThanOrEqual(before + 300_000);
    expect(result.expiresAt).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(result.scopes).toEqual(['read:orders', 'write:orders']);
  });

  it('sends the actor token, its type and the scopes', async () => {
    stub.answerToken(OK);
    await client().exchangeSubjectToken({
      subjectToken: 'sub_abc',
      resource: BILLING,
      scopes: ['read:billing', 'read:billing', 'write:billing'],
      actorToken: 'actor-token',
    });
    const form = stub.requests[0]!.form;
    expect(form.get('actor_token')).toBe('actor-token');
    expect(form.get('actor_token_type')).toBe(ACCESS_TOKEN_TYPE);
    expect(form.get('scope')).toBe('read:billing write:billing');
    expect(form.getAll('resource')).toEqual([BILLING]);
  });

  it('sends no scope when asked for none', async () => {
    stub.answerToken(OK);
    await client().exchangeSubjectToken({ subjectToken: 'sub_abc', resource: ORDERS, scopes: [] });
    expect(stub.requests[0]!.form.has('scope')).toBe(false);
  });

  it('passes explicit token types through', async () => {
    stub.answerToken(OK);
    await client().exchangeSubjectToken({
      subjectToken: 'pat_abc',
      subjectTokenType: 'urn:example:personal-access-token',
      resource: ORDERS,
      actorToken: 'actor.id.token',
      actorTokenType: 'urn:ietf:params:oauth:token-type:id_token',
    });
    const form = stub.requests[0]!.form;
    expect(form.get('subject_token_type')).toBe('urn:example:personal-access-token');
    expect(form.get('actor_token_type')).toBe('urn:ietf:params:oauth:token-type:id_token');
  });

  it('authenticates a confidential client with HTTP Basic', async () => {
    stub.answerToken(OK);
    await client({ clientSecret: 'a-secret' }).exchangeSubjectToken({
      subjectToken: 'sub_abc',
      resource: ORDERS,
    });
    const request = stub.requests[0]!;
    // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
    const [scheme, value] = String(request.headers.authorization).split(' ');
    expect(scheme).toBe('Basic');
    const [id, secret] = Buffer.from(value!, 'base64').toString('utf8').split(':').map(decodeURIComponent);
    expect([id, secret]).toEqual(['console', 'a-secret']);
    expect(request.form.get('client_id')).toBeNull();
  });

  it('never stores anything, not even a refresh token the issuer sends', async () => {
    const storage = createMemoryStorage();
    stub.answerToken({ status: 200, body: { ...OK.body, refresh_token: 'should-be-dropped' } });
    const c = client({ storage });
    const result = await c.exchangeSubjectToken({ subjectToken: 'sub_abc', resource: ORDERS });
    expect(storage.size).toBe(0);
    expect(JSON.stringify(result)).not.toContain('should-be-dropped');
    expect(await c.isAuthenticated()).toBe(false);
    // Not cached either: the next exchange asks again.
    stub.answerToken(OK);
    await c.exchangeSubjectToken({ subjectToken: 'sub_def', resource: ORDERS });
    expect(stub.requests).toHaveLength(2);
  });

  it('reports an unknown expiry as undefined and no scope as an empty list', async () => {
    stub.answerToken({ status: 200, body: { access_token: 't', token_type: 'Bearer' } });
    const result = await client().exchangeSubjectToken({ subjectToken: 'sub_abc', resource: ORDERS });
    expect(result.expiresIn).toBeUndefined();
    expect(result.expiresAt).toBeUndefined();
    expect(result.issuedTokenType).toBeUndefined();
    expect(result.scopes).toEqual([]);
  });

  it('refuses an unconfigured resource without a request', async () => {
    const err = await client()
      .exchangeSubjectToken({ subjectToken: 'sub_abc', resource: 'https://elsewhere.example.com' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownResourceError);
    expect((err as UnknownResourceError).error).toBe('invalid_target');
    expect(stub.requests).toHaveLength(0);
  });

  it.each([
    [{ resource: ORDERS }, 'subjectToken'],
    [{ subjectToken: '', resource: ORDERS }, 'subjectToken'],
    [{ subjectToken: 's' }, 'resource'],
    [{ subjectToken: 's', resource: ORDERS, scopes: 'read:orders' }, 'scopes'],
    [{ subjectToken: 's', resource: ORDERS, scopes: ['two words'] }, 'scopes'],
    [{ subjectToken: 's', resource: ORDERS, actorToken: 42 }, 'actorToken'],
    [{ subjectToken: 's', resource: ORDERS, actorTokenType: 'x' }, 'actorTokenType'],
    [{ subjectToken: 's', resource: ORDERS, subjectTokenType: '' }, 'subjectTokenType'],
  ])('refuses a malformed request %j with a TypeError naming %s', async (request, field) => {
    const c = client();
    await expect(c.exchangeSubjectToken(request as never)).rejects.toThrow(TypeError);
    await expect(c.exchangeSubjectToken(request as never)).rejects.toThrow(`"${field}"`);
    expect(stub.requests).toHaveLength(0);
  });

  it('throws the OAuth error the issuer answers with', async () => {
    stub.answerToken({
      status: 400,
      body: { error: 'invalid_request', error_description: 'subject token is invalid' },
    });
    const err = await client()
      .exchangeSubjectToken({ subjectToken: 'sub_used', resource: ORDERS })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect(err).toMatchObject({
      reason: 'oauth_error',
      error: 'invalid_request',
      errorDescription: 'subject token is invalid',
      status: 400,
      endpoint: 'token',
    });
    expect((err as Error).message).not.toContain('sub_used');
  });

  it('never sends to a plain-HTTP token endpoint off loopback, even if discovery names one', async () => {
    const saved = stub.metadata.token_endpoint;
    stub.metadata.token_endpoint = 'http://id.example.com/oidc/token';
    try {
      const err = await client()
        .exchangeSubjectToken({ subjectToken: 'sub_abc', resource: ORDERS })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerResponseError);
      expect((err as Error).message).toContain('HTTPS');
    } finally {
      stub.metadata.token_endpoint = saved;
    }
    expect(stub.requests).toHaveLength(0);
  });

  it('throws a ServerResponseError for a non-conforming success answer', async () => {
    stub.answerToken({ status: 200, body: { token_type: 'Bearer' } });
    await expect(
      client().exchangeSubjectToken({ subjectToken: 'sub_abc', resource: ORDERS }),
    ).rejects.toBeInstanceOf(ServerResponseError);
  });
});

describe('exchangeSubjectToken against the issuer', () => {
  let world: World;
  const verify = (token: string, audience: string) =>
    createVerifier({ issuer: `${world.baseUrl}/oidc`, audience, strict: true }).verify(token, {
      allowDelegation: true,
    });

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('impersonates without an actor token: a token of the user for the resource, no act, nothing stored', async () => {
    const storage = createMemoryStorage();
    const agent = createClient(consoleOptions(world, { storage }));
    const subjectToken = await mintSubjectToken(world, { userId: world.users.alice });
    const before = Date.now();
    const result = await agent.exchangeSubjectToken({ subjectToken, resource: ORDERS });
    expect(result.issuedTokenType).toBe(ACCESS_TOKEN_TYPE);
    expect(result.tokenType).toBe('bearer');
    expect(result.scopes).toEqual(['read:orders']);
    expect(result.expiresAt).toBeGreaterThanOrEqual(before + result.expiresIn! * 1000);
    const auth = await verify(result.accessToken, ORDERS);
    expect(auth.subject).toBe(world.users.alice);
    expect(auth.claims.aud).toBe(ORDERS);
    expect(auth.scopes).toEqual(['read:orders']);
    expect(auth.actor).toBeUndefined();
    expect(Math.abs(auth.claims.exp! * 1000 - result.expiresAt!)).toBeLessThan(2_000);
    expect(storage.size).toBe(0);
  });

  it('impersonates with the signed-in agent as actor token: act names the agent', async () => {
    const agent = await signedInClient(world, {}, 'agent', AGENT_PASSWORD);
    const subjectToken = await mintSubjectToken(world, {
      userId: world.users.alice,
      actorId: world.users.agent,
    });
    const result = await agent.exchangeSubjectToken({
      subjectToken,
      resource: BILLING,
      actorToken: await agent.getAccessToken(),
    });
    const auth = await verify(result.accessToken, BILLING);
    expect(auth.subject).toBe(world.users.alice);
    expect(auth.actor?.sub).toBe(world.users.agent);
    expect(auth.scopes).toEqual(['read:billing']);
    // The agent's own session is untouched by the exchange.
    expect((await agent.getIdTokenClaims())?.sub).toBe(world.users.agent);
  });

  it('a subject token is single-use: the replay is OAuthResponseError invalid_request', async () => {
    const agent = createClient(consoleOptions(world));
    const subjectToken = await mintSubjectToken(world, { userId: world.users.alice });
    await agent.exchangeSubjectToken({ subjectToken, resource: ORDERS });
    const err = await agent.exchangeSubjectToken({ subjectToken, resource: ORDERS }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect(err).toMatchObject({
      endpoint: 'token',
      status: 400,
      error: 'invalid_request',
      errorDescription: 'the subject token has already been used',
    });
    expect((err as Error).message).not.toContain(subjectToken);
  });

  it('a subject token bound to an actor needs that actor’s token', async () => {
    const agent = await signedInClient(world, {}, 'agent', AGENT_PASSWORD);
    const bound = await mintSubjectToken(world, { userId: world.users.alice, actorId: world.users.agent });
    await expect(agent.exchangeSubjectToken({ subjectToken: bound, resource: ORDERS })).rejects.toMatchObject(
      {
        reason: 'oauth_error',
        error: 'invalid_request',
      },
    );
    // Signed in as alice, the actor token names the wrong user.
    const alice = await signedInClient(world);
    const again = await mintSubjectToken(world, { userId: world.users.alice, actorId: world.users.agent });
    await expect(
      alice.exchangeSubjectToken({
        subjectToken: again,
        resource: ORDERS,
        actorToken: await alice.getAccessToken(),
      }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
  });

  it('grants only the requested scopes the user holds; none of them is invalid_scope', async () => {
    const agent = createClient(consoleOptions(world));
    const wide = await agent.exchangeSubjectToken({
      subjectToken: await mintSubjectToken(world, { userId: world.users.alice }),
      resource: ORDERS,
      scopes: ['read:orders', 'write:orders'],
    });
    expect(wide.scopes).toEqual(['read:orders']);
    await expect(
      agent.exchangeSubjectToken({
        subjectToken: await mintSubjectToken(world, { userId: world.users.alice }),
        resource: ORDERS,
        scopes: ['write:orders'],
      }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  it('exchanges a personal access token with its token type', async () => {
    const res = await fetch(`${world.baseUrl}/api/users/${world.users.alice}/personal-access-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await adminToken(world)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'laptop', scopes: ['read:billing'] }),
    });
    expect(res.status).toBe(201);
    const { value } = (await res.json()) as { value: string };
    const result = await createClient(consoleOptions(world)).exchangeSubjectToken({
      subjectToken: value,
      subjectTokenType: PERSONAL_ACCESS_TOKEN_TYPE,
      resource: BILLING,
    });
    const auth = await verify(result.accessToken, BILLING);
    expect([auth.subject, auth.actor, auth.scopes]).toEqual([world.users.alice, undefined, ['read:billing']]);
  });
});
