/**
 * Access tokens per resource against the real issuer: audience and scopes (validated with
 * @gatehouse/core), cache hits that send nothing, shared concurrent requests, serialized refreshes
 * (rotation), refresh after expiry, and the end of the session on `invalid_grant`.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createClient,
  createMemoryStorage,
  NotSignedInError,
  OAuthResponseError,
  ServerResponseError,
  UnknownResourceError,
} from '../src/index.js';
import { consoleOptions, signedInClient } from './helpers/sign-in.js';
import { type StubIssuer, startStubIssuer } from './helpers/stub-issuer.js';
import { BILLING, ORDERS, startWorld, type World } from './helpers/world.js';

let world: World;
let stub: StubIssuer;
const verify = (token: string, audience: string) =>
  createVerifier({ issuer: `${world.baseUrl}/oidc`, audience, strict: true }).verify(token);

beforeAll(async () => {
  [world, stub] = await Promise.all([startWorld(), startStubIssuer()]);
});
afterAll(async () => {
  await Promise.all([world?.close(), stub?.close()]);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('getAccessToken(resource)', () => {
  it('returns a token bound to each resource, with that resource’s scopes', async () => {
    const client = await signedInClient(world);
    const orders = await verify(await client.getAccessToken(ORDERS), ORDERS);
    const billing = await verify(await client.getAccessToken(BILLING), BILLING);
    expect(orders.claims.aud).toBe(ORDERS);
    expect(orders.scopes).toEqual(['read:orders']);
    expect(billing.claims.aud).toBe(BILLING);
    expect(billing.scopes).toEqual(['read:billing']);
    expect(orders.clientId).toBe('console');
    expect(billing.subject).toBe(world.users.alice);
  });

  it('serves a valid token from memory without any request', async () => {
    const client = await signedInClient(world);
    const first = await client.getAccessToken(ORDERS);
    const seen = world.seen.length;
    for (let i = 0; i < 5; i++) expect(await client.getAccessToken(ORDERS)).toBe(first);
    expect(world.seen.length).toBe(seen);
  });

  it('shares one request between concurrent calls for the same resource', async () => {
    const client = await signedInClient(world);
    const before = world.tokenRequests();
    const tokens = await Promise.all(Array.from({ length: 5 }, () => client.getAccessToken(BILLING)));
    expect(new Set(tokens).size).toBe(1);
    expect(world.tokenRequests()).toBe(before + 1);
  });

  it('shares one failing request too: concurrent callers get the same error, the issuer sees one request', async () => {
    const storage = createMemoryStorage();
    storage.setItem(
      'gatehouse:console:session',
      JSON.stringify({ refreshToken: 'rt', idToken: 'x.y.z', claims: { iss: stub.issuer, sub: 'usr_1' } }),
    );
    const client = createClient({
      ...consoleOptions(world),
      endpoint: undefined,
      issuer: stub.issuer,
      storage,
    });
    stub.requests.length = 0;
    stub.answerToken({ status: 503, body: { error: 'temporarily_unavailable' } });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => client.getAccessToken(ORDERS)));
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]!.form.get('resource')).toBe(ORDERS);
    expect(stub.requests[0]!.form.get('refresh_token')).toBe('rt');
    const reasons = results.map((r) => (r.status === 'rejected' ? r.reason : undefined));
    expect(reasons[0]).toBeInstanceOf(ServerResponseError);
    expect(reasons[0]).toMatchObject({ error: 'server_error', status: 503 });
    for (const reason of reasons) expect(reason).toBe(reasons[0]);
    // A transient failure does not end the session.
    expect(await client.isAuthenticated()).toBe(true);
  });

  it('serializes refreshes for different resources, so rotation never replays a refresh token', async () => {
    const client = await signedInClient(world);
    const before = world.tokenRequests();
    const [orders, billing, oidc] = await Promise.all([
      client.getAccessToken(ORDERS),
      client.getAccessToken(BILLING),
      client.getAccessToken(),
    ]);
    expect(world.tokenRequests()).toBe(before + 2); // the OpenID token came with the sign-in
    expect((await verify(orders, ORDERS)).claims.aud).toBe(ORDERS);
    expect((await verify(billing, BILLING)).claims.aud).toBe(BILLING);
    expect(oidc.split('.')).toHaveLength(1); // opaque userinfo token
    // The grant is intact: a later refresh still works.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
    expect((await verify(await client.getAccessToken(ORDERS), ORDERS)).scopes).toEqual(['read:orders']);
  });

  it('refreshes a token once it is within the expiry leeway, and keeps the others', async () => {
    const client = await signedInClient(world);
    const orders = await client.getAccessToken(ORDERS); // 3600 s
    const billing = await client.getAccessToken(BILLING); // 600 s
    const before = world.tokenRequests();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 569_000 });
    expect(await client.getAccessToken(BILLING)).toBe(billing);
    expect(world.tokenRequests()).toBe(before);
    vi.setSystemTime(Date.now() + 2_000); // 571 s: inside the 30 s leeway of the 600 s token
    const renewed = await client.getAccessToken(BILLING);
    expect(renewed).not.toBe(billing);
    expect(world.tokenRequests()).toBe(before + 1);
    expect((await verify(renewed, BILLING)).scopes).toEqual(['read:billing']);
    expect(await client.getAccessToken(ORDERS)).toBe(orders);
    expect(world.tokenRequests()).toBe(before + 1);
  });

  it('honours expiryLeeway', async () => {
    const client = await signedInClient(world, { expiryLeeway: 0 });
    const billing = await client.getAccessToken(BILLING);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 599_000 });
    expect(await client.getAccessToken(BILLING)).toBe(billing);
  });

  it('refuses an unconfigured resource before any request', async () => {
    const client = await signedInClient(world);
    const seen = world.seen.length;
    const err = await client.getAccessToken('https://orders.example.com/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownResourceError);
    expect(err).toMatchObject({ error: 'invalid_target', resource: 'https://orders.example.com/' });
    await expect(client.getAccessToken(42 as never)).rejects.toThrow(TypeError);
    expect(world.seen.length).toBe(seen);
  });

  it('is NotSignedInError (login_required) before sign-in, without any request', async () => {
    const client = createClient(consoleOptions(world));
    const seen = world.seen.length;
    const err = await client.getAccessToken(ORDERS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotSignedInError);
    expect((err as NotSignedInError).error).toBe('login_required');
    expect(world.seen.length).toBe(seen);
  });

  it('ends the session on invalid_grant (the user was suspended)', async () => {
    const storage = createMemoryStorage();
    const client = await signedInClient(world, { storage }, 'agent', 'agent passphrase 0123456789');
    await world.issuer.store.users.update(world.users.agent, { suspended: true }, Date.now());
    try {
      const err = await client.getAccessToken(ORDERS).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OAuthResponseError);
      expect(err).toMatchObject({ error: 'invalid_grant', status: 400, endpoint: 'token' });
      expect(await client.isAuthenticated()).toBe(false);
      expect(storage.size).toBe(0);
      await expect(client.getAccessToken(ORDERS)).rejects.toBeInstanceOf(NotSignedInError);
    } finally {
      await world.issuer.store.users.update(world.users.agent, { suspended: false }, Date.now());
    }
  });

  it('discards a refresh that completes after sign-out', async () => {
    const client = await signedInClient(world);
    const pending = client.getAccessToken(ORDERS);
    await client.signOut({ redirect: false });
    await expect(pending).rejects.toBeInstanceOf(NotSignedInError);
    expect(await client.isAuthenticated()).toBe(false);
  });

  it('keeps the session in the chosen storage: a second client on it gets tokens (a page reload)', async () => {
    const storage = createMemoryStorage();
    await signedInClient(world, { storage });
    const reloaded = createClient(consoleOptions(world, { storage }));
    expect(await reloaded.isAuthenticated()).toBe(true);
    expect((await verify(await reloaded.getAccessToken(ORDERS), ORDERS)).subject).toBe(world.users.alice);
  });
});
