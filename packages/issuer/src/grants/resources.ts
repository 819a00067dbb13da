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
import { OIDC_SCOPES } from '../config/defaults.js';
import type { Store } from '../storage/store.js';

/** What oidc-provider passes as the client. */
interface ClientLike {
  readonly clientId: string;
}

/**
 * Resolve a resource indicator to oidc-provider's resource-server description. Unknown indicators
 * (and relative or fragment-carrying ones, which can never be registered) are `invalid_target`.
 */
export async function resourceServerInfo(
  store: Store,
  ctx: KoaContextWithOIDC,
  indicator: string,
  client: ClientLike,
): Promise<ResourceServer> {
  const resource = await store.resources.findByIndicator(indicator);
  if (resource === undefined) throw new errors.InvalidTarget();
  const scopes = await allowedScopes(store, ctx, indicator, client, resource.id);
  return {
    scope: scopes.join(' '),
    audience: resource.indicator,
    accessTokenTTL: resource.accessTokenTtl,
    accessTokenFormat: 'jwt',
  };
}

async function allowedScopes(
  store: Store,
  ctx: KoaContextWithOIDC,
  indicator: string,
  client: ClientLike,
  resourceId: string,
): Promise<readonly string[]> {
  if (ctx.oidc.route !== 'token')
    return (await store.resources.listScopes(resourceId)).map((scope) => scope.name);
  if (ctx.oidc.params?.grant_type === 'client_credentials') {
    if (Array.isArray(ctx.oidc.params.resource) && ctx.oidc.params.resource.length > 1) {
      throw new errors.InvalidTarget(
        'only a single resource indicator value is supported for this grant type',
      );
    }
    const granted = await store.roles.grantedScopes({ applicationId: client.clientId }, indicator);
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
  const account = ctx.oidc.entities.Account;
  if (account !== undefined) return store.roles.grantedScopes({ userId: account.accountId }, indicator);
  return [];
}

/**
 * `defaultResource`: client credentials must name their audience; other requests keep what they sent.
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
