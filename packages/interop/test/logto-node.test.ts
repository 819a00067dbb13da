/**
 * Logto's Node SDK (`@logto/node`) in an Express app on loopback, once as a confidential client
 * (`appSecret`: HTTP Basic on every request to the issuer) and once as a public one: sign-in with two
 * resources through the issuer's real sign-in page in Chromium, `getAccessToken(resource)` for both
 * resources from one refresh token (each a refresh-token grant with `resource`), the orders token used
 * at the @gatehouse/express API, `fetchUserInfo`, `getIdTokenClaims`, and `signOut` (the refresh token
 * revoked, then the issuer's end-session page back to a registered post-logout URI).
 *
 * Settings Logto needs: `endpoint` is the issuer's base URL (Logto appends `/oidc/.well-known/…`, which
 * is where Gatehouse's issuer is), `resources` for the APIs, and the resources' scopes in `scopes`.
 */

import LogtoClient from '@logto/node';
import express from 'express';
import * as jose from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOrders, startOrdersApi } from './helpers/api.js';
import { launchChromium, signInOnPage } from './helpers/browser.js';
import { type Issuer, startIssuer } from './helpers/issuer.js';
import { type Listening, listen, Teardown } from './helpers/servers.js';
import { BILLING, ORDERS, secretFor, seedDocument } from './helpers/world.js';

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
let browser: Browser;
/** The two apps: confidential and public, each on its own origin. */
const apps = {} as Record<'confidential' | 'public', { server: Listening; handler?: express.Express }>;
/** The refresh token each app held before signing out (the test checks it is revoked). */
const lastRefreshToken: Record<string, string | null> = {};

/** A Node app using @logto/node, with a cookie session holding Logto's storage. */
function logtoApp(kind: 'confidential' | 'public', origin: string): express.Express {
  const sessions = new Map<string, Map<string, string>>();
  const app = express();
  const clientOf = (req: express.Request, res: express.Response) => {
    let sid = /(?:^|; )sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (sid === undefined || !sessions.has(sid)) {
      sid = crypto.randomUUID();
      sessions.set(sid, new Map());
      res.cookie('sid', sid, { httpOnly: true, sameSite: 'lax' });
    }
    const store = sessions.get(sid)!;
    const navigation = { to: undefined as string | undefined };
    const client = new LogtoClient(
      {
        endpoint: issuer.baseUrl,
        appId: `logto-node-${kind}`,
        ...(kind === 'confidential' ? { appSecret: secretFor('logto-node') } : {}),
        resources: [ORDERS, BILLING],
        scopes: ['email', 'read:orders', 'read:billing'],
      },
      {
        storage: {
          getItem: async (key) => store.get(key) ?? null,
          setItem: async (key, value) => {
            store.set(key, value);
          },
          removeItem: async (key) => {
            store.delete(key);
          },
        },
        navigate: (url) => {
          navigation.to = url;
        },
      },
    );
    return { client, navigation };
  };
  app.get('/sign-in', async (req, res) => {
    const { client, navigation } = clientOf(req, res);
    await client.signIn({ redirectUri: `${origin}/callback` });
    res.redirect(navigation.to!);
  });
  app.get('/callback', async (req, res) => {
    const { client } = clientOf(req, res);
    await client.handleSignInCallback(`${origin}${req.originalUrl}`);
    res.redirect('/');
  });
  app.get('/whoami', async (req, res) => {
    const { client } = clientOf(req, res);
    if (!(await client.isAuthenticated())) {
      res.status(401).json({ signedIn: false });
      return;
    }
    const refreshBefore = await client.getRefreshToken();
    const orders = await client.getAccessToken(ORDERS);
    const billing = await client.getAccessToken(BILLING);
    const refreshAfter = await client.getRefreshToken();
    const called = await callOrders(api.url, orders);
    res.json({
      claims: await client.getIdTokenClaims(),
      userInfo: await client.fetchUserInfo(),
      api: called,
      orders: jose.decodeJwt(orders),
      billing: jose.decodeJwt(billing),
      // Both tokens came from the refresh token of the sign-in (rotated on each use).
      refreshRotated: refreshBefore !== null && refreshAfter !== null && refreshBefore !== refreshAfter,
      // A second call for the same resource is answered from Logto's cache, without a request.
      cached: (await client.getAccessToken(ORDERS)) === orders,
    });
  });
  app.get('/sign-out', async (req, res) => {
    const { client, navigation } = clientOf(req, res);
    lastRefreshToken[kind] = await client.getRefreshToken();
    await client.signOut(`${origin}/signed-out`);
    res.redirect(navigation.to!);
  });
  app.get('/', (_req, res) => {
    res.type('text/plain').send('home');
  });
  app.get('/signed-out', (_req, res) => {
    res.type('text/plain').send('signed out');
  });
  return app;
}

