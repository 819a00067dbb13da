/**
 * `passport-openidconnect` in an Express app (express-session + passport) on loopback: sign-in
 * through the issuer's real sign-in page in Chromium, the session, and the access token for a
 * resource used at the @gatehouse/express API by the app's server.
 *
 * passport-openidconnect 0.1.2 has no PKCE, which the issuer requires of every client, and no
 * token-request parameters (the issuer answers a token request without `resource` with a userinfo
 * token). Both are added the way the library allows: a subclass whose `authorizationParams` adds
 * `code_challenge` and `resource`, and a wrapper of its protected `_oauth2.getOAuthAccessToken` adding
 * `code_verifier` and `resource` (the verifier kept in the session, handed over in an
 * AsyncLocalStorage). Its token request sends the secret in the body: client_secret_post.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import session from 'express-session';
import * as jose from 'jose';
import passport from 'passport';
import OpenIDConnectStrategy from 'passport-openidconnect';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInOnPage } from './helpers/browser.js';
import type { Issuer } from './helpers/issuer.js';
import { addAppPages, expectMyOrders, startRelyingPartyWorld } from './helpers/relying-party.js';
import { type Listening, Teardown } from './helpers/servers.js';
import { ORDERS, secretFor } from './helpers/world.js';

/** What the app keeps of a signed-in user, in its server-side session. */
interface SignedInUser {
  readonly sub: string;
  readonly accessToken: string;
}

declare module 'express-session' {
  interface SessionData {
    pkceVerifier?: string;
  }
}

type TokenCallback = (err: unknown, accessToken?: string, refreshToken?: string, params?: unknown) => void;

/** The PKCE verifier of the callback being handled. */
const pkce = new AsyncLocalStorage<string>();

/** passport-openidconnect with PKCE (S256) and a resource indicator at both endpoints. */
class GatehouseStrategy extends OpenIDConnectStrategy {
  constructor(options: OpenIDConnectStrategy.StrategyOptions, verify: OpenIDConnectStrategy.VerifyFunction) {
    super(options, verify);
    const oauth2 = this._oauth2 as unknown as {
      getOAuthAccessToken(code: string, params: Record<string, string>, callback: TokenCallback): void;
    };
    const request = oauth2.getOAuthAccessToken.bind(oauth2);
    oauth2.getOAuthAccessToken = (code, params, callback) =>
      request(code, { ...params, code_verifier: pkce.getStore() ?? '', resource: ORDERS }, callback);
  }

  override authorizationParams(options: { codeChallenge: string }): object {
    return { code_challenge: options.codeChallenge, code_challenge_method: 'S256', resource: ORDERS };
  }
}

const teardown = new Teardown();
let issuer: Issuer;
let api: Listening;
let rp: Listening;
let browser: Browser;

function relyingParty(): express.Express {
  const app = express();
  app.use(
    session({
      secret: 'interop-passport-session-secret',
      resave: false,
      saveUninitialized: false,
      name: 'rp',
    }),
  );
  const auth = new passport.Passport();
  auth.use(
    'gatehouse',
    new GatehouseStrategy(
      {
        issuer: issuer.issuer,
        authorizationURL: `${issuer.issuer}/auth`,
        tokenURL: `${issuer.issuer}/token`,
        userInfoURL: `${issuer.issuer}/me`,
        clientID: 'passport-web',
        clientSecret: secretFor('passport-web'),
        callbackURL: `${rp.url}/callback`,
        scope: ['read:orders'],
        nonce: 'true',
      } as OpenIDConnectStrategy.StrategyOptions,
      (
        _issuer: string,
        profile: passport.Profile,
        _context: object,
        _idToken: string | object,
        accessToken: string | object,
        _refreshToken: string,
        _params: unknown,
        done: OpenIDConnectStrategy.VerifyCallback,
      ) => done(null, { sub: profile.id, accessToken: String(accessToken) } satisfies SignedInUser),
    ),
  );
  auth.serializeUser((user, done) => done(null, user));
  auth.deserializeUser((user: SignedInUser, done) => done(null, user));
  app.use(auth.session());
  app.get('/login', (req, res, next) => {
    const verifier = randomBytes(32).toString('base64url');
    req.session.pkceVerifier = verifier;
    const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
    auth.authenticate('gatehouse', { codeChallenge } as passport.AuthenticateOptions)(req, res, next);
  });
  app.get('/callback', (req, res, next) => {
    const verifier = req.session.pkceVerifier ?? '';
    delete req.session.pkceVerifier;
    pkce.run(verifier, () =>
      auth.authenticate('gatehouse', { successRedirect: '/', failureRedirect: '/failed' })(req, res, next),
    );
  });
  app.get('/me', (req, res) => {
    const user = req.user as unknown as SignedInUser | undefined;
    res.json({
      sub: user?.sub ?? null,
      audience: user === undefined ? null : jose.decodeJwt(user.accessToken).aud,
    });
  });
  addAppPages(app, api.url, (req) => (req.user as unknown as SignedInUser | undefined)?.accessToken);
  return app;
}

beforeAll(async () => {
  await startRelyingPartyWorld(
    teardown,
    (rpUrl) => ({
      name: 'Passport app',
      type: 'Traditional',
      clientId: 'passport-web',
      clientSecret: secretFor('passport-web'),
      tokenEndpointAuthMethod: 'client_secret_post',
      redirectUris: [`${rpUrl}/callback`],
    }),
    (world) => {
      ({ rp, issuer, api, browser } = world);
      return relyingParty();
    },
  );
});

afterAll(() => teardown.run());

describe('passport-openidconnect', () => {
  it('signs in through the issuer (PKCE, resource), keeps a session, and calls the API', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      expect((await page.goto(`${rp.url}/my-orders`))!.status()).toBe(401);
      await page.goto(`${rp.url}/login`);
      await signInOnPage(page, issuer.baseUrl, 'alice', `${rp.url}/`);
      expect(await page.textContent('body')).toBe('home');

      const alice = await issuer.userId('alice');
      expect(await (await page.goto(`${rp.url}/me`))!.json()).toEqual({ sub: alice, audience: ORDERS });
      await expectMyOrders(page, rp.url, alice, 'passport-web');
    } finally {
      await context.close();
    }
  });

  it('without the PKCE addition, the issuer refuses its authorization request (invalid_request)', async () => {
    // What passport-openidconnect 0.1.2 sends on its own: no code_challenge.
    const url = new URL(`${issuer.issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: 'passport-web',
      response_type: 'code',
      redirect_uri: `${rp.url}/callback`,
      scope: 'openid',
      state: 'passport-state',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!, url);
    expect(`${back.origin}${back.pathname}`).toBe(`${rp.url}/callback`);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
  });
});
