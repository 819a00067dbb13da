/**
 * Access tokens per resource: an in-memory cache, and refresh-token requests carrying `resource`
 * (RFC 8707 §2.2) when a token is missing or about to expire.
 *
 * - Concurrent calls for the same resource share one request.
 * - Refresh requests never overlap, whatever their resource: the issuer rotates the refresh token on
 *   every use and treats a reused one as stolen (it revokes the whole grant), so each request must
 *   carry the token the previous one returned.
 * - `invalid_grant` (refresh token expired or revoked) ends the session: the client forgets it and
 *   the caller must sign in again.
 * - Signing out or in while a refresh is under way discards its result.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { withNonceRetry } from './dpop.js';
import { NotSignedInError, OAuthResponseError, ServerResponseError, UnknownResourceError } from './errors.js';
import type { Context } from './internal/context.js';
import { guard } from './internal/http.js';

/** Cache key of the token without a resource (the OpenID Connect / userinfo access token). */
const NO_RESOURCE = '';

interface CachedToken {
  readonly token: string;
  /** Milliseconds since the epoch after which the token is not handed out. */
  readonly renewAt: number;
}

/**
 * The access-token cache and refresh queue of one client.
 *
 * @example
 * ```ts
 * const tokens = new TokenManager(ctx);
 * const token = await tokens.get('https://orders.example.com');
 * ```
 */
export class TokenManager {
  readonly #ctx: Context;
  readonly #cache = new Map<string, CachedToken>();
  readonly #inflight = new Map<string, Promise<string>>();
  #queue: Promise<unknown> = Promise.resolve();
  #generation = 0;

  constructor(ctx: Context) {
    this.#ctx = ctx;
  }

  /**
   * An access token for `resource` (one of the configured resources), or without `resource` the
   * OpenID Connect access token (for userinfo, and to act as `actor_token`).
   */
  get(resource?: string): Promise<string> {
    if (resource !== undefined) {
      if (typeof resource !== 'string') {
        return Promise.reject(new TypeError('getAccessToken(resource): resource must be a string'));
      }
      if (!this.#ctx.options.resources.includes(resource)) {
        return Promise.reject(new UnknownResourceError(resource));
      }
    }
    const key = resource ?? NO_RESOURCE;
    const cached = this.#fresh(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const inflight = this.#inflight.get(key);
    if (inflight !== undefined) return inflight;
    const generation = this.#generation;
    const pending = this.#enqueue(() => this.#refresh(resource, key, generation));
    this.#inflight.set(key, pending);
    const forget = () => {
      if (this.#inflight.get(key) === pending) this.#inflight.delete(key);
    };
    pending.then(forget, forget);
    return pending;
  }

  /** Cache the access token of a token response under `resource` (`undefined`: no resource). */
  remember(resource: string | undefined, response: oauth.TokenEndpointResponse): void {
    const expiresIn = response.expires_in;
    // A token without a stated lifetime is used once and never cached.
    if (typeof expiresIn !== 'number' || expiresIn <= 0) return;
    const leeway = Math.min(this.#ctx.options.expiryLeeway, expiresIn / 2);
    this.#cache.set(resource ?? NO_RESOURCE, {
      token: response.access_token,
      renewAt: this.#ctx.now() + (expiresIn - leeway) * 1000,
    });
  }

  /** Forget every cached token and disown refreshes under way (sign-in, sign-out). */
  reset(): void {
    this.#generation++;
    this.#cache.clear();
    this.#inflight.clear();
  }

  #fresh(key: string): string | undefined {
    const entry = this.#cache.get(key);
    if (entry === undefined) return undefined;
    if (this.#ctx.now() < entry.renewAt) return entry.token;
    this.#cache.delete(key);
    return undefined;
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #refresh(resource: string | undefined, key: string, generation: number): Promise<string> {
    const cached = this.#fresh(key);
    if (cached !== undefined) return cached;
    const ctx = this.#ctx;
    if (generation !== this.#generation) throw new NotSignedInError('The session ended while waiting');
    const session = await ctx.records.getSession();
    if (session === undefined) throw new NotSignedInError();
    const refreshToken = session.refreshToken;
    if (refreshToken === undefined) {
      throw new NotSignedInError('The issuer granted no refresh token at sign-in: sign in again');
    }
    const as = await ctx.metadata();
    const DPoP = await ctx.dpop();
    let response: oauth.TokenEndpointResponse;
    try {
      response = await guard('token', () =>
        withNonceRetry(DPoP, async () => {
          const sent = await oauth.refreshTokenGrantRequest(as, ctx.client, ctx.auth, refreshToken, {
            ...ctx.request(as.token_endpoint),
            ...(resource === undefined ? {} : { additionalParameters: { resource } }),
            DPoP,
          });
          return oauth.processRefreshTokenResponse(as, ctx.client, sent);
        }),
      );
    } catch (err) {
      if (
        err instanceof OAuthResponseError &&
        err.error === 'invalid_grant' &&
        generation === this.#generation
      ) {
        this.reset();
        await ctx.records.clearSession();
      }
      throw err;
    }
    if (generation !== this.#generation) throw new NotSignedInError('The session ended during the refresh');
    const claims = oauth.getValidatedIdTokenClaims(response);
    if (claims !== undefined && claims.sub !== session.claims.sub) {
      throw new ServerResponseError('The refreshed ID token names another user');
    }
    await ctx.records.setSession({
      refreshToken: response.refresh_token ?? refreshToken,
      idToken: response.id_token ?? session.idToken,
      claims: claims === undefined ? session.claims : (claims as typeof session.claims),
    });
    this.remember(resource, response);
    return response.access_token;
  }
}
