/**
 * Auth.js (`@auth/express`) with the issuer as a generic OIDC provider, in an Express app on loopback:
 * sign-in through Auth.js's own sign-in page and the issuer's real sign-in page in Chromium, the
 * session, and the access token for a resource used at the @gatehouse/express API by the app's server.
 *
 * Settings Auth.js needs: `type: 'oidc'` with `issuer: {baseUrl}/oidc` (discovery), `checks: ['pkce',
 * 'state', 'nonce']` (the issuer requires PKCE of every client; Auth.js's default for OIDC is PKCE
 * only), `authorization.params.resource`, and — because Auth.js sends no `resource` at the token
 * endpoint and the issuer then answers with a userinfo token — the `customFetch` hook adding
 * `resource` to the token request. `trustHost: true` (or AUTH_TRUST_HOST) and a secret of 32+ chars.
 */
import { customFetch, ExpressAuth, type ExpressAuthConfig, getSession } from '@auth/express';
import express from 'express';
import * as jose from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInOnPage } from './helpers/browser.js';
import type { Issuer } from './helpers/issuer.js';
import { addAppPages, expectMyOrders, startRelyingPartyWorld } from './helpers/relying-party.js';
import { type Listening, Teardown } from './helpers/servers.js';
import { ORDERS, secretFor } from './helpers/world.js';

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
/** The relying party: an Express app with Auth.js mounted at /auth. */
let rp: Listening;
let browser: Browser;

/** The Auth.js configuration of the app (the issuer as a generic OIDC provider). */
function authConfig(): ExpressAuthConfig {
  return {
    trustHost: true,
    secret: 'interop-authjs-secret-0123456789abcdef',
    providers: [
      {
        id: 'gatehouse',
        name: 'Gatehouse',
        type: 'oidc',
        issuer: issuer.issuer,
        clientId: 'authjs-web',
        clientSecret: secretFor('authjs-web'),
        checks: ['pkce', 'state', 'nonce'],
        authorization: { params: { scope: 'openid profile email read:orders', resource: ORDERS } },
        // Auth.js has no token-request parameters: name the resource at the token endpoint too.
        [customFetch]: async (input: string | URL | Request, init?: RequestInit) => {
          if (String(input) === `${issuer.issuer}/token` && init?.body instanceof URLSearchParams)
            init.body.set('resource', ORDERS);
          return fetch(input, init);
        },
      },
    ],
    callbacks: {
      jwt({ token, account, profile }) {
        // On sign-in, keep the access token (for ORDERS) and the issuer's subject in Auth.js's
        // encrypted session cookie (Auth.js's own user id is a random one without a database adapter).
        if (account?.access_token !== undefined) token.accessToken = account.access_token;
        if (profile?.sub != null) token.issuerSubject = profile.sub;
        return token;
      },
      session({ session, token }) {
        return { ...session, accessToken: token.accessToken as string, sub: token.issuerSubject as string };
      },
    },
  };
}

/** The app: Auth.js mounted at /auth, and its pages (its server calls the API with the session's token). */
function relyingParty(): express.Express {
  const config = authConfig();
  const app = express();
  app.set('trust proxy', true);
  app.use('/auth', ExpressAuth(config));
  addAppPages(
    app,
    api.url,
    async (req) => ((await getSession(req, config)) as { accessToken?: string } | null)?.accessToken,
  );
  return app;
}

beforeAll(async () => {
  await startRelyingPartyWorld(
    teardown,
    (rpUrl) => ({
      name: 'Auth.js app',
      type: 'Traditional',
      clientId: 'authjs-web',
      clientSecret: secretFor('authjs-web'),
      redirectUris: [`${rpUrl}/auth/callback/gatehouse`],
    }),
    (world) => {
      ({ rp, issuer, api, browser } = world);
      return relyingParty();
    },
  );
});

afterAll(() => teardown.run());

describe('Auth.js (@auth/express)', () => {
  it('signs in through the issuer, keeps a session, and its server calls the API for the resource', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      expect((await page.goto(`${rp.url}/my-orders`))!.status()).toBe(401);
      await page.goto(`${rp.url}/auth/signin?callbackUrl=${encodeURIComponent(`${rp.url}/`)}`);
      await page.click('button:has-text("Gatehouse")');
      await signInOnPage(page, issuer.baseUrl, 'alice', `${rp.url}/`);
      expect(await page.textContent('body')).toBe('home');

      const alice = await issuer.userId('alice');
      const session = await (await page.goto(`${rp.url}/auth/session`))!.json();
      expect(session.user).toMatchObject({ email: 'alice@example.com' });
      expect(session.sub).toBe(alice);
      expect(jose.decodeJwt(session.accessToken)).toMatchObject({ aud: ORDERS, sub: alice });

      await expectMyOrders(page, rp.url, alice, 'authjs-web');
    } finally {
      await context.close();
    }
  });
});
