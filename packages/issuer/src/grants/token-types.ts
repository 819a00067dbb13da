/**
 * The identifiers of RFC 8693 token exchange as the issuer uses them (re-exported by
 * `token-exchange.ts`, and read by the token-request read-ahead before the grant runs).
 *
 * @module
 */

/**
 * The RFC 8693 grant type.
 *
 * @example
 * ```ts
 * import { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES } from '@gatehouse/issuer';
 * new URLSearchParams({ grant_type: TOKEN_EXCHANGE_GRANT_TYPE, subject_token_type: TOKEN_TYPES.accessToken });
 * ```
 */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * Token type identifiers accepted and issued.
 *
 * @example
 * ```ts
 * import { TOKEN_TYPES } from '@gatehouse/issuer';
 * console.log(TOKEN_TYPES.personalAccessToken); // 'urn:gatehouse:params:oauth:token-type:personal_access_token'
 * ```
 */
export const TOKEN_TYPES = Object.freeze({
  /** RFC 8693 §3: subject tokens from `POST /api/subject-tokens`, actor tokens, and what is issued. */
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  /** Gatehouse: a personal access token standing in for its user. */
  personalAccessToken: 'urn:gatehouse:params:oauth:token-type:personal_access_token',
});

/**
 * Whether `value` has the shape of a compact JWS (three base64url segments, the signature possibly
 * empty): such a value is looked at as a JWT, anything else as an opaque token of the issuer's own.
 * Only the shape: nothing is decoded or trusted.
 *
 * @example
 * ```ts
 * looksLikeJwt('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln'); // true
 * looksLikeJwt('sub_0123456789'); // false
 * ```
 */
export const looksLikeJwt = (value: string): boolean => JWT_SHAPE.test(value);

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
