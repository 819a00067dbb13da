/**
 * DPoP in the browser build, in Chromium (playwright-core): a page signs in with `dpop: true`, its
 * tokens are bound to a non-extractable key kept in IndexedDB, `client.fetch()` calls a real loopback
 * API protected by `@gatehouse/core` (and retries once when that API requires a nonce), a reload keeps
 * the key (so the refresh token bound to it still works), and an impersonation exchange gives a bound
 * token. The same tokens replayed from outside the page — as Bearer, or with another key — are refused.
 */
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../src/index.js';
import { startApi, type TestApi } from '../helpers/api.js';
import { type BrowserWorld, openPage, startBrowserWorld, status } from '../helpers/browser.js';
import type { PageServer } from '../helpers/page-server.js';
import { AGENT_PASSWORD, mintSubjectToken, ORDERS, type World } from '../helpers/world.js';

let setUp: BrowserWorld;
let world: World;
let app: PageServer;
let browser: Browser;
let api: TestApi;
let nonceApi: TestApi;

/** What the page exposes (the test's tsconfig has no DOM types). */
interface PageGlobals {
  gatehouse: Client;
  sessionStorage: Record<string, string>;
  indexedDB: {
    open(name: string): {
      onsuccess: (() => void) | null;
      result: {
        transaction(store: string): {
          objectStore(store: string): {
            getAll(): {
              onsuccess: (() => void) | null;
              result: Array<{ privateKey: { extractable: boolean } }>;
            };
          };
        };
      };
    };
  };
}

const claimsOf = (jwt: string): Record<string, any> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

beforeAll(async () => {
  setUp = await startBrowserWorld(
    { name: 'DPoP console', clientId: 'dpop-console' },
    { resources: [ORDERS], scopes: ['read:orders'], dpop: true },
  );
  ({ browser, app, world } = setUp);
  api = await startApi(world.baseUrl, ORDERS, {}, app.origin);
  nonceApi = await startApi(world.baseUrl, ORDERS, { nonce: { secret: 'p'.repeat(32) } }, app.origin);
});

afterAll(async () => {
  await api?.close();
  await nonceApi?.close();
  await setUp?.close();
});

/** Run `fn` in the page with the page's client (Playwright serializes `fn`: it sees only its argument). */
const inPage = <T, A>(page: Page, fn: (arg: A) => Promise<T>, arg: A): Promise<T> =>
  page.evaluate(fn as never, arg) as Promise<T>;

describe('DPoP in the browser build (Chromium)', () => {
  it('binds tokens to a non-extractable key that survives a reload; client.fetch works, a thief does not', async () => {
    const { context, page, errors } = await openPage(browser);
    await page.goto(`${app.origin}/`);
    await expect.poll(() => status(page).textContent()).toBe('signed-out');
    await page.click('#sign-in');
    await page.waitForURL((url) => url.href.startsWith(`${world.baseUrl}/interaction/`));
    await page.fill('#identifier', 'agent');
    await page.fill('#password', AGENT_PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${app.origin}/`);
    await expect.poll(() => status(page).textContent()).toBe(`signed-in:${world.users.agent}`);

    const jkt = await inPage(
      page,
      () => (globalThis as unknown as PageGlobals).gatehouse.dpopThumbprint(),
      null,
    );
    const token = await inPage(
      page,
      (resource) => (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(resource),
      ORDERS,
    );
    expect(claimsOf(token).cnf).toEqual({ jkt });

    // The key pair is in IndexedDB, and its private key cannot be exported.
    const extractable = await page.evaluate(
      () =>
        new Promise<boolean[]>((resolve) => {
          const open = (globalThis as unknown as PageGlobals).indexedDB.open('gatehouse-client');
          open.onsuccess = () => {
            const all = open.result.transaction('dpop-keys').objectStore('dpop-keys').getAll();
            all.onsuccess = () => resolve(all.result.map((pair) => pair.privateKey.extractable));
          };
        }),
    );
    expect(extractable).toEqual([false]);

    // client.fetch: DPoP scheme and a proof; the API sees the key the token is bound to.
    const called = await inPage(
      page,
      async (url) => {
        const res = await (globalThis as unknown as PageGlobals).gatehouse.fetch(
          'https://orders.example.com',
          url,
        );
        return { status: res.status, body: (await res.json()) as { jkt: string } };
      },
      `${api.url}/orders`,
    );
    expect(called.status).toBe(200);
    expect(called.body.jkt).toBe(jkt);
    expect(api.seen.at(-1)).toMatchObject({ scheme: 'DPoP', proof: true });

    // A thief with a copy of the token: as Bearer, or under DPoP with their own key.
    expect((await fetch(`${api.url}/orders`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );
    const thief = oauth.DPoP({}, await oauth.generateKeyPair('ES256'));
    const stolen = await oauth
      .protectedResourceRequest(token, 'GET', new URL(`${api.url}/orders`), undefined, undefined, {
        DPoP: thief,
        [oauth.allowInsecureRequests]: true,
      })
      .catch((err: unknown) => (err as { response: Response }).response);
    expect(stolen.status).toBe(401);

    // An API requiring nonces: one 401 use_dpop_nonce, one retry, 200.
    const before = nonceApi.seen.length;
    const withNonce = await inPage(
      page,
      async (url) =>
        (await (globalThis as unknown as PageGlobals).gatehouse.fetch('https://orders.example.com', url))
          .status,
      `${nonceApi.url}/orders`,
    );
    expect(withNonce).toBe(200);
    expect(nonceApi.seen.slice(before).map((seen) => seen.status)).toEqual([401, 200]);

    // Nothing of the key in sessionStorage.
    const stored = await page.evaluate(() =>
      Object.values((globalThis as unknown as PageGlobals).sessionStorage).join(' '),
    );
    expect(stored).not.toContain('"d"');

    // A reload keeps the key: the stored refresh token (bound to it) still gets tokens, bound to it.
    await page.reload();
    await expect.poll(() => status(page).textContent()).toBe(`signed-in:${world.users.agent}`);
    expect(
      await inPage(page, () => (globalThis as unknown as PageGlobals).gatehouse.dpopThumbprint(), null),
    ).toBe(jkt);
    const refreshed = await inPage(
      page,
      (resource) => (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(resource),
      ORDERS,
    );
    expect(refreshed).not.toBe(token);
    expect(claimsOf(refreshed).cnf).toEqual({ jkt });

    // Impersonation: the exchange's proof binds the impersonation token to the same key.
    const subjectToken = await mintSubjectToken(world, {
      userId: world.users.alice,
      actorId: world.users.agent,
    });
    const exchanged = await inPage(
      page,
      async ([subject, url]) => {
        const client = (globalThis as unknown as PageGlobals).gatehouse;
        const result = await client.exchangeSubjectToken({
          subjectToken: subject,
          resource: 'https://orders.example.com',
          actorToken: await client.getAccessToken(),
        });
        const res = await client.fetch({ accessToken: result.accessToken }, url);
        return { result, status: res.status, body: await res.json() };
      },
      [subjectToken, `${api.url}/orders`] as const,
    );
    expect(exchanged.result.tokenType.toLowerCase()).toBe('dpop');
    expect(claimsOf(exchanged.result.accessToken).cnf).toEqual({ jkt });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ sub: world.users.alice, act: { sub: world.users.agent }, jkt });
    expect(errors).toEqual([]);
    await context.close();
  });
});