beforeAll(async () => {
  try {
    for (const kind of ['confidential', 'public'] as const) {
      const entry: (typeof apps)[typeof kind] = {
        server: await listen((req, res) =>
          entry.handler === undefined ? res.writeHead(503).end() : entry.handler(req, res),
        ),
      };
      apps[kind] = teardown.add(entry, (e) => e.server.close());
    }
    issuer = teardown.add(
      await startIssuer({
        seed: () =>
          seedDocument([
            {
              name: 'Logto Node confidential',
              type: 'Traditional',
              clientId: 'logto-node-confidential',
              clientSecret: secretFor('logto-node'),
              redirectUris: [`${apps.confidential.server.url}/callback`],
              postLogoutRedirectUris: [`${apps.confidential.server.url}/signed-out`],
            },
            {
              name: 'Logto Node public',
              type: 'Native',
              clientId: 'logto-node-public',
              redirectUris: [`${apps.public.server.url}/callback`],
              postLogoutRedirectUris: [`${apps.public.server.url}/signed-out`],
            },
          ]),
      }),
      (i) => i.close(),
    );
    api = teardown.add(await startOrdersApi(issuer.issuer, ORDERS), (s) => s.close());
    for (const kind of ['confidential', 'public'] as const)
      apps[kind].handler = logtoApp(kind, apps[kind].server.url);
    browser = teardown.add(await launchChromium(), (b) => b.close());
  } catch (err) {
    await teardown.run();
    throw err;
  }
});

afterAll(() => teardown.run());

describe.each(['confidential', 'public'] as const)('@logto/node, %s client', (kind) => {
  it('signs in with two resources, gets a token for each from one refresh token, user info, claims; signs out', async () => {
    const origin = apps[kind].server.url;
    const appId = `logto-node-${kind}`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/sign-in`);
      await signInOnPage(page, issuer.baseUrl, 'alice', `${origin}/`);
      expect(await page.textContent('body')).toBe('home');

      const alice = await issuer.userId('alice');
      const whoami = await (await page.goto(`${origin}/whoami`))!.json();
      expect(whoami.claims).toMatchObject({ iss: issuer.issuer, sub: alice, aud: appId });
      expect(whoami.userInfo).toMatchObject({ sub: alice, email: 'alice@example.com' });
      expect(whoami.api).toMatchObject({ status: 200, body: { subject: alice, clientId: appId } });
      expect(whoami.orders).toMatchObject({ aud: ORDERS, scope: 'read:orders' });
      expect(whoami.billing).toMatchObject({ aud: BILLING, scope: 'read:billing' });
      expect(whoami.refreshRotated).toBe(true);
      expect(whoami.cached).toBe(true);

      // Sign out: Logto revokes the refresh token, then goes to the issuer's end-session page.
      await page.goto(`${origin}/sign-out`);
      await page.waitForURL((url) => url.href.startsWith(`${issuer.issuer}/session/end`));
      await page.click('button[name=logout]');
      await page.waitForURL(`${origin}/signed-out`);
      expect((await page.goto(`${origin}/whoami`))!.status()).toBe(401);
      const refreshToken = lastRefreshToken[kind];
      expect(refreshToken).toEqual(expect.any(String));
      const refreshed = await fetch(`${issuer.issuer}/token`, {
        method: 'POST',
        headers:
          kind === 'confidential'
            ? {
                authorization: `Basic ${Buffer.from(`${appId}:${secretFor('logto-node')}`).toString('base64')}`,
              }
            : {},
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken!,
          ...(kind === 'public' ? { client_id: appId } : {}),
        }),
      });
      expect(refreshed.status).toBe(400);
      expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
    } finally {
      await context.close();
    }
  });
});
