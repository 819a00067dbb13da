/**
 * A server-side relying party under test (Auth.js, passport-openidconnect): an Express app on loopback
 * that signs users in with the CLI-started issuer and whose own server calls the orders API with the
 * signed-in user's access token; the issuer seeded with the app, the API, and Chromium to sign in.
 */
import type { RequestListener } from 'node:http';
import type { Express, Request } from 'express';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { startOrdersApi } from './api.js';
import { launchChromium } from './browser.js';
import { type Issuer, startIssuer } from './issuer.js';
import { type Listening, listen, type Teardown } from './servers.js';
import { ORDERS, type SeedApplication, seedDocument } from './world.js';

/** What {@link startRelyingPartyWorld} started. */
export interface RelyingPartyWorld {
  /** The app's server. */
  readonly rp: Listening;
  readonly issuer: Issuer;
  /** The orders API (@gatehouse/express). */
  readonly api: Listening;
  readonly browser: Browser;
}

/**
 * Start the app's server first (its URL is in the seeded redirect URI; it answers 503 until the app
 * is built), the issuer seeded with `application(rpUrl)`, the orders API and Chromium; then build the
 * app with `app(world)`. Everything is added to `teardown`; on a failure, `teardown` is run here.
 */
export async function startRelyingPartyWorld(
  teardown: Teardown,
  application: (rpUrl: string) => SeedApplication,
  app: (world: RelyingPartyWorld) => RequestListener,
): Promise<RelyingPartyWorld> {
  let handler: RequestListener | undefined;
  try {
    const rp = teardown.add(
      await listen((req, res) => (handler === undefined ? res.writeHead(503).end() : handler(req, res))),
      (s) => s.close(),
    );
    const issuer = teardown.add(await startIssuer({ seed: () => seedDocument([application(rp.url)]) }), (i) =>
      i.close(),
    );
    const api = teardown.add(await startOrdersApi(issuer.issuer, ORDERS), (s) => s.close());
    const browser = teardown.add(await launchChromium(), (b) => b.close());
    const world = { rp, issuer, api, browser };
    handler = app(world);
    return world;
  } catch (err) {
    await teardown.run();
    throw err;
  }
}

/**
 * The app's own pages besides sign-in: `GET /my-orders`, where its server calls `GET {api}/orders` with
 * the signed-in user's access token (`accessToken` of the request; 401 `{ signedIn: false }` without
 * one) and answers what the API answered, and `GET /`, the page a sign-in lands on (`home`).
 */
export function addAppPages(
  app: Express,
  api: string,
  accessToken: (req: Request) => string | undefined | Promise<string | undefined>,
): void {
  app.get('/my-orders', async (req, res) => {
    const token = await accessToken(req);
    if (token === undefined) {
      res.status(401).json({ signedIn: false });
      return;
    }
    const answer = await fetch(`${api}/orders`, { headers: { authorization: `Bearer ${token}` } });
    res.status(answer.status).json(await answer.json());
  });
  app.get('/', (_req, res) => {
    res.type('text/plain').send('home');
  });
}

/** `/my-orders` of a signed-in page: the API accepted the user's token for `clientId` with `read:orders`. */
export async function expectMyOrders(
  page: Page,
  rpUrl: string,
  subject: string,
  clientId: string,
): Promise<void> {
  const orders = await page.goto(`${rpUrl}/my-orders`);
  expect(orders!.status()).toBe(200);
  expect(await orders!.json()).toMatchObject({ subject, clientId, scopes: ['read:orders'] });
}
