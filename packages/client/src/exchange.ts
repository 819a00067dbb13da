/**
 * Impersonation by OAuth 2.0 Token Exchange (RFC 8693): the application trades a subject token —
 * minted for a user by the issuer's Management API (`POST /api/subject-tokens`) — for an access token
 * of one of its configured resources, optionally naming the acting user with an actor token.
 *
 * The result is returned, never cached, and a refresh token in the response is dropped: an
 * impersonation token is short-lived on purpose, and renewing it takes a new subject token.
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { withNonceRetry } from './dpop.js';
import { UnknownResourceError } from './errors.js';
import type { Context } from './internal/context.js';
import { guard } from './internal/http.js';
import type { ExchangeRequest, ExchangeResult } from './types.js';

/**
 * The token-exchange `grant_type` (RFC 8693 §2.1).
 *
 * @example
 * ```ts
 * TOKEN_EXCHANGE_GRANT_TYPE; // 'urn:ietf:params:oauth:grant-type:token-exchange'
 * ```
 */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * The `access_token` token type identifier (RFC 8693 §3), the default for subject and actor tokens.
 *
 * @example
 * ```ts
 * await client.exchangeSubjectToken({ subjectToken, subjectTokenType: ACCESS_TOKEN_TYPE, resource });
 * ```
 */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * Gatehouse's token type for a personal access token used as the subject token: the developer's own
 * long-lived credential exchanged for a JWT of one resource (no actor token allowed).
 *
 * @example
 * ```ts
 * await client.exchangeSubjectToken({ subjectToken: process.env.GATEHOUSE_PAT!, subjectTokenType: PERSONAL_ACCESS_TOKEN_TYPE, resource });
 * ```
 */
export const PERSONAL_ACCESS_TOKEN_TYPE = 'urn:gatehouse:params:oauth:token-type:personal_access_token';

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function bad(field: string, problem: string): never {
  throw new TypeError(`exchangeSubjectToken(request): "${field}" ${problem}`);
}

function nonEmpty(value: unknown, field: string, optional: boolean): string | undefined {
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string' || value.length === 0) bad(field, 'must be a non-empty string');
  return value;
}

/**
 * The form parameters of the exchange request (besides `grant_type` and client authentication).
 *
 * @throws TypeError for a malformed request; {@link UnknownResourceError} for an unconfigured resource.
 * @example
 * ```ts
 * exchangeParameters(ctx, { subjectToken, resource: 'https://orders.example.com' }).get('subject_token_type');
 * // 'urn:ietf:params:oauth:token-type:access_token'
 * ```
 */
export function exchangeParameters(ctx: Context, request: ExchangeRequest): URLSearchParams {
  if (request === null || typeof request !== 'object')
    throw new TypeError('exchangeSubjectToken(request): request must be an object');
  const subjectToken = nonEmpty(request.subjectToken, 'subjectToken', false)!;
  const subjectTokenType = nonEmpty(request.subjectTokenType, 'subjectTokenType', true) ?? ACCESS_TOKEN_TYPE;
  const resource = nonEmpty(request.resource, 'resource', false)!;
  if (!ctx.options.resources.includes(resource)) throw new UnknownResourceError(resource);
  const actorToken = nonEmpty(request.actorToken, 'actorToken', true);
  const actorTokenType = nonEmpty(request.actorTokenType, 'actorTokenType', true);
  if (actorTokenType !== undefined && actorToken === undefined) bad('actorTokenType', 'needs "actorToken"');
  let scopes: readonly string[] = ctx.options.scopes;
  if (request.scopes !== undefined) {
    if (!Array.isArray(request.scopes)) bad('scopes', 'must be an array of scope names');
    for (const item of request.scopes) {
      if (typeof item !== 'string' || !SCOPE_TOKEN.test(item)) bad('scopes', 'must hold scope names');
    }
    scopes = request.scopes;
  }
  const scope = scopes.length > 0 ? [...new Set(scopes)].join(' ') : undefined;
  const params = new URLSearchParams();
  params.set('subject_token', subjectToken);
  params.set('subject_token_type', subjectTokenType);
  params.set('resource', resource);
  if (scope !== undefined) params.set('scope', scope);
  if (actorToken !== undefined) {
    params.set('actor_token', actorToken);
    params.set('actor_token_type', actorTokenType ?? ACCESS_TOKEN_TYPE);
  }
  return params;
}

/**
 * Exchange a subject token for an access token of `request.resource`.
 *
 * @example
 * ```ts
 * const { accessToken, expiresAt } = await exchangeSubjectToken(ctx, {
 *   subjectToken, resource: 'https://orders.example.com', actorToken: await tokens.get(),
 * });
 * ```
 */
export async function exchangeSubjectToken(ctx: Context, request: ExchangeRequest): Promise<ExchangeResult> {
  const params = exchangeParameters(ctx, request);
  const as = await ctx.metadata();
  const requestedAt = ctx.now();
  // With DPoP on, the proof binds the impersonation token to the client's key (cnf.jkt).
  const DPoP = await ctx.dpop();
  const response = await guard('token', () =>
    withNonceRetry(DPoP, async () => {
      const sent = await oauth.genericTokenEndpointRequest(
        as,
        ctx.client,
        ctx.auth,
        TOKEN_EXCHANGE_GRANT_TYPE,
        params,
        { ...ctx.request(as.token_endpoint), DPoP },
      );
      return oauth.processGenericTokenEndpointResponse(as, ctx.client, sent);
    }),
  );
  const expiresIn = typeof response.expires_in === 'number' ? response.expires_in : undefined;
  const issued = response.issued_token_type;
  // response.refresh_token is deliberately not read: it is never kept.
  return Object.freeze({
    accessToken: response.access_token,
    tokenType: response.token_type,
    issuedTokenType: typeof issued === 'string' ? issued : undefined,
    expiresIn,
    expiresAt: expiresIn === undefined ? undefined : requestedAt + expiresIn * 1000,
    scopes: Object.freeze(
      typeof response.scope === 'string' ? response.scope.split(' ').filter(Boolean) : [],
    ),
  });
}
