/**
 * Sign-in: the authorization code flow with PKCE (S256), `state` and `nonce`.
 *
 * `signIn()` builds the authentication request — every configured `resource` (RFC 8707), the
 * configured scopes plus `openid` and `offline_access`, `prompt=consent` — keeps the verifier, state
 * and nonce in the client's storage, and returns the URL (in a browser it also navigates there).
 * `handleSignInCallback(url)` checks the redirect back (state, `iss` per RFC 9207), redeems the code,
 * validates the ID token (issuer, audience, nonce, expiry) and stores the session. The code is
 * redeemed without `resource`, which yields the OpenID Connect access token; tokens for APIs come from
 * `getAccessToken(resource)`.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { DEFAULTS } from './defaults.js';
import { withNonceRetry } from './dpop.js';
import { ServerResponseError, SignInCallbackError } from './errors.js';
import type { Context } from './internal/context.js';
import { currentUrl, isBrowser, navigate } from './internal/env.js';
import { guard, guardCallback } from './internal/http.js';
import { parseUrl } from './internal/url.js';
import type { TokenManager } from './tokens.js';
import type { IdTokenClaims, SignInOptions } from './types.js';

function checkSignInOptions(options: SignInOptions): void {
  if (options === null || typeof options !== 'object')
    throw new TypeError('signIn(options): options must be an object');
  if (options.redirect !== undefined && typeof options.redirect !== 'boolean') {
    throw new TypeError('signIn(options): "redirect" must be a boolean');
  }
  if (
    options.loginHint !== undefined &&
    (typeof options.loginHint !== 'string' || options.loginHint === '')
  ) {
    throw new TypeError('signIn(options): "loginHint" must be a non-empty string');
  }
  acrValuesOf(options.acrValues);
  const { maxAge } = options;
  if (maxAge !== undefined && (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0))
    throw new TypeError('signIn(options): "maxAge" must be a whole number of seconds (0 or more)');
}

/** `acr_values` as sent: space-separated, or `undefined` for none; a `TypeError` for a bad value. */
function acrValuesOf(value: SignInOptions['acrValues']): string | undefined {
  if (value === undefined) return undefined;
  const list: readonly unknown[] | undefined =
    typeof value === 'string'
      ? value.split(' ').filter((v) => v !== '')
      : Array.isArray(value)
        ? value
        : undefined;
  if (
    list === undefined ||
    list.length === 0 ||
    !list.every((v) => typeof v === 'string' && /^[\x21-\x7e]+$/.test(v))
  )
    throw new TypeError(
      'signIn(options): "acrValues" must name at least one acr value (printable, no spaces)',
    );
  return list.join(' ');
}

/**
 * Start a sign-in: store a new pending sign-in and return the authorization URL, navigating to it in
 * a browser unless `redirect: false`. A later `signIn()` replaces the pending one.
 *
 * @example
 * ```ts
 * const url = await signIn(ctx, { redirect: false });
 * ```
 */
export async function signIn(ctx: Context, options: SignInOptions = {}): Promise<URL> {
  checkSignInOptions(options);
  const redirect = options.redirect ?? isBrowser();
  if (redirect && isBrowser() && ctx.options.storageKind === 'memory') {
    throw new TypeError(
      "signIn(): the pending sign-in would be lost when the page navigates away; create the client with storage: 'sessionStorage' (or pass redirect: false)",
    );
  }
  const as = await ctx.metadata();
  const endpoint = ctx.browserEndpoint(as.authorization_endpoint, 'authorization_endpoint');
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const { options: config } = ctx;
  const url = new URL(endpoint);
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', config.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', config.scope);
  for (const resource of config.resources) url.searchParams.append('resource', resource);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  url.searchParams.set('nonce', nonce);
  url.searchParams.set('prompt', DEFAULTS.prompt);
  if (options.loginHint !== undefined) url.searchParams.set('login_hint', options.loginHint);
  const acrValues = acrValuesOf(options.acrValues);
  if (acrValues !== undefined) url.searchParams.set('acr_values', acrValues);
  if (options.maxAge !== undefined) url.searchParams.set('max_age', String(options.maxAge));
  await ctx.records.setPendingSignIn({ state, codeVerifier, nonce, redirectUri: config.redirectUri });
  if (redirect) navigate(url);
  return url;
}

function sameEndpoint(a: URL, b: URL): boolean {
  return a.origin === b.origin && a.pathname === b.pathname;
}

/**
 * Complete the sign-in from the URL the issuer redirected to (in a browser, the current page's URL
 * by default). Returns the validated ID token claims.
 *
 * @example
 * ```ts
 * const claims = await handleSignInCallback(ctx, tokens, 'http://127.0.0.1:8080/callback?code=…&state=…&iss=…');
 * ```
 */
export async function handleSignInCallback(
  ctx: Context,
  tokens: TokenManager,
  url?: string | URL,
): Promise<IdTokenClaims> {
  const href = url === undefined ? currentUrl() : url instanceof URL ? url.href : url;
  if (typeof href !== 'string') {
    throw new TypeError('handleSignInCallback(url): the callback URL is required outside a browser page');
  }
  const callback = parseUrl(href);
  if (callback === null || !sameEndpoint(callback, new URL(ctx.options.redirectUri))) {
    throw new SignInCallbackError('invalid_callback');
  }
  const pending = await ctx.records.getPendingSignIn();
  if (pending === undefined) throw new SignInCallbackError('no_pending_sign_in');
  if (callback.searchParams.get('state') !== pending.state) throw new SignInCallbackError('state_mismatch');
  // The callback belongs to this sign-in: it can be tried only once, whatever happens next.
  await ctx.records.takePendingSignIn();
  const as = await ctx.metadata();
  const params = guardCallback(() => oauth.validateAuthResponse(as, ctx.client, callback, pending.state));
  const DPoP = await ctx.dpop();
  const response = await guard('token', () =>
    withNonceRetry(DPoP, async () => {
      const sent = await oauth.authorizationCodeGrantRequest(
        as,
        ctx.client,
        ctx.auth,
        params,
        pending.redirectUri,
        pending.codeVerifier,
        { ...ctx.request(as.token_endpoint), DPoP },
      );
      return oauth.processAuthorizationCodeResponse(as, ctx.client, sent, {
        expectedNonce: pending.nonce,
        requireIdToken: true,
      });
    }),
  );
  const claims = oauth.getValidatedIdTokenClaims(response) as IdTokenClaims | undefined;
  if (claims === undefined || response.id_token === undefined) {
    throw new ServerResponseError('The token endpoint returned no ID token');
  }
  tokens.reset();
  await ctx.records.setSession({ refreshToken: response.refresh_token, idToken: response.id_token, claims });
  tokens.remember(undefined, response);
  return claims;
}
