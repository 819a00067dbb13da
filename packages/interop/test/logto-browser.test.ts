/**
 * Logto's browser SDK (`@logto/browser`, bundled by esbuild) in Chromium, in a single-page app served
 * from its own loopback origin and registered as an SPA (a public client): sign-in with two resources
 * through the issuer's real sign-in page, `getAccessToken(resource)` for both from one refresh token
 * (cross-origin token requests: the issuer answers CORS for the app's registered origin), a call to the
 * @gatehouse/express API with the orders token, `fetchUserInfo`, `getIdTokenClaims`, and `signOut`
 * (the refresh token revoked by a cross-origin request, then the end-session page and back).
 */
import * as jose from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrdersApi } from './helpers/api.js';
import { launchChromium, signInOnPage } from './helpers/browser.js';
import { bundlePage, pageHtml } from './helpers/bundle.js';
import { type Issuer, startIssuer } from './helpers/issuer.js';
import { type Listening, listen, Teardown } from './helpers/servers.js';
import { BILLING, ORDERS, seedDocument } from './helpers/world.js';

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
let spa: Listening;
let browser: Browser;
let script: string | undefined;
/** Requests the issuer saw from the page, by path (recorded by the browser context). */
const issuerRequests: string[] = [];

beforeAll(async () => {
  try {
    script = await bundlePage('logto-browser');
    spa = teardown.add(
      await listen((req, res) => {
        const path = new URL(req.url ?? '/', 'http://spa').pathname;
        if (path === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
        else if (['/', '/callback', '/signed-out'].includes(path))
          res.writeHead(200, { 'content-type': 'text/html' }).end(
            pageHtml({
              endpoint: issuer.baseUrl,
              appId: 'logto-spa',
              resources: [ORDERS, BILLING],
              scopes: ['email', 'read:orders', 'read:billing'],
            }),
          );
        else res.writeHead(404).end();
      }),
      (s) => s.close(),
    );
    issuer = teardown.add(
      await startIssuer({
        seed: () =>
          seedDocument([
            {
              name: 'Logto SPA',
              type: 'SPA',
              clientId: 'logto-spa',
              redirectUris: [`${spa.url}/callback`],
              postLogoutRedirectUris: [`${spa.url}/signed-out`],
            },
          ]),
      }),
      (i) => i.close(),
    );
    api = teardown.add(await startOrdersApi(issuer.issuer, ORDERS), (s) => s.close());
    browser = teardown.add(await launchChromium(), (b) => b.close());
  } catch (err) {
    await teardown.run();
    throw err;
  }
});

afterAll(() => teardown.run());

describe('@logto/browser in Chromium', () => {
  it('signs in with two resources, gets both tokens from one refresh token, user info, claims; signs out', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      page.on('request', (request) => {
        if (request.url().startsWith(issuer.issuer))
          issuerRequests.push(`${request.method()} ${new URL(request.url()).pathname}`);
      });
      await page.goto(`${spa.url}/`);
      await page.waitForSelector('body[data-state=ready]', { state: 'attached' });
      void page.evaluate(`logto.signIn('${spa.url}/callback')`).catch(() => undefined);
      await signInOnPage(page, issuer.baseUrl, 'alice', `${spa.url}/callback`);
      await page.waitForSelector('body[data-state=signed-in]', { state: 'attached' });

      const result = (await page.evaluate(`(async () => {
        const orders = await logto.getAccessToken('${ORDERS}');
        const billing = await logto.getAccessToken('${BILLING}');
        const res = await fetch('${api.url}/orders', { headers: { authorization: 'Bearer ' + orders } });
        return {
          orders, billing,
          api: { status: res.status, body: await res.json() },
          userInfo: await logto.fetchUserInfo(),
          claims: await logto.getIdTokenClaims(),
        };
      })()`)) as { orders: string; billing: string; api: unknown; userInfo: unknown; claims: unknown };
      const alice = await issuer.userId('alice');
      expect(jose.decodeJwt(result.orders)).toMatchObject({ aud: ORDERS, sub: alice, scope: 'read:orders' });
      expect(jose.decodeJwt(result.billing)).toMatchObject({
        aud: BILLING,
        sub: alice,
        scope: 'read:billing',
      });
      expect(result.api).toEqual({
        status: 200,
        body: { subject: alice, clientId: 'logto-spa', actor: null, scopes: ['read:orders'], dpop: false },
      });
      expect(result.userInfo).toMatchObject({ sub: alice, email: 'alice@example.com' });
      expect(result.claims).toMatchObject({ iss: issuer.issuer, sub: alice, aud: 'logto-spa' });
      // One authorization code, then refresh-token grants (cross-origin, allowed by CORS) for the resources.
      expect(issuerRequests.filter((r) => r === 'POST /oidc/token').length).toBeGreaterThanOrEqual(3);
      expect(issuerRequests.filter((r) => r === 'GET /oidc/auth')).toHaveLength(1);

      const refreshToken = (await page.evaluate('logto.getRefreshToken()')) as string;
      void page.evaluate(`logto.signOut('${spa.url}/signed-out')`).catch(() => undefined);
      await page.waitForURL((url) => url.href.startsWith(`${issuer.issuer}/session/end`));
      expect(issuerRequests).toContain('POST /oidc/token/revocation');
      await page.click('button[name=logout]');
      await page.waitForURL(`${spa.url}/signed-out`);
      expect(await page.evaluate('logto.isAuthenticated()')).toBe(false);
      const refreshed = await fetch(`${issuer.issuer}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: 'logto-spa',
        }),
      });
      expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
    } finally {
      await context.close();
    }
  });
});
