/**
 * `createClient()` end to end in Node against the real issuer on loopback: sign-in by form posts,
 * tokens for two resources (validated with @gatehouse/core), cache hits that send nothing, refresh
 * after expiry, sign-out.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, createMemoryStorage, NotSignedInError, UnknownResourceError } from '../src/index.js';
import { FormAgent } from './helpers/form-sign-in.js';
import { type StubIssuer, startStubIssuer } from './helpers/stub-issuer.js';
import { BILLING, ORDERS, PASSWORD, REDIRECT, startWorld, type World } from './helpers/world.js';

let world: World;
let stub: StubIssuer;

beforeAll(async () => {
  [world, stub] = await Promise.all([startWorld(), startStubIssuer()]);
});
afterAll(async () => {
  await Promise.all([world?.close(), stub?.close()]);
});
afterEach(() => {
  vi.useRealTimers();
});

function consoleClient() {
  return createClient({
    endpoint: world.baseUrl,
    allowInsecureRequests: true,
    clientId: 'console',
    redirectUri: REDIRECT,
    resources: [ORDERS, BILLING],
    scopes: ['read:orders', 'read:billing'],
  });
}

describe('sign-in and tokens per resource (Node)', () => {
  it('signs in by form posts and gets tokens for two resources with the right aud and scopes', async () => {
    const client = consoleClient();
    expect(await client.isAuthenticated()).toBe(false);
    const url = await client.signIn();
    expect(url.searchParams.getAll('resource')).toEqual([ORDERS, BILLING]);
    const callback = await new FormAgent().signIn(url, REDIRECT, 'alice', PASSWORD);
    const claims = await client.handleSignInCallback(callback);
    expect(claims.sub).toBe(world.users.alice);
    expect(await client.isAuthenticated()).toBe(true);

    const orders = await client.getAccessToken(ORDERS);
    const billing = await client.getAccessToken(BILLING);
    const issuer = `${world.baseUrl}/oidc`;
    const ordersAuth = await createVerifier({ issuer, audience: ORDERS, strict: true }).verify(orders);
    expect(ordersAuth.scopes).toEqual(['read:orders']);
    expect(ordersAuth.subject).toBe(world.users.alice);
    const billingAuth = await createVerifier({ issuer, audience: BILLING, strict: true }).verify(billing);
    expect(billingAuth.scopes).toEqual(['read:billing']);

    const before = world.tokenRequests();
    expect(await client.getAccessToken(ORDERS)).toBe(orders);
    expect(await client.getAccessToken(BILLING)).toBe(billing);
    expect(world.tokenRequests()).toBe(before);

    await expect(client.getAccessToken('https://elsewhere.example.com')).rejects.toBeInstanceOf(
      UnknownResourceError,
    );
    expect(world.tokenRequests()).toBe(before);

    await client.signOut();
    expect(await client.isAuthenticated()).toBe(false);
    await expect(client.getAccessToken(ORDERS)).rejects.toBeInstanceOf(NotSignedInError);
  });
});

describe('createClient()', () => {
  it('returns a frozen client describing its configuration, and fetches nothing until used', async () => {
    const seen = world.seen.length;
    const client = consoleClient();
    expect(Object.isFrozen(client)).toBe(true);
    expect(client.issuer).toBe(`${world.baseUrl}/oidc`);
    expect(client.clientId).toBe('console');
    expect(client.resources).toEqual([ORDERS, BILLING]);
    expect(await client.isAuthenticated()).toBe(false);
    expect(await client.getIdTokenClaims()).toBeUndefined();
    expect(world.seen.length).toBe(seen);
  });

  it('without a refresh token, a session lasts as long as its ID token and gives no API tokens', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const storage = createMemoryStorage();
    const client = createClient({
      issuer: stub.issuer,
      allowInsecureRequests: true,
      clientId: 'console',
      redirectUri: REDIRECT,
      resources: [ORDERS],
      scopes: [],
      storage,
    });
    const url = await client.signIn();
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: stub.issuer,
      aud: 'console',
      sub: 'usr_1',
      iat: now,
      exp: now + 300,
      nonce: url.searchParams.get('nonce'),
    };
    stub.answerToken({
      status: 200,
      body: {
        access_token: 'at',
        token_type: 'Bearer',
        expires_in: 60,
        id_token: `${b64({ alg: 'RS256' })}.${b64(claims)}.c2ln`,
      },
    });
    const callback = new URL(REDIRECT);
    callback.search = new URLSearchParams({
      code: 'c',
      state: url.searchParams.get('state')!,
      iss: stub.issuer,
    }).toString();
    await client.handleSignInCallback(callback);
    expect(await client.isAuthenticated()).toBe(true);
    expect((await client.getIdTokenClaims())?.sub).toBe('usr_1');
    const err = await client.getAccessToken(ORDERS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotSignedInError);
    expect((err as Error).message).toContain('no refresh token');
    vi.useFakeTimers({ toFake: ['Date'], now: (now + 301) * 1000 });
    expect(await client.isAuthenticated()).toBe(false);
  });
});
