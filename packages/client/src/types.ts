/**
 * Shared public types: ID token claims and the results of the client's calls.
 *
 * @module
 */

/**
 * Claims of the validated ID token of the signed-in user (OpenID Connect Core §2). Gatehouse's issuer
 * adds `preferred_username`, `email` and `email_verified` when those scopes were granted.
 *
 * @example
 * ```ts
 * const claims: IdTokenClaims | undefined = await client.getIdTokenClaims();
 * console.log(claims?.sub, claims?.preferred_username);
 * ```
 */
export interface IdTokenClaims {
  /** Issuer identifier. */
  readonly iss: string;
  /** The user's id (`usr_…` at Gatehouse). */
  readonly sub: string;
  /** The client id (or a list holding it). */
  readonly aud: string | readonly string[];
  /** Expiry, seconds since the epoch. */
  readonly exp: number;
  /** Issued at, seconds since the epoch. */
  readonly iat: number;
  readonly auth_time?: number;
  readonly nonce?: string;
  readonly preferred_username?: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly [claim: string]: unknown;
}

/**
 * Options of `signIn()`.
 *
 * @example
 * ```ts
 * const url = await client.signIn({ redirect: false, loginHint: 'alice' });
 * await client.signIn({ acrValues: ['urn:gatehouse:acr:mfa'], maxAge: 300 }); // step-up
 * ```
 */
export interface SignInOptions {
  /**
   * Send the page to the authorization URL (`location.assign`). Default: `true` in a browser page;
   * outside a browser there is nothing to navigate and the URL is only returned.
   */
  readonly redirect?: boolean;
  /** `login_hint`: pre-fills the username on the sign-in page. */
  readonly loginHint?: string;
  /**
   * RFC 9470 step-up: `acr_values`, the authentication context classes to sign in with, most preferred
   * first (what an API's challenge names: see `stepUpChallenge()`).
   */
  readonly acrValues?: string | readonly string[] | undefined;
  /** RFC 9470 step-up: `max_age`, in seconds — the issuer asks the user to sign in again if it was longer ago. */
  readonly maxAge?: number | undefined;
}

/**
 * Options of `signOut()`.
 *
 * @example
 * ```ts
 * await client.signOut({ postLogoutRedirectUri: 'https://app.example.com/' });
 * ```
 */
export interface SignOutOptions {
  /**
   * Send the page to the issuer's end-session URL, which ends the issuer's sign-in session too.
   * Default: `true` in a browser page; otherwise the URL is only returned.
   */
  readonly redirect?: boolean;
  /** Where the issuer sends the browser afterwards. Default: the client's `postLogoutRedirectUri`. */
  readonly postLogoutRedirectUri?: string;
}

/**
 * The RFC 8693 token-exchange request of `exchangeSubjectToken()`.
 *
 * @example
 * ```ts
 * const request: ExchangeRequest = { subjectToken, resource: 'https://orders.example.com', scopes: ['read:orders'] };
 * ```
 */
export interface ExchangeRequest {
  /**
   * The subject token (minted by the issuer's `POST /api/subject-tokens`), or a personal access token
   * with `subjectTokenType`. Sent as `subject_token`.
   */
  readonly subjectToken: string;
  /**
   * `subject_token_type`. Default: `urn:ietf:params:oauth:token-type:access_token` (a subject token);
   * `PERSONAL_ACCESS_TOKEN_TYPE` for a Gatehouse personal access token.
   */
  readonly subjectTokenType?: string;
  /** The API the new token is for: one of the client's configured `resources`. */
  readonly resource: string;
  /**
   * Scopes to ask for; the issuer grants those the impersonated user's roles allow for `resource`.
   * Default: the client's configured `scopes`. An empty list sends no `scope` (Gatehouse then grants none).
   */
  readonly scopes?: readonly string[];
  /** The acting user's token (`actor_token`), e.g. `await client.getAccessToken()`. */
  readonly actorToken?: string;
  /** `actor_token_type`. Default: `urn:ietf:params:oauth:token-type:access_token`. */
  readonly actorTokenType?: string;
}

/**
 * The token a successful exchange returns. It is not cached and no refresh token is ever kept for it:
 * exchange again when it expires.
 *
 * @example
 * ```ts
 * const { accessToken, expiresAt } = await client.exchangeSubjectToken(request);
 * if (Date.now() < expiresAt) await fetch(api, { headers: { authorization: `Bearer ${accessToken}` } });
 * ```
 */
export interface ExchangeResult {
  /** The access token for the requested resource. */
  readonly accessToken: string;
  /** `token_type`, lower-cased (`bearer`). */
  readonly tokenType: string;
  /** `issued_token_type` (RFC 8693 §2.2.1), when the issuer sent it. */
  readonly issuedTokenType: string | undefined;
  /** Lifetime in seconds as the issuer stated it, or `undefined` when it did not. */
  readonly expiresIn: number | undefined;
  /** Expiry as milliseconds since the epoch (`Date.now()` scale), or `undefined` when unknown. */
  readonly expiresAt: number | undefined;
  /** Granted scopes (from the response's `scope`; empty when it sent none). */
  readonly scopes: readonly string[];
}
