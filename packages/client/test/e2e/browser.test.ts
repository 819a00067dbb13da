/**
 * The browser build in Chromium (playwright-core): a plain HTML page loads the bundle, signs in
 * through the real issuer's sign-in page (authorization code + PKCE, state in sessionStorage across
 * the redirect), gets tokens for two resources (validated with @gatehouse/core in Node), serves
 * repeats from memory without requests, impersonates a customer by token exchange with and without
 * an actor token, survives a reload, and signs out: what the support console does.
 */
import { createVerifier } from '@gatehouse/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ClientModule from '../../src/index.js';
import type { Client, ClientError } from '../../src/index.js';
import { type BrowserWorld, openPage, startBrowserWorld, status } from '../helpers/browser.js';
import type { PageServer } from '../helpers/page-server.js';
import { AGENT_PASSWORD, BILLING, mintSubjectToken, ORDERS, type World } from '../helpers/world.js';

let setUp: BrowserWorld;
let world: World;
let app: PageServer;
let browser: Browser;

/** What the page exposes (the test's tsconfig has no DOM types). */
interface PageGlobals {
  gatehouse: Client;
  GatehouseClient: typeof ClientModule;
  sessionStorage: { readonly length: number } & Record<string, string>;
  localStorage: { readonly length: number };
}

beforeAll(async () => {
  setUp = await startBrowserWorld(
    { name: 'Support console', clientId: 'support-console', signOut: true },
    { resources: [ORDERS, BILLING], scopes: ['read:orders', 'read:billing'] },
  );
  ({ browser, app, world } = setUp);
});

