/**
 * Step-up authentication (RFC 9470) at the issuer: the two sign-in levels it offers as `acr` values,
 * the login prompt's check that makes an `acr_values` request re-authenticate a session of a level
 * it does not name (oidc-provider only does that for `essential` acr claims; `max_age` it handles
 * itself), and the `acr` / `auth_time` claims of JWT access tokens.
 *
 * @module
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { interactionPolicy } from 'oidc-provider';

/**
 * The sign-in levels, weakest first: password, then password plus a one-time code from an
 * authenticator app (TOTP, RFC 6238).
 *
 * @example
 * ```ts
 * client.signIn({ acrValues: [ACR_VALUES.mfa] });
 * ```
 */
export const ACR_VALUES = Object.freeze({
  password: 'urn:gatehouse:acr:password',
  mfa: 'urn:gatehouse:acr:mfa',
});

/**
 * Every level, weakest first (`acr_values_supported`).
 *
 * @example
 * ```ts
 * const configuration = { acrValues: [...SUPPORTED_ACR_VALUES] };
 * ```
 */
export const SUPPORTED_ACR_VALUES: readonly string[] = Object.freeze([ACR_VALUES.password, ACR_VALUES.mfa]);

/**
 * The levels an authentication request asks for (`acr_values`), restricted to those the issuer offers,
 * in the request's order of preference.
 *
 * @example
 * ```ts
 * requestedAcrValues('urn:other urn:gatehouse:acr:mfa'); // ['urn:gatehouse:acr:mfa']
 * ```
 */
export function requestedAcrValues(acrValues: unknown): readonly string[] {
  if (typeof acrValues !== 'string') return [];
  return acrValues.split(' ').filter((value) => SUPPORTED_ACR_VALUES.includes(value));
}

/**
 * The level a sign-in must reach for a request: `mfa` when the request names levels and password is
 * not one of them, otherwise `password`.
 *
 * @example
 * ```ts
 * requiredAcr(details.params.acr_values); // 'urn:gatehouse:acr:mfa'
 * ```
 */
export function requiredAcr(acrValues: unknown): string {
  const requested = requestedAcrValues(acrValues);
  return requested.length > 0 && !requested.includes(ACR_VALUES.password)
    ? ACR_VALUES.mfa
    : ACR_VALUES.password;
}

/**
 * oidc-provider's default interaction policy plus the `acr_values` check of the login prompt: a
 * session whose `acr` is not among the requested levels the issuer offers must sign in again.
 *
 * @example
 * ```ts
 * const configuration = { interactions: { policy: stepUpPolicy(), url } };
 * ```
 */
export function stepUpPolicy(): interactionPolicy.Prompt[] {
  const policy = interactionPolicy.base();
  policy.get('login')?.checks.add(
    new interactionPolicy.Check(
      'acr_values',
      'the requested authentication level has not been reached',
      (ctx) => {
        const requested = requestedAcrValues(ctx.oidc.params?.acr_values);
        if (requested.length === 0 || ctx.oidc.result?.login !== undefined)
          return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        return requested.includes(String(ctx.oidc.session?.acr))
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return policy;
}

/**
 * Put the `acr` and `auth_time` of the sign-in behind a JWT access token in its payload (RFC 9068
 * §2.2.1), from the authorization code or refresh token it was issued for — never from anything else,
 * so no request parameter can set them. Tokens issued without a user sign-in (client credentials,
 * token exchange) carry neither.
 *
 * @example
 * ```ts
 * jwt: async (ctx, token, jwt) => { authenticationClaims(ctx, jwt.payload); }
 * ```
 */
export function authenticationClaims(ctx: KoaContextWithOIDC, payload: Record<string, unknown>): void {
  delete payload.acr;
  delete payload.auth_time;
  const entities = ctx.oidc?.entities as
    | { AuthorizationCode?: SignInFacts; RefreshToken?: SignInFacts }
    | undefined;
  const source = entities?.AuthorizationCode ?? entities?.RefreshToken;
  if (typeof source?.acr === 'string') payload.acr = source.acr;
  if (typeof source?.authTime === 'number') payload.auth_time = source.authTime;
}

interface SignInFacts {
  readonly acr?: unknown;
  readonly authTime?: unknown;
}
