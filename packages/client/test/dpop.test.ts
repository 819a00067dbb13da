/**
 * DPoP in the client, end to end in Node: a real issuer (sign-in, refresh, token exchange) and a real
 * loopback API protected by `@gatehouse/core` with DPoP. A thief replaying a bound token — as Bearer,
 * or under DPoP with their own key — is refused; an API requiring nonces gets one retry.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, DEFAULTS, NotSignedInError } from '../src/index.js';
import { startApi, type TestApi } from './helpers/api.js';
import { consoleOptions, signedInClient } from './helpers/sign-in.js';
import { mintSubjectToken, ORDERS, startWorld, type World } from './helpers/world.js';

const claimsOf = (jwt: string): Record<string, any> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

let world: World;
let api: TestApi;
let nonceApi: TestApi;

beforeAll(async () => {
  // The issuer requires nonces too, so every token request of these tests goes through the retry.
  world = await startWorld([], { dpop: { requireNonce: true } });
  api = await startApi(world.baseUrl, ORDERS);
  nonceApi = await startApi(world.baseUrl, ORDERS, { nonce: { secret: 'n'.repeat(32) } });
});
afterAll(async () => {
  await api?.close();
  await nonceApi?.close();
  await world?.close();
});

describe('options', () => {
  it('dpop: true uses the defaults; a typo or a bad value throws a TypeError naming it', () => {
    expect(DEFAULTS.dpop.algorithm).toBe('ES256');
    expect(Object.isFrozen(DEFAULTS.dpop)).toBe(true);
    expect(() => createClient(consoleOptions(world, { dpop: { algorthm: 'ES256' } as never }))).toThrow(
      'unknown option "dpop.algorthm" (did you mean "dpop.algorithm"?)',
    );
    expect(() => createClient({ ...consoleOptions(world), dpopp: true } as never)).toThrow(
      'unknown option "dpopp" (did you mean "dpop"?)',
    );
    expect(() => createClient(consoleOptions(world, { dpop: { algorithm: 'HS256' as never } }))).toThrow(
      /"dpop.algorithm" option must be one of ES256, EdDSA, PS256, RS256/,
    );
    expect(() => createClient(consoleOptions(world, { dpop: { keyPair: {} as never } }))).toThrow(
      /dpop.keyPair/,
    );
    expect(() => createClient(consoleOptions(world, { dpop: 'yes' as never }))).toThrow(/"dpop" option/);
  });
});

describe('DPoP sign-in and API calls (Node)', () => {
  it('a DPoP sign-in gives tokens bound to the client key; client.fetch calls the API with DPoP and a proof', async () => {
    const client = await signedInClient(world, { dpop: true });
    const jkt = await client.dpopThumbprint();
    expect(jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const token = await client.getAccessToken(ORDERS);
    expect(claimsOf(token).cnf).toEqual({ jkt });

    const res = await client.fetch(ORDERS, `${api.url}/orders?page=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'x' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { jkt: string; body: string };
    expect(body.jkt).toBe(jkt);
    expect(body.body).toBe('{"item":"x"}');
    expect(api.seen.at(-1)).toMatchObject({ scheme: 'DPoP', proof: true, status: 200 });
  });

  it('the same token replayed by a thief — as Bearer, or under DPoP with the thief’s key — is refused', async () => {
    const client = await signedInClient(world, { dpop: true });
    const token = await client.getAccessToken(ORDERS);
    const asBearer = await fetch(`${api.url}/orders`, { headers: { authorization: `Bearer ${token}` } });
    expect(asBearer.status).toBe(401);

    const thiefKey = await oauth.generateKeyPair('ES256');
    const thief = oauth.DPoP({}, thiefKey);
    const withThiefKey = await oauth
      .protectedResourceRequest(token, 'GET', new URL(`${api.url}/orders`), undefined, undefined, {
        DPoP: thief,
        [oauth.allowInsecureRequests]: true,
      })
      .catch((err: unknown) => (err as { response: Response }).response);
    expect(withThiefKey.status).toBe(401);
    expect(withThiefKey.headers.get('www-authenticate')).toContain('DPoP realm=');
    // The owner still gets in.
    expect((await client.fetch(ORDERS, `${api.url}/orders`)).status).toBe(200);
  });

  it('a refresh token stolen from a DPoP session is useless without the key', async () => {
    const storage = new Map<string, string>();
    const client = await signedInClient(world, {
      dpop: true,
      storage: {
        getItem: (key) => storage.get(key) ?? null,
        setItem: (key, value) => void storage.set(key, value),
        removeItem: (key) => void storage.delete(key),
      },
    });
    const session = [...storage.values()]
      .map((value) => JSON.parse(value))
      .find((value) => value.refreshToken);
    const res = await fetch(`${world.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: session.refreshToken,
        client_id: 'console',
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
    // The client itself refreshes with its key.
    expect(claimsOf(await client.getAccessToken(ORDERS)).cnf.jkt).toBe(await client.dpopThumbprint());
  });

  it('an API requiring nonces answers use_dpop_nonce once; client.fetch retries with its nonce and gets 200', async () => {
    const client = await signedInClient(world, { dpop: true });
    const before = nonceApi.seen.length;
    const res = await client.fetch(ORDERS, `${nonceApi.url}/orders`);
    expect(res.status).toBe(200);
    expect(nonceApi.seen.slice(before).map((seen) => seen.status)).toEqual([401, 200]);
    // The nonce is remembered per origin: the next call needs no retry.
    const again = nonceApi.seen.length;
    expect((await client.fetch(ORDERS, `${nonceApi.url}/orders`)).status).toBe(200);
    expect(nonceApi.seen.slice(again).map((seen) => seen.status)).toEqual([200]);
  });

  it('the issuer’s use_dpop_nonce is retried once at the first token request; the nonce is then reused', async () => {
    const tokenRequests = world.tokenRequests();
    const client = await signedInClient(world, { dpop: true });
    // Code redemption: one refused for the nonce, one accepted; then the refresh for ORDERS needs none.
    await client.getAccessToken(ORDERS);
    expect(world.tokenRequests() - tokenRequests).toBe(3);
  });

  it('exchangeSubjectToken binds the impersonation token to the client key; client.fetch uses it', async () => {
    const client = await signedInClient(world, { dpop: true }, 'agent', 'agent passphrase 0123456789');
    const subjectToken = await mintSubjectToken(world, {
      userId: world.users.alice,
      actorId: world.users.agent,
    });
    const result = await client.exchangeSubjectToken({
      subjectToken,
      resource: ORDERS,
      actorToken: await client.getAccessToken(),
    });
    expect(result.tokenType.toLowerCase()).toBe('dpop');
    const claims = claimsOf(result.accessToken);
    expect(claims.cnf).toEqual({ jkt: await client.dpopThumbprint() });
    expect(claims.act).toEqual({ sub: world.users.agent });
    const res = await client.fetch({ accessToken: result.accessToken }, `${api.url}/orders`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { sub: string }).sub).toBe(world.users.alice);
    // Stolen, it is useless as a Bearer token.
    const stolen = await fetch(`${api.url}/orders`, {
      headers: { authorization: `Bearer ${result.accessToken}` },
    });
    expect(stolen.status).toBe(401);
  });

  it('with dpop off, client.fetch sends Bearer and the tokens are unbound', async () => {
    const client = await signedInClient(world);
    expect(await client.dpopThumbprint()).toBeUndefined();
    const token = await client.getAccessToken(ORDERS);
    expect(claimsOf(token).cnf).toBeUndefined();
    const res = await client.fetch(ORDERS, `${api.url}/orders`);
    expect(res.status).toBe(200);
    expect(api.seen.at(-1)).toMatchObject({ scheme: 'Bearer', proof: false });
  });

  it('client.fetch refuses plain http: to a non-loopback host and a bad init body', async () => {
    const client = createClient(consoleOptions(world, { dpop: true }));
    await expect(client.fetch(ORDERS, 'http://api.example.com/orders')).rejects.toThrow(TypeError);
    await expect(client.fetch(ORDERS, 'not a url')).rejects.toThrow(TypeError);
    await expect(client.fetch({ accessToken: '' }, `${api.url}/orders`)).rejects.toThrow(TypeError);
  });

  it('a sign-out forgets the key: the next sign-in is bound to a new one', async () => {
    const client = await signedInClient(world, { dpop: true });
    const first = await client.dpopThumbprint();
    await client.signOut({ redirect: false });
    expect(await client.dpopThumbprint()).not.toBe(first);
    await expect(client.getAccessToken(ORDERS)).rejects.toBeInstanceOf(NotSignedInError);
  });
});
