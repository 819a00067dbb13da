/**
 * oidc-client-ts (bundled by esbuild) in Chromium, in a single-page app on its own loopback origin,
 * registered as an SPA (a public client): `signinRedirect` / `signinRedirectCallback` through the
 * issuer's real sign-in page with a resource indicator (the token request is a cross-origin fetch:
 * the issuer answers CORS for the app's registered origins only), the access token used at the
 * @gatehouse/express API, silent renew (with the refresh token, and with a hidden iframe and
 * `prompt=none`), and `signoutRedirect` to the registered post-logout URI.
 *
 * Settings oidc-client-ts needs: `authority: {baseUrl}/oidc`, `resource` (authorization request) and
 * `extraTokenParams: { resource }` (token requests: without it the issuer answers with a userinfo
 * token), `scope` with `offline_access` and `prompt: 'consent'` for a refresh token, and
 * `loadUserInfo: false` (a resource token is not a userinfo token).
 */
import * as jose from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrdersApi } from './helpers/api.js';
import { launchChromium, signInOnPage } from './helpers/browser.js';
import { bundlePage, pageHtml } from './helpers/bundle.js';
import { type Issuer, startIssuer } from './helpers/issuer.js';
import { type Listening, listen, Teardown } from './helpers/servers.js';
import { ORDERS, seedDocument } from './helpers/world.js';

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
/** The app's origin (registered) and another origin that is not registered. */
let spa: Listening;
let stranger: Listening;
let browser: Browser;
/** The app's origin under the name localhost: same host, another site than 127.0.0.1. */
const crossSite = () => spa.url.replace('127.0.0.1', 'localhost');
let script: string | undefined;

function settings(origin: string) {
  return {
    authority: issuer.issuer,
    client_id: 'oidc-spa',
    redirect_uri: `${origin}/callback`,
    silent_redirect_uri: `${origin}/silent`,
    post_logout_redirect_uri: `${origin}/signed-out`,
    scope: 'openid profile offline_access read:orders',
    resource: ORDERS,
    prompt: 'consent',
    extraTokenParams: { resource: ORDERS },
    loadUserInfo: false,
    automaticSilentRenew: false,
  };
}

/** The app, configured for the origin it is reached at (127.0.0.1 or localhost). */
const app = () =>
  listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://spa').pathname;
    if (path === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (['/', '/callback', '/silent', '/signed-out'].includes(path))
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(pageHtml(settings(`http://${req.headers.host}`)));
    else res.writeHead(404).end();
  });

