/**
 * The set-up the browser tests share: the browser bundles built, headless Chromium (playwright-core) launched,
 * the page server started, a real issuer seeded with the page's application, and the page's client
 * configuration served; plus a page that records its uncaught errors, and the page's status line.
 */
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { buildBrowserBundles, type PageServer, startPageServer } from './page-server.js';
import { startWorld, type World } from './world.js';

/** The Chromium binary: `CHROMIUM_PATH`, else the system's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, sandbox-free (containers), and quiet: nothing but loopback traffic. */
const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]);

/** The page's application, as the issuer is seeded with it. */
export interface PageApplication {
  readonly name: string;
  readonly clientId: string;
  /** Register `${origin}/signed-out` as post-logout redirect URI, and configure the client with it. */
  readonly signOut?: boolean;
}

/** What {@link startBrowserWorld} started. */
export interface BrowserWorld {
  readonly browser: Browser;
  readonly app: PageServer;
  readonly world: World;
  /** Close the browser, the page server and the issuer. */
  close(): Promise<void>;
}

/**
 * Build the bundles and launch Chromium (in parallel), start the page server and an issuer seeded with
 * `application`, and serve the page a client configuration for it: the issuer's endpoint, the
 * application's client id and redirect URIs, then `config` (resources, scopes, `dpop`…).
 *
 * @example
 * ```ts
 * ({ browser, app, world } = await startBrowserWorld(
 *   { name: 'Payments', clientId: 'payments-spa' },
 *   { resources: [ORDERS], scopes: ['read:orders'] },
 * ));
 * ```
 */
export async function startBrowserWorld(
  application: PageApplication,
  config: Record<string, unknown>,
): Promise<BrowserWorld> {
  const [bundles, browser] = await Promise.all([
    buildBrowserBundles(),
    chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] }),
  ]);
  let app: PageServer | undefined;
  try {
    app = await startPageServer(bundles);
    const world = await startWorld([
      {
        name: application.name,
        clientId: application.clientId,
        redirectUris: [`${app.origin}/callback`],
        ...(application.signOut ? { postLogoutRedirectUris: [`${app.origin}/signed-out`] } : {}),
      },
    ]);
    app.config = {
      endpoint: world.baseUrl,
      allowInsecureRequests: true,
      clientId: application.clientId,
      redirectUri: `${app.origin}/callback`,
      ...(application.signOut ? { postLogoutRedirectUri: `${app.origin}/signed-out` } : {}),
      ...config,
    };
    const page = app;
    return {
      browser,
      app: page,
      world,
      async close() {
        await browser.close();
        await page.close();
        await world.close();
      },
    };
  } catch (error) {
    await browser.close();
    await app?.close();
    throw error;
  }
}

/**
 * A page in a fresh browser context, with the messages of its uncaught errors in `errors`.
 *
 * @example
 * ```ts
 * const { context, page, errors } = await openPage(browser);
 * // …
 * expect(errors).toEqual([]);
 * await context.close();
 * ```
 */
export async function openPage(
  browser: Browser,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}

/**
 * The app page's status line (`loading`, `signed-out`, `signed-in:<sub>` or `error:…`).
 *
 * @example
 * ```ts
 * await expect.poll(() => status(page).textContent()).toBe('signed-out');
 * ```
 */
export const status = (page: Page): Locator => page.locator('#status');
