/**
 * signIn() and handleSignInCallback(): the authentication request, where the pending sign-in is
 * kept, and every way a callback is refused — against the real issuer (form-post sign-in) and, for
 * ID-token checks that need a misbehaving issuer, a loopback stub.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createClient,
  createMemoryStorage,
  OAuthResponseError,
  ServerResponseError,
  SignInCallbackError,
} from '../src/index.js';
import { FormAgent } from './helpers/form-sign-in.js';
import { consoleOptions } from './helpers/sign-in.js';
import { type StubIssuer, startStubIssuer } from './helpers/stub-issuer.js';
import { BILLING, ORDERS, PASSWORD, REDIRECT, startWorld, WEB_SECRET, type World } from './helpers/world.js';

let world: World;
let stub: StubIssuer;

beforeAll(async () => {
  [world, stub] = await Promise.all([startWorld(), startStubIssuer()]);
});
afterAll(async () => {
  await Promise.all([world?.close(), stub?.close()]);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('signIn()', () => {
  it('builds an authorization code + PKCE request listing every resource and scope', async () => {
    const storage = createMemoryStorage();
    const client = createClient(consoleOptions(world, { storage }));
    const url = await client.signIn({ loginHint: 'alice' });
    expect(url.origin + url.pathname).toBe(`${world.baseUrl}/oidc/auth`);
    const p = url.searchParams;
    expect(p.get('client_id')).toBe('console');
    expect(p.get('redirect_uri')).toBe(REDIRECT);
    expect(p.get('response_type')).toBe('code');
    expect(p.get('scope')).toBe('openid offline_access read:orders read:billing');
    expect(p.getAll('resource')).toEqual([ORDERS, BILLING]);
    expect(p.get('code_challenge_method')).toBe('S256');
    expect(p.get('prompt')).toBe('consent');
    expect(p.get('login_hint')).toBe('alice');
    expect(p.get('state')).toMatch(/^[\w-]{22,}$/);
    expect(p.get('nonce')).toMatch(/^[\w-]{22,}$/);
    // The verifier, state and nonce wait in the chosen storage; the challenge is S256 of the verifier.
    const pending = JSON.parse(String(await storage.getItem('gatehouse:console:sign-in')));
    expect(pending.state).toBe(p.get('state'));
    expect(pending.nonce).toBe(p.get('nonce'));
    expect(createHash('sha256').update(pending.codeVerifier).digest('base64url')).toBe(
      p.get('code_challenge'),
    );
    expect(pending.codeVerifier.length).toBeGreaterThanOrEqual(43);
  });

  it('does not navigate outside a browser; in a page it assigns location unless redirect: false', async () => {
    const client = createClient(consoleOptions(world, { storage: createMemoryStorage() }));
    const assign = vi.fn();
    await client.signIn();
    expect(assign).not.toHaveBeenCalled();
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { href: 'http://127.0.0.1:8976/', assign });
    const url = await client.signIn();
    expect(assign).toHaveBeenCalledExactlyOnceWith(url.href);
    await client.signIn({ redirect: false });
    expect(assign).toHaveBeenCalledTimes(1);
  });

  it("refuses to navigate away with 'memory' storage, which would lose the pending sign-in", async () => {
    const client = createClient(consoleOptions(world));
    const assign = vi.fn();
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { href: 'http://127.0.0.1:8976/', assign });
    await expect(client.signIn()).rejects.toThrow(/storage: 'sessionStorage'/);
    expect(assign).not.toHaveBeenCalled();
    expect((await client.signIn({ redirect: false })).searchParams.get('state')).toBeTruthy();
  });

  it('checks its options', async () => {
    const client = createClient(consoleOptions(world));
    await expect(client.signIn({ redirect: 'yes' } as never)).rejects.toThrow('"redirect"');
    await expect(client.signIn({ loginHint: '' })).rejects.toThrow('"loginHint"');
  });
});

describe('handleSignInCallback()', () => {
  it('completes a sign-in started by another client instance on the same storage (redirect, reload)', async () => {
    const storage = createMemoryStorage();
    const url = await createClient(consoleOptions(world, { storage })).signIn();
    const callback = await new FormAgent().signIn(url, REDIRECT, 'alice', PASSWORD);
    const client = createClient(consoleOptions(world, { storage }));
    const claims = await client.handleSignInCallback(new URL(callback));
    expect(claims).toMatchObject({ sub: world.users.alice, iss: `${world.baseUrl}/oidc`, aud: 'console' });
    expect(await client.getIdTokenClaims()).toEqual(claims);
    expect(await storage.getItem('gatehouse:console:sign-in')).toBeNull();
  });

  it('signs in a confidential client with its secret', async () => {
    const client = createClient(consoleOptions(world, { clientId: 'web', clientSecret: WEB_SECRET }));
    const callback = await new FormAgent().signIn(await client.signIn(), REDIRECT, 'alice', PASSWORD);
    await client.handleSignInCallback(callback);
    expect(await client.isAuthenticated()).toBe(true);
  });

  it('accepts a callback only once', async () => {
    const client = createClient(consoleOptions(world));
    const callback = await new FormAgent().signIn(await client.signIn(), REDIRECT, 'alice', PASSWORD);
    await client.handleSignInCallback(callback);
    const err = await client.handleSignInCallback(callback).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignInCallbackError);
    expect(err).toMatchObject({ reason: 'no_pending_sign_in', error: 'invalid_request' });
  });

  it('refuses a callback with another state and keeps the pending sign-in', async () => {
    const client = createClient(consoleOptions(world));
    const url = await client.signIn();
    const agent = new FormAgent();
    const callback = new URL(await agent.signIn(url, REDIRECT, 'alice', PASSWORD));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'attacker-state');
    const err = await client.handleSignInCallback(forged).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'state_mismatch' });
    // The genuine callback still completes.
    await client.handleSignInCallback(callback);
    expect(await client.isAuthenticated()).toBe(true);
  });

  it('refuses a callback for another issuer (RFC 9207 mix-up) or another redirect URI', async () => {
    const client = createClient(consoleOptions(world));
    const state = (await client.signIn()).searchParams.get('state')!;
    const other = new URL(REDIRECT);
    other.search = new URLSearchParams({ code: 'c', state, iss: 'https://evil.example.com/oidc' }).toString();
    await expect(client.handleSignInCallback(other)).rejects.toMatchObject({ reason: 'invalid_callback' });
    const state2 = (await client.signIn()).searchParams.get('state')!;
    const path = new URL('http://127.0.0.1:8976/elsewhere');
    path.search = new URLSearchParams({ code: 'c', state: state2, iss: `${world.baseUrl}/oidc` }).toString();
    await expect(client.handleSignInCallback(path)).rejects.toMatchObject({ reason: 'invalid_callback' });
    await expect(client.handleSignInCallback('not a url')).rejects.toMatchObject({
      reason: 'invalid_callback',
    });
    expect(await client.isAuthenticated()).toBe(false);
  });

  it('turns an error redirect (the user cancelled) into an OAuthResponseError', async () => {
    const client = createClient(consoleOptions(world));
    const state = (await client.signIn()).searchParams.get('state')!;
    const callback = new URL(REDIRECT);
    callback.search = new URLSearchParams({
      error: 'access_denied',
      error_description: 'End-User aborted interaction',
      state,
      iss: `${world.baseUrl}/oidc`,
    }).toString();
    const err = await client.handleSignInCallback(callback).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect(err).toMatchObject({ error: 'access_denied', endpoint: 'authorization', status: undefined });
  });

  it('needs the URL outside a browser, and reads location.href in a page', async () => {
    const client = createClient(consoleOptions(world));
    await expect(client.handleSignInCallback()).rejects.toThrow(TypeError);
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { href: `${REDIRECT}?code=x&state=y`, assign: vi.fn() });
    await expect(client.handleSignInCallback()).rejects.toMatchObject({ reason: 'no_pending_sign_in' });
  });
});

describe('ID token checks (stub issuer)', () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const idToken = (claims: Record<string, unknown>) =>
    `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.${Buffer.from('not checked').toString('base64url')}`;

  async function callbackWith(claims: (nonce: string) => Record<string, unknown>) {
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
    stub.answerToken({
      status: 200,
      body: {
        access_token: 'at',
        token_type: 'Bearer',
        expires_in: 60,
        refresh_token: 'rt',
        id_token: idToken({
          iss: stub.issuer,
          aud: 'console',
          sub: 'usr_1',
          iat: now,
          exp: now + 60,
          ...claims(url.searchParams.get('nonce')!),
        }),
      },
    });
    const callback = new URL(REDIRECT);
    callback.search = new URLSearchParams({
      code: 'c',
      state: url.searchParams.get('state')!,
      iss: stub.issuer,
    }).toString();
    const result = await client.handleSignInCallback(callback).catch((e: unknown) => e);
    return { result, client, storage };
  }

  it('accepts a matching ID token and sends the code with the PKCE verifier', async () => {
    stub.requests.length = 0;
    const { result, client } = await callbackWith((nonce) => ({ nonce }));
    expect(result).toMatchObject({ sub: 'usr_1' });
    const form = stub.requests.at(-1)!.form;
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('code')).toBe('c');
    expect(form.get('redirect_uri')).toBe(REDIRECT);
    expect(form.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
    expect(form.get('resource')).toBeNull();
    expect(await client.getAccessToken()).toBe('at');
  });

  it.each([
    ['another nonce', (_nonce: string) => ({ nonce: 'replayed' })],
    ['no nonce', (_nonce: string) => ({})],
    ['another audience', (nonce: string) => ({ nonce, aud: 'other-client' })],
    ['another issuer', (nonce: string) => ({ nonce, iss: 'https://evil.example.com/oidc' })],
    ['an expired token', (nonce: string) => ({ nonce, exp: Math.floor(Date.now() / 1000) - 3600 })],
  ])('refuses an ID token with %s and stores no session', async (_label, claims) => {
    const { result, client, storage } = await callbackWith(claims);
    expect(result).toBeInstanceOf(ServerResponseError);
    expect((result as ServerResponseError).error).toBe('server_error');
    expect(await client.isAuthenticated()).toBe(false);
    expect(await storage.getItem('gatehouse:console:session')).toBeNull();
  });
});
