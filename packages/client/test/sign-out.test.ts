/**
 * signOut(): local state is always cleared, the refresh token is revoked at the real issuer (so the
 * grant cannot be renewed anymore), and the end-session URL is built (and followed in a page).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, createMemoryStorage } from '../src/index.js';
import { consoleOptions, signedInClient } from './helpers/sign-in.js';
import { REDIRECT, startWorld, type World } from './helpers/world.js';

let world: World;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

async function refreshWith(refreshToken: string): Promise<{ status: number; error?: string }> {
  const res = await fetch(`${world.baseUrl}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: 'console',
    }),
  });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, ...(body.error === undefined ? {} : { error: body.error }) };
}

describe('signOut()', () => {
  it('forgets the session, revokes the refresh token and returns the end-session URL', async () => {
    const storage = createMemoryStorage();
    const client = await signedInClient(world, {
      storage,
      postLogoutRedirectUri: 'http://127.0.0.1:8976/',
    });
    const session = JSON.parse(String(await storage.getItem('gatehouse:console:session')));
    const url = await client.signOut();
    expect(url?.origin + url!.pathname).toBe(`${world.baseUrl}/oidc/session/end`);
    expect(url?.searchParams.get('client_id')).toBe('console');
    expect(url?.searchParams.get('id_token_hint')).toBe(session.idToken);
    expect(url?.searchParams.get('post_logout_redirect_uri')).toBe('http://127.0.0.1:8976/');
    expect(storage.size).toBe(0);
    expect(await client.isAuthenticated()).toBe(false);
    expect(await client.getIdTokenClaims()).toBeUndefined();
    expect(world.seen.some((r) => r.path === '/oidc/token/revocation')).toBe(true);
    expect(await refreshWith(session.refreshToken)).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('the end-session URL works at the issuer', async () => {
    const client = await signedInClient(world, { postLogoutRedirectUri: 'http://127.0.0.1:8976/' });
    const url = await client.signOut();
    const res = await fetch(url!, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<form');
  });

  it('takes postLogoutRedirectUri per call, and navigates in a page unless redirect: false', async () => {
    const assign = vi.fn();
    const client = await signedInClient(world);
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { href: REDIRECT, assign });
    const url = await client.signOut({ postLogoutRedirectUri: 'http://127.0.0.1:8976/bye' });
    expect(url?.searchParams.get('post_logout_redirect_uri')).toBe('http://127.0.0.1:8976/bye');
    expect(assign).toHaveBeenCalledExactlyOnceWith(url!.href);
    await client.signOut({ redirect: false });
    expect(assign).toHaveBeenCalledTimes(1);
    await expect(client.signOut({ postLogoutRedirectUri: '/relative' })).rejects.toThrow(TypeError);
  });

  it('signs out locally even when the issuer cannot be reached', async () => {
    const storage = createMemoryStorage();
    await signedInClient(world, { storage });
    // Same storage, an issuer address where nothing listens.
    const offline = createClient(
      consoleOptions(world, { storage, endpoint: 'http://127.0.0.1:9', timeout: 2_000 }),
    );
    expect(await offline.isAuthenticated()).toBe(true);
    expect(await offline.signOut()).toBeUndefined();
    expect(storage.size).toBe(0);
  });

  it('also drops a pending sign-in', async () => {
    const storage = createMemoryStorage();
    const client = createClient(consoleOptions(world, { storage }));
    await client.signIn();
    expect(storage.size).toBe(1);
    await client.signOut();
    expect(storage.size).toBe(0);
  });
});
