/**
 * The parameters of an RFC 8693 token exchange request and their checks: which are read, which are
 * required, which token types are accepted, and which parameters the issuer refuses (`audience`, an
 * actor token with a personal access token). Every refusal is a `TokenExchangeError` (`invalid_request`
 * with its reason); none of these checks touches the subject token.
 *
 * @module
 */
import { TokenExchangeError } from '../errors.js';
import { TOKEN_TYPES } from './token-types.js';

/**
 * The parameters oidc-provider reads for the token-exchange grant (each at most once).
 *
 * @example
 * ```ts
 * const grant = { grantType: TOKEN_EXCHANGE_GRANT_TYPE, parameters: EXCHANGE_PARAMETERS, dupes: [] };
 * ```
 */
export const EXCHANGE_PARAMETERS = [
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'resource',
  'scope',
  'audience',
  'requested_token_type',
] as const;

/**
 * The token-exchange parameters of a request, as oidc-provider hands them over (`ctx.oidc.params`).
 *
 * @example
 * ```ts
 * const params = ctx.oidc.params as ExchangeParams;
 * ```
 */
export type ExchangeParams = Partial<Record<(typeof EXCHANGE_PARAMETERS)[number], string>>;

/**
 * The value of parameter `name`; throws `TokenExchangeError` (`missing_parameter`) when it is absent or empty.
 *
 * @example
 * ```ts
 * const indicator = required(params, 'resource');
 * ```
 */
export function required(params: ExchangeParams, name: keyof ExchangeParams): string {
  const value = params[name];
  if (typeof value !== 'string' || value.length === 0)
    throw new TokenExchangeError('missing_parameter', `missing required parameter '${name}'`);
  return value;
}

/**
 * Check the parameters of a token exchange request, before anything is read for it; resolves to the
 * `subject_token_type` (an access token, i.e. a subject token, or a personal access token). Throws
 * `TokenExchangeError` with the reason of the first refusal.
 *
 * @example
 * ```ts
 * const { subjectType } = checkParameters(ctx.oidc.params as ExchangeParams);
 * ```
 */
export function checkParameters(params: ExchangeParams): { subjectType: string } {
  required(params, 'subject_token');
  const subjectType = required(params, 'subject_token_type');
  if (subjectType !== TOKEN_TYPES.accessToken && subjectType !== TOKEN_TYPES.personalAccessToken) {
    throw new TokenExchangeError(
      'unsupported_token_type',
      `unsupported subject_token_type; use ${TOKEN_TYPES.accessToken} or ${TOKEN_TYPES.personalAccessToken}`,
    );
  }
  if ((params.actor_token === undefined) !== (params.actor_token_type === undefined)) {
    throw new TokenExchangeError(
      'missing_parameter',
      'actor_token and actor_token_type must be sent together',
    );
  }
  if (params.actor_token_type !== undefined && params.actor_token_type !== TOKEN_TYPES.accessToken) {
    throw new TokenExchangeError(
      'unsupported_token_type',
      `actor_token_type must be ${TOKEN_TYPES.accessToken}`,
    );
  }
  if (params.actor_token !== undefined && subjectType === TOKEN_TYPES.personalAccessToken) {
    throw new TokenExchangeError(
      'actor_not_allowed',
      'a personal access token stands in for its own user: actor tokens are not accepted with it',
    );
  }
  if (params.audience !== undefined) {
    throw new TokenExchangeError(
      'unsupported_parameter',
      'the audience parameter is not supported: name the API with resource',
    );
  }
  if (params.requested_token_type !== undefined && params.requested_token_type !== TOKEN_TYPES.accessToken) {
    throw new TokenExchangeError(
      'unsupported_token_type',
      `only access tokens are issued (requested_token_type ${TOKEN_TYPES.accessToken})`,
    );
  }
  return { subjectType };
}
