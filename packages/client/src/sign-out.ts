/**
 * Sign-out: forget the session locally, revoke the refresh token at the issuer (which revokes the
 * whole grant, so no token from this sign-in can be renewed), and build the issuer's end-session URL
 * (OpenID Connect RP-Initiated Logout) so the issuer's own sign-in session ends too.
 *
 * Local sign-out always happens. Revocation is best effort: when the issuer cannot be reached the
 * refresh token simply expires.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import type { Context } from './internal/context.js';
import { isBrowser, navigate } from './internal/env.js';
import { parseUrl } from './internal/url.js';
import type { TokenManager } from './tokens.js';
import type { SignOutOptions } from './types.js';

function checkSignOutOptions(options: SignOutOptions): string | undefined {
  if (options === null || typeof options !== 'object')
    throw new TypeError('signOut(options): options must be an object');
  if (options.redirect !== undefined && typeof options.redirect !== 'boolean') {
    throw new TypeError('signOut(options): "redirect" must be a boolean');
  }
  if (options.postLogoutRedirectUri === undefined) return undefined;
  const url =
    typeof options.postLogoutRedirectUri === 'string' ? parseUrl(options.postLogoutRedirectUri) : null;
  if (url === null) throw new TypeError('signOut(options): "postLogoutRedirectUri" must be an absolute URL');
  return url.href;
}

/**
 * Sign out. Resolves to the issuer's end-session URL (navigating there in a browser unless
 * `redirect: false`), or `undefined` when the issuer has none or cannot be reached.
 *
 * @example
 * ```ts
 * const url = await signOut(ctx, tokens, { redirect: false });
 * ```
 */
export async function signOut(
  ctx: Context,
  tokens: TokenManager,
  options: SignOutOptions = {},
): Promise<URL | undefined> {
  const postLogout = checkSignOutOptions(options) ?? ctx.options.postLogoutRedirectUri;
  const session = await ctx.records.getSession();
  tokens.reset();
  await ctx.records.clearSession();
  // The tokens bound to the DPoP key are gone: the next sign-in gets a new key.
  await ctx.dpopKey?.forget();
  await ctx.records.takePendingSignIn();
  let as: oauth.AuthorizationServer;
  try {
    as = await ctx.metadata();
  } catch {
    return undefined;
  }
  if (session?.refreshToken !== undefined && as.revocation_endpoint !== undefined) {
    try {
      const sent = await oauth.revocationRequest(
        as,
        ctx.client,
        ctx.auth,
        session.refreshToken,
        ctx.request(as.revocation_endpoint),
      );
      await oauth.processRevocationResponse(sent);
    } catch {
      // Best effort: the local session is gone either way, and the refresh token expires on its own.
    }
  }
  if (as.end_session_endpoint === undefined) return undefined;
  const url = new URL(ctx.browserEndpoint(as.end_session_endpoint, 'end_session_endpoint'));
  url.searchParams.set('client_id', ctx.options.clientId);
  if (session !== undefined) url.searchParams.set('id_token_hint', session.idToken);
  if (postLogout !== undefined) url.searchParams.set('post_logout_redirect_uri', postLogout);
  if (options.redirect ?? isBrowser()) navigate(url);
  return url;
}