afterAll(async () => {
  await setUp?.close();
});

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto(`${app.origin}/`);
  await expect.poll(() => status(page).textContent()).toBe('signed-out');
  await page.click('#sign-in');
  await page.waitForURL((url) => url.href.startsWith(`${world.baseUrl}/interaction/`));
  expect(await page.title()).toBe('Sign in');
  await page.fill('#identifier', username);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${app.origin}/`);
  await expect.poll(() => status(page).textContent()).toMatch(/^signed-in:/);
}

describe('browser build in Chromium', () => {
  it('signs in, gets tokens for two resources, impersonates, survives a reload and signs out', async () => {
    const { context, page, errors } = await openPage(browser);
    await signIn(page, 'agent', AGENT_PASSWORD);
    expect(await status(page).textContent()).toBe(`signed-in:${world.users.agent}`);

    const [orders, billing] = await page.evaluate(
      ([a, b]) =>
        Promise.all([
          (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(a),
          (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(b),
        ]),
      [ORDERS, BILLING] as const,
    );
    const issuer = `${world.baseUrl}/oidc`;
    const ordersAuth = await createVerifier({ issuer, audience: ORDERS, strict: true }).verify(orders);
    const billingAuth = await createVerifier({ issuer, audience: BILLING, strict: true }).verify(billing);
    expect([ordersAuth.claims.aud, ordersAuth.scopes, ordersAuth.subject]).toEqual([
      ORDERS,
      ['read:orders'],
      world.users.agent,
    ]);
    expect([billingAuth.claims.aud, billingAuth.scopes]).toEqual([BILLING, ['read:billing']]);
    expect(ordersAuth.clientId).toBe('support-console');

    // Repeats come from memory: the issuer sees nothing.
    const seen = world.seen.length;
    const again = await page.evaluate(
      ([a, b]) =>
        Promise.all([
          (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(a),
          (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(b),
        ]),
      [ORDERS, BILLING] as const,
    );
    expect(again).toEqual([orders, billing]);
    expect(world.seen.length).toBe(seen);

    // An unconfigured resource is a typed error, without a request.
    const unknown = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).gatehouse
        .getAccessToken('https://elsewhere.example.com')
        .catch((e: ClientError) => [e.name, e.reason, e.error]),
    );
    expect(unknown).toEqual(['UnknownResourceError', 'unknown_resource', 'invalid_target']);
    expect(world.seen.length).toBe(seen);

    // Impersonation: the backend mints subject tokens for the customer; the page exchanges them,
    // once without and once with the agent's own token as actor token.
    const plain = await mintSubjectToken(world, { userId: world.users.alice });
    const acting = await mintSubjectToken(world, { userId: world.users.alice, actorId: world.users.agent });
    const [withoutActor, withActor] = await page.evaluate(
      async ([plainToken, actingToken, a, b]) => {
        const client = (globalThis as unknown as PageGlobals).gatehouse;
        return [
          await client.exchangeSubjectToken({ subjectToken: plainToken, resource: a }),
          await client.exchangeSubjectToken({
            subjectToken: actingToken,
            resource: b,
            actorToken: await client.getAccessToken(),
          }),
        ];
      },
      [plain, acting, ORDERS, BILLING] as const,
    );
    const delegated = { allowDelegation: true };
    const asCustomer = await createVerifier({ issuer, audience: ORDERS, strict: true }).verify(
      withoutActor!.accessToken,
      delegated,
    );
    expect([asCustomer.subject, asCustomer.actor, asCustomer.scopes]).toEqual([
      world.users.alice,
      undefined,
      ['read:orders'],
    ]);
    expect(withoutActor!.expiresAt).toBeGreaterThan(Date.now());
    const asAgent = await createVerifier({ issuer, audience: BILLING, strict: true }).verify(
      withActor!.accessToken,
      delegated,
    );
    expect([asAgent.subject, asAgent.actor?.sub, asAgent.scopes]).toEqual([
      world.users.alice,
      world.users.agent,
      ['read:billing'],
    ]);
    // The agent's own tokens are still the agent's.
    expect(
      await page.evaluate((a) => (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(a), ORDERS),
    ).toBe(orders);

    // Session in sessionStorage (refresh token and ID token only), nothing in localStorage.
    const stored = await page.evaluate(() => {
      const { sessionStorage, localStorage } = globalThis as unknown as PageGlobals;
      return {
        session: Object.keys(sessionStorage),
        local: localStorage.length,
        values: Object.values(sessionStorage).join(' '),
      };
    });
    expect(stored.session).toEqual(['gatehouse:support-console:session']);
    expect(stored.local).toBe(0);
    expect(stored.values).not.toContain(orders);
    expect(stored.values).not.toContain(billing);
    expect(stored.values).not.toContain(withoutActor!.accessToken);
    expect(stored.values).not.toContain(withActor!.accessToken);

    // A reload keeps the session; tokens are obtained again with the stored refresh token.
    await page.reload();
    await expect.poll(() => status(page).textContent()).toBe(`signed-in:${world.users.agent}`);
    const before = world.tokenRequests();
    const reloaded = await page.evaluate(
      (a) => (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(a),
      ORDERS,
    );
    expect(world.tokenRequests()).toBe(before + 1);
    expect((await createVerifier({ issuer, audience: ORDERS }).verify(reloaded)).subject).toBe(
      world.users.agent,
    );

    // Sign-out ends the issuer session too (end-session page), and the local session.
    await page.click('#sign-out');
    await page.waitForURL((url) => url.href.startsWith(`${world.baseUrl}/oidc/session/end`));
    await page.click('button[type=submit]');
    await page.waitForURL(`${app.origin}/signed-out`);
    await expect.poll(() => status(page).textContent()).toBe('signed-out');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the classic-script build exposes GatehouseClient and builds an authorization URL', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.origin}/global.html`);
    const url = await page.evaluate(async (config) => {
      const client = (globalThis as unknown as PageGlobals).GatehouseClient.createClient(config as never);
      return (await client.signIn({ redirect: false })).href;
    }, app.config);
    const parsed = new URL(url);
    expect(parsed.origin + parsed.pathname).toBe(`${world.baseUrl}/oidc/auth`);
    expect(parsed.searchParams.getAll('resource')).toEqual([ORDERS, BILLING]);
    await page.close();
  });
});