beforeAll(async () => {
  try {
    script = await bundlePage('oidc-client');
    spa = teardown.add(await app(), (s) => s.close());
    stranger = teardown.add(await app(), (s) => s.close());
    issuer = teardown.add(
      await startIssuer({
        seed: () =>
          seedDocument([
            {
              name: 'oidc-client-ts SPA',
              type: 'SPA',
              clientId: 'oidc-spa',
              // The same app also at http://localhost:<port>: another site than the issuer's 127.0.0.1.
              redirectUris: [spa.url, crossSite()].flatMap((origin) => [
                `${origin}/callback`,
                `${origin}/silent`,
              ]),
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

/** Wait until the page script says `state` (an `error: …` state fails at once). */
async function stateOf(page: Page, state: string): Promise<void> {
  const handle = await page.waitForFunction(
    `document.body && document.body.dataset.state && (document.body.dataset.state === '${state}' || document.body.dataset.state.startsWith('error')) && document.body.dataset.state`,
  );
  expect(await handle.jsonValue()).toBe(state);
}

/** The stored user's access token, and the API's answer to it (fetched by the page). */
async function callFromPage(page: Page): Promise<{ accessToken: string; status: number; body: unknown }> {
  return (await page.evaluate(`(async () => {
    const user = await manager.getUser();
    const res = await fetch('${api.url}/orders', { headers: { authorization: 'Bearer ' + user.access_token } });
    return { accessToken: user.access_token, status: res.status, body: await res.json() };
  })()`)) as { accessToken: string; status: number; body: unknown };
}

describe('oidc-client-ts in Chromium', () => {
  it('signs in with a resource, renews silently (refresh token, then iframe), signs out', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const tokenRequests: string[] = [];
      // Each token response's CORS grant (the fetch would fail without one).
      page.on('response', (response) => {
        if (response.url() === `${issuer.issuer}/token`)
          tokenRequests.push(response.headers()['access-control-allow-origin'] ?? '');
      });
      await page.goto(`${spa.url}/`);
      await stateOf(page, 'ready');
      void page.evaluate('manager.signinRedirect()').catch(() => undefined);
      await signInOnPage(page, issuer.baseUrl, 'alice', `${spa.url}/callback`);
      await stateOf(page, 'signed-in');
      // The code was exchanged by a cross-origin fetch, granted to the app's origin.
      expect(tokenRequests).toEqual([spa.url]);

      const alice = await issuer.userId('alice');
      const first = await callFromPage(page);
      expect(jose.decodeJwt(first.accessToken)).toMatchObject({
        aud: ORDERS,
        sub: alice,
        client_id: 'oidc-spa',
      });
      expect(first).toMatchObject({ status: 200, body: { subject: alice, scopes: ['read:orders'] } });

      // Silent renew with the refresh token (a cross-origin refresh-token grant with the resource).
      await page.evaluate('manager.signinSilent()');
      const renewed = await callFromPage(page);
      expect(renewed.accessToken).not.toBe(first.accessToken);
      expect(renewed.status).toBe(200);
      expect(tokenRequests).toHaveLength(2);

      // Silent renew without a refresh token: a hidden iframe, prompt=none on the issuer's session.
      await page.evaluate(`(async () => {
        const user = await manager.getUser();
        user.refresh_token = undefined;
        await manager.storeUser(user);
      })()`);
      await page.evaluate('manager.signinSilent()');
      const framed = await callFromPage(page);
      expect(framed.accessToken).not.toBe(renewed.accessToken);
      expect(framed.status).toBe(200);

      // Sign out: the end-session page, then back to the registered post-logout URI.
      void page.evaluate('manager.signoutRedirect()').catch(() => undefined);
      await page.waitForURL((url) => url.href.startsWith(`${issuer.issuer}/session/end`));
      await page.click('button[name=logout]');
      await page.waitForURL(`${spa.url}/signed-out`);
      await stateOf(page, 'ready');
      // The issuer's session is gone: a silent sign-in now fails with login_required.
      await page.evaluate('manager.removeUser()');
      const silent = await page.evaluate(
        `manager.signinSilent().then(() => 'renewed', (err) => err.error ?? err.message)`,
      );
      expect(silent).toBe('login_required');
    } finally {
      await context.close();
    }
  });

  it('the issuer grants CORS to the registered origin only', async () => {
    const cors = async (origin: string) =>
      (
        await fetch(`${issuer.issuer}/token`, {
          method: 'POST',
          headers: { origin },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: 'oidc-spa' }),
        })
      ).headers.get('access-control-allow-origin');
    expect(await cors(spa.url)).toBe(spa.url);
    expect(await cors(stranger.url)).toBeNull();

    // In the browser: the same request from a page of the unregistered origin is blocked.
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${stranger.url}/`);
      const outcome = await page.evaluate(`fetch('${issuer.issuer}/token', {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: 'oidc-spa' }),
      }).then((res) => 'answered ' + res.status, (err) => err.name)`);
      expect(outcome).toBe('TypeError');
      // And oidc-client-ts on that origin cannot even start: its redirect URI is not registered.
      const page2 = await context.newPage();
      await page2.goto(`${stranger.url}/`);
      await stateOf(page2, 'ready');
      void page2.evaluate('manager.signinRedirect()').catch(() => undefined);
      await page2.waitForURL((url) => url.href.startsWith(`${issuer.issuer}/auth`));
      expect(await page2.textContent('body')).toContain('redirect_uri');
    } finally {
      await context.close();
    }
  });

  it('iframe renewal needs the issuer on the same site: cross-site it answers login_required', async () => {
    // The issuer's session cookie is SameSite=Lax, which browsers do not send in a cross-site iframe
    // (and third-party cookies are blocked more and more): an app on another site renews with its
    // refresh token instead.
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${crossSite()}/`);
      await stateOf(page, 'ready');
      void page.evaluate('manager.signinRedirect()').catch(() => undefined);
      await signInOnPage(page, issuer.baseUrl, 'alice', `${crossSite()}/callback`);
      await stateOf(page, 'signed-in');
      expect((await callFromPage(page)).status).toBe(200);
      await page.evaluate('manager.signinSilent()'); // the refresh token: works cross-site
      expect((await callFromPage(page)).status).toBe(200);
      await page.evaluate(`(async () => {
        const user = await manager.getUser();
        user.refresh_token = undefined;
        await manager.storeUser(user);
      })()`);
      const framed = await page.evaluate(
        `manager.signinSilent().then(() => 'renewed', (err) => err.error ?? err.message)`,
      );
      expect(framed).toBe('login_required');
    } finally {
      await context.close();
    }
  });
});
