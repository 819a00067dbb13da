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
 * Claims that the function can never set or change: what the issuer writes itself (RFC 9068) and the
 * delegation and confirmation claims (RFC 8693 `act`/`may_act`, RFC 7800 `cnf`), plus `nbf` and `azp`.
 *
 * @example
 * ```ts
 * import { RESERVED_CLAIMS } from '@gatehouse/issuer';
 * RESERVED_CLAIMS.has('act'); // true: getCustomJwtClaims can never set it
 * ```
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = Object.freeze(
  new Set([
    'jti',
    'sub',
    'iat',
    'exp',
    'nbf',
    'iss',
    'aud',
    'client_id',
    'scope',
    'act',
    'may_act',
    'cnf',
    'azp',
  ]),
);

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
