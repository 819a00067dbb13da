/**
 * Resource indicators (RFC 8707) and the scope policy: which scopes of an API resource a token may
 * carry. At the authorization endpoint every scope of the resource is offered (the sign-in step then
 * grants only what the user's roles allow); at the token endpoint the scopes are re-evaluated against
 * the current roles of the user (authorization code, refresh) or of the M2M application (client
 * credentials), so a refresh after a role change yields the new set.
 *
 * @module
 */
import { errors, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import { OIDC_SCOPES } from '../config/constants.js';
import { epoch } from '../internal/ids.js';
import type { ResourceRecord, Store } from '../storage/store.js';
import { rememberResource } from './roles-claim.js';
import { readTokenRequest, type TokenRequestRead } from './token-request.js';

/** What oidc-provider passes as the client. */
interface ClientLike {
  readonly clientId: string;
}

/**
 * Resolve a resource indicator to oidc-provider's resource-server description. Unknown indicators
 * (and relative or fragment-carrying ones, which can never be registered) are `invalid_target`.
 *
 * @example
 * ```ts
 * getResourceServerInfo: (ctx, indicator, client) => resourceServerInfo(store, ctx, indicator, client),
 * ```
 */
export async function resourceServerInfo(
  store: Store,
  ctx: KoaContextWithOIDC,
  indicator: string,
  client: ClientLike,
): Promise<ResourceServer> {
  const { resource, granted } = await lookUp(store, ctx, indicator, client);
  if (resource === undefined) throw new errors.InvalidTarget();
  const scopes = allowedScopes(ctx, granted);
  return {
    scope: scopes.join(' '),
    audience: resource.indicator,
    accessTokenTTL: resource.accessTokenTtl,
    accessTokenFormat: 'jwt',
  };
}

/**
 * The resource and the scopes a token may carry before the client-credentials rules: at the
 * authorization endpoint every scope of the resource; at the token endpoint those the roles of the
 * M2M application (client credentials, read ahead with the client) or of the user grant, in one read.
 */
async function lookUp(
  store: Store,
  ctx: KoaContextWithOIDC,
  indicator: string,
  client: ClientLike,
): Promise<{ resource: ResourceRecord | undefined; granted: readonly string[] }> {
  if (ctx.oidc.route !== 'token') {
    const resource = await store.resources.findByIndicator(indicator);
    const scopes = resource === undefined ? [] : await store.resources.listScopes(resource.id);
    return { resource, granted: scopes.map((scope) => scope.name) };
  }
  let read: TokenRequestRead | undefined;
  if (ctx.oidc.params?.grant_type === 'client_credentials') {
    read = await readTokenRequest(store, ctx, client.clientId);
    if (read.query.indicator !== indicator) {
      const query = {
        now: epoch(),
        applicationId: client.clientId,
        indicator,
        scopesOf: 'application',
      } as const;
      read = { query, records: await store.tokenRequests.read(query) };
    }
  } else {
    const account = ctx.oidc.entities.Account;
    const query = { now: epoch(), indicator, userId: account?.accountId, scopesOf: 'user' } as const;
    read = { query, records: await store.tokenRequests.read(query) };
  }
  if (read.records.resource !== undefined) rememberResource(ctx, read.records.resource);
  return { resource: read.records.resource, granted: read.records.grantedScopes };
}

/** Client credentials: the requested scopes must meet the granted ones; none requested gets them all. */
function allowedScopes(ctx: KoaContextWithOIDC, granted: readonly string[]): readonly string[] {
  if (ctx.oidc.route !== 'token' || ctx.oidc.params?.grant_type !== 'client_credentials') return granted;
  if (Array.isArray(ctx.oidc.params.resource) && ctx.oidc.params.resource.length > 1) {
    throw new errors.InvalidTarget('only a single resource indicator value is supported for this grant type');
  }
  const requested =
    typeof ctx.oidc.params.scope === 'string'
      ? ctx.oidc.params.scope.split(' ').filter((s) => !OIDC_SCOPES.has(s))
      : [];
  if (requested.length === 0) {
    // No scope asked for: the application gets every scope its roles grant for this resource.
    if (granted.length > 0) ctx.oidc.params.scope = granted.join(' ');
  } else if (!requested.some((scope) => granted.includes(scope))) {
    throw new errors.InvalidScope(
      'none of the requested scopes is granted to this application',
      requested.join(' '),
    );
  }
  return granted;
}

/**
 * `defaultResource`: client credentials must name their audience; other requests keep what they sent.
 *
 * @example
 * ```ts
 * defaultResource: async (ctx, _client, oneOf) => defaultResource(ctx, oneOf),
 * ```
 */
export function defaultResource(
  ctx: KoaContextWithOIDC,
  oneOf: string | readonly string[] | undefined,
): string | string[] | undefined {
  if (Array.isArray(oneOf)) return [...oneOf];
  if (typeof oneOf === 'string') return oneOf;
  if (ctx.oidc.route === 'token' && ctx.oidc.params?.grant_type === 'client_credentials') {
    throw new errors.InvalidTarget('a resource parameter is required for the client_credentials grant');
  }
  return undefined;
}
