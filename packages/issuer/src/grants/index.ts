/**
 * The registry of extra grant types: `{ grantType, handler, parameters, dupes }` modules registered
 * with oidc-provider's `registerGrantType`. The standard grants (authorization code, refresh token,
 * client credentials) are oidc-provider's own; RFC 8693 token exchange is added here.
 *
 * @module
 */
import type { Provider } from 'oidc-provider';
import { tokenExchangeGrant } from './token-exchange.js';
import type { GrantContext, GrantModule } from './types.js';

export type { GrantContext, GrantModule } from './types.js';

/**
 * Every extra grant, registered in order: RFC 8693 token exchange.
 *
 * @example
 * ```ts
 * import { GRANTS } from '@gatehouse/issuer';
 * console.log(GRANTS.map((grant) => grant.grantType)); // ['urn:ietf:params:oauth:grant-type:token-exchange']
 * ```
 */
export const GRANTS: readonly GrantModule[] = Object.freeze([tokenExchangeGrant]);

/** Register every module of {@link GRANTS} (or `grants`) with a provider. */
export function registerGrants(
  provider: Provider,
  context: GrantContext,
  grants: readonly GrantModule[] = GRANTS,
): void {
  for (const grant of grants) {
    provider.registerGrantType(
      grant.grantType,
      grant.handler(context),
      [...grant.parameters],
      [...grant.dupes],
    );
    grant.setup?.(provider, context);
  }
}
