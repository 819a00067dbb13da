/**
 * Step-up authentication (RFC 9470) at the issuer: the two sign-in levels it offers as `acr` values,
 * what a request asks of them (`acr_values`, and `acr` in the `claims` parameter, see
 * claims-parameter.ts), the login prompt's check that makes such a request re-authenticate a session
 * of a level it does not name (oidc-provider only does that for `essential` acr claims; `max_age` it
 * handles itself), and the `acr` / `auth_time` claims of JWT access tokens.
 *
 * @module
 */
import { errors, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { acrClaimRequest } from './claims-parameter.js';

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
 * What an authorization request asks of the sign-in level: the levels the issuer offers among those
 * it names, in its order of preference (empty: any level), and whether they are essential.
 *
 * @example
 * ```ts
 * const request: AcrRequest = { levels: [ACR_VALUES.mfa], essential: true };
 * ```
 */
export interface AcrRequest {
  readonly levels: readonly string[];
  /** An essential `acr` of the `claims` parameter (OIDC Core §5.5.1.1): never answered below `levels`. */
  readonly essential: boolean;
}

/** The levels the issuer offers among `values`, once each, in their order. */
const offered = (values: readonly string[]): readonly string[] => [
  ...new Set(values.filter((value) => SUPPORTED_ACR_VALUES.includes(value))),
];

/**
 * Read the sign-in levels a request asks for. An essential `acr` in the `claims` parameter decides
 * alone (claims-parameter.ts refuses one naming no offered level before it gets here); otherwise
 * `acr_values` and a voluntary `acr` of the `claims` parameter together, both wishes (OIDC Core
 * §3.1.2.1) that the issuer honours for the levels it offers.
 *
 * @example
 * ```ts
 * acrRequest({ acr_values: 'urn:other urn:gatehouse:acr:mfa' }); // { levels: [mfa], essential: false }
 * acrRequest(details.params); // from an interaction: the same parameters, claims as JSON text
 * ```
 */
export function acrRequest(params: { readonly acr_values?: unknown; readonly claims?: unknown }): AcrRequest {
  const claim = acrClaimRequest(params.claims);
  if (claim?.essential === true && claim.values.length > 0)
    return { levels: offered(claim.values), essential: true };
  const acrValues = typeof params.acr_values === 'string' ? params.acr_values.split(' ') : [];
  return { levels: offered([...acrValues, ...(claim?.values ?? [])]), essential: false };
}

/**
 * The level a sign-in must reach for a request: `mfa` when the request names levels and password is
 * not one of them, otherwise `password`.
 *
 * @example
 * ```ts
 * requiredAcr(details.params); // 'urn:gatehouse:acr:mfa'
 * ```
 */
export function requiredAcr(params: { readonly acr_values?: unknown; readonly claims?: unknown }): string {
  const { levels } = acrRequest(params);
  return levels.length > 0 && !levels.includes(ACR_VALUES.password) ? ACR_VALUES.mfa : ACR_VALUES.password;
}

/**
 * oidc-provider's default interaction policy plus a check of the login prompt: a session whose `acr`
 * is not among the levels the request asks for ({@link acrRequest}: `acr_values`, and `acr` in the
 * `claims` parameter) must sign in again — or, with `prompt=none`, gets `login_required`.
 * oidc-provider's own checks re-prompt for an essential `acr` only; this one covers the wishes too.
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
        const { levels, essential } = acrRequest(ctx.oidc.params ?? {});
        if (essential && levels.length === 0)
          throw new errors.UnmetAuthenticationRequirements('none of the essential acr values can be met');
        if (levels.length === 0 || ctx.oidc.result?.login !== undefined)
          return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        return levels.includes(String(ctx.oidc.session?.acr))
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return policy;
}

/** The grants issued for a user's sign-in, and the entity that remembers that sign-in. */
const SIGN_IN_SOURCES: Readonly<Record<string, 'AuthorizationCode' | 'RefreshToken'>> = Object.freeze({
  authorization_code: 'AuthorizationCode',
  refresh_token: 'RefreshToken',
});

/**
 * Put the `acr` and `auth_time` of the sign-in behind a JWT access token in its payload (RFC 9068
 * §2.2.1), from the authorization code or refresh token it was issued for — never from anything else,
 * so no request parameter can set them. Tokens of other grants carry neither: no user authenticated
 * in a client-credentials or token-exchange request (catalogue F10), so an impersonation token or a
 * machine's token never passes a step-up check.
 *
 * @example
 * ```ts
 * jwt: async (ctx, token, jwt) => { authenticationClaims(ctx, jwt.payload); }
 * ```
 */
export function authenticationClaims(ctx: KoaContextWithOIDC, payload: Record<string, unknown>): void {
  delete payload.acr;
  delete payload.auth_time;
  const grantType = ctx.oidc?.params?.grant_type;
  const entity =
    typeof grantType === 'string' && Object.hasOwn(SIGN_IN_SOURCES, grantType)
      ? SIGN_IN_SOURCES[grantType]
      : undefined;
  if (entity === undefined) return;
  const source = (ctx.oidc.entities as Partial<Record<typeof entity, SignInFacts>>)[entity];
  if (typeof source?.acr === 'string') payload.acr = source.acr;
  if (typeof source?.authTime === 'number') payload.auth_time = source.authTime;
}

interface SignInFacts {
  readonly acr?: unknown;
  readonly authTime?: unknown;
}
