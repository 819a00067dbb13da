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
import { startOrdersApi } from './helpers/api.js';
import { launchChromium, signInOnPage } from './helpers/browser.js';
import { type Issuer, startIssuer } from './helpers/issuer.js';
import { type Listening, listen, Teardown } from './helpers/servers.js';
import { ORDERS, secretFor, seedDocument } from './helpers/world.js';

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
/** The relying party: an Express app with Auth.js mounted at /auth. */
let rp: Listening;
let browser: Browser;
let handler: express.Express | undefined;

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

beforeAll(async () => {
  try {
    rp = teardown.add(
      await listen((req, res) => (handler === undefined ? res.writeHead(503).end() : handler(req, res))),
      (s) => s.close(),
    );
    issuer = teardown.add(
      await startIssuer({
        seed: () =>
          seedDocument([
            {
              name: 'Auth.js app',
              type: 'Traditional',
              clientId: 'authjs-web',
              clientSecret: secretFor('authjs-web'),
              redirectUris: [`${rp.url}/auth/callback/gatehouse`],
            },
          ]),
      }),
      (i) => i.close(),
    );
    api = teardown.add(await startOrdersApi(issuer.issuer, ORDERS), (s) => s.close());
    const config = authConfig();
    const app = express();
    app.set('trust proxy', true);
    app.use('/auth', ExpressAuth(config));
    // The app's own server calls the API with the session's access token.
    app.get('/my-orders', async (req, res) => {
      const session = (await getSession(req, config)) as { accessToken?: string } | null;
      if (session?.accessToken === undefined) {
        res.status(401).json({ signedIn: false });
        return;
      }
      const answer = await fetch(`${api.url}/orders`, {
        headers: { authorization: `Bearer ${session.accessToken}` },
      });
      res.status(answer.status).json(await answer.json());
    });
    app.get('/', (_req, res) => {
      res.type('text/plain').send('home');
    });
    handler = app;
    browser = teardown.add(await launchChromium(), (b) => b.close());
  } catch (err) {
    await teardown.run();
    throw err;
  }
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

      const orders = await page.goto(`${rp.url}/my-orders`);
      expect(orders!.status()).toBe(200);
      expect(await orders!.json()).toMatchObject({
        subject: alice,
        clientId: 'authjs-web',
        scopes: ['read:orders'],
      });
    } finally {
      await context.close();
    }
  });
});
