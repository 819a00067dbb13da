/**
 * Types of the custom JWT claims function (`customJwtClaims.module`), written by integrators:
 *
 * ```ts
 * export async function getCustomJwtClaims({ token, context, environmentVariables, api }) {
 *   if (context.user?.customData.blocked) api.denyAccess('this account is blocked');
 *   return { tenant: environmentVariables.TENANT, ticket: context.grant.subjectTokenContext?.ticketId };
 * }
 * ```
 *
 * @module
 */

/**
 * Claims that the function can never set or change, one frozen list (catalogue F9): the claims a
 * token's validity, subject, audience, authorization, delegation, key binding and authentication rest
 * on. Whatever the function returns for them is dropped, so the token carries the issuer's own value,
 * or none — `acr` and `auth_time` in particular stay those of the user's sign-in (absent from client
 * credentials and token exchange), so no function can turn a password sign-in into a step-up one.
 *
 * - RFC 7519 §4.1, the registered claim names: `iss`, `sub`, `aud`, `exp`, `nbf`, `iat`, `jti`;
 * - RFC 9068 §2.2 (JWT access tokens): `client_id`, `scope`, and the issuer's `roles` (§2.2.3.1);
 * - the authentication behind the token (RFC 9068 §2.2.1, RFC 9470, OIDC Core §2): `auth_time`,
 *   `acr`, `amr`;
 * - delegation (RFC 8693 §4): `act`, `may_act`; key confirmation (RFC 7800, RFC 9449): `cnf`;
 * - the other protocol claims of OpenID Connect tokens (Core §2, §3.3.2.11, Front- and Back-Channel
 *   Logout, Self-Issued `sub_jwk`; FAPI `s_hash`): `azp`, `nonce`, `at_hash`, `c_hash`, `s_hash`,
 *   `sid`, `events`, `sub_jwk`.
 *
 * Claims about the user (`email`, `name`, …) and other authorization data (`groups`, `entitlements`)
 * stay the function's to add: the issuer writes none of them into access tokens.
 *
 * @example
 * ```ts
 * import { RESERVED_CLAIMS } from '@gatehouse/issuer';
 * RESERVED_CLAIMS.includes('acr'); // true: getCustomJwtClaims can never set it
 * ```
 */
export const RESERVED_CLAIMS: readonly string[] = Object.freeze([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'client_id',
  'scope',
  'roles',
  'auth_time',
  'acr',
  'amr',
  'act',
  'may_act',
  'cnf',
  'azp',
  'nonce',
  'at_hash',
  'c_hash',
  's_hash',
  'sid',
  'events',
  'sub_jwk',
]);

/** The user a token is about (never the password hash). */
export interface CustomClaimsUser {
  readonly id: string;
  readonly username: string;
  readonly email: string | null;
  readonly suspended: boolean;
  readonly customData: Readonly<Record<string, unknown>>;
  readonly roles: ReadonlyArray<{ readonly id: string; readonly name: string; readonly description: string }>;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly updatedAt: string;
}

/** The application the token is issued to (never the secret digest). */
export interface CustomClaimsApplication {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly firstParty: boolean;
  readonly tokenExchangeEnabled: boolean;
  readonly customData: Readonly<Record<string, unknown>>;
}

/** How the token is being issued. */
export interface CustomClaimsGrant {
  /** The `grant_type`, e.g. `urn:ietf:params:oauth:grant-type:token-exchange` or `client_credentials`. */
  readonly type: string;
  /** Token exchange only: the `subject_token_type` that was redeemed. */
  readonly subjectTokenType?: string;
  /** Token exchange only: the `context` given when the subject token was created (`{}` for a PAT). */
  readonly subjectTokenContext?: Readonly<Record<string, unknown>>;
}

/** `context` argument of the function. */
export interface CustomClaimsContext {
  /** `null` for machine-to-machine tokens (client credentials). */
  readonly user: CustomClaimsUser | null;
  readonly application: CustomClaimsApplication | null;
  readonly grant: CustomClaimsGrant;
}

/** `api` argument of the function. */
export interface CustomClaimsApi {
  /** Refuse the token: the token endpoint answers `400 access_denied` with `message`. */
  denyAccess(message?: string): never;
}

/** The single argument of `getCustomJwtClaims`. */
export interface CustomClaimsInput {
  /** The claims about to be issued. */
  readonly token: Readonly<Record<string, unknown>>;
  readonly context: CustomClaimsContext;
  /** The `customJwtClaims.environmentVariables` map (the worker's `process.env` is empty). */
  readonly environmentVariables: Readonly<Record<string, string>>;
  readonly api: CustomClaimsApi;
}

/**
 * The function a `customJwtClaims.module` exports as `getCustomJwtClaims`. Its result's claims are
 * added to the access token, except {@link RESERVED_CLAIMS}; `{}` adds nothing.
 *
 * @example
 * ```ts
 * import type { GetCustomJwtClaims } from '@gatehouse/issuer';
 * export const getCustomJwtClaims: GetCustomJwtClaims = async ({ context }) => ({
 *   roles: context.user?.roles.map((role) => role.name) ?? [],
 * });
 * ```
 */
export type GetCustomJwtClaims = (
  input: CustomClaimsInput,
) => Record<string, unknown> | Promise<Record<string, unknown>>;
